import { InvalidArgumentError, checkOptionKeys, isThenable } from "@agentrx/core";
import {
  type AgentStreamEvent,
  type DisplayRunOptions,
  type Interrupt,
  type LiveRunDisplay,
  type MimeBundle,
  RUN_MIME_TYPE,
  type RunDisplayBundle,
  type RunObservable,
  type RunStore,
  type RunTableSummary,
  type StopReason,
  randomUuid,
  runDisplaySource,
} from "@agentrx/executors";
import { MemoryRunStore, replayRun } from "@agentrx/runs";
import type { UsageMetadata } from "@langchain/core/messages";
import { type Observable, from, lastValueFrom, toArray } from "rxjs";
import { escapeHtml } from "../trace-page/page/page-shell";
import { tracePageHtml } from "../trace-page/page/trace-page-html";
import { readTracePage } from "../trace-page/read-trace-page";
import { cutText } from "../trace-page/cut-text";
import { ANSWER_LIMIT, RunTable } from "./run-table";

/**
 * The store each executor's run was recorded in for its display, when the run had none of its own
 * (a `MemoryRunStore` made by `displayRun`): displayed again, the run shows its table and trace
 * from it rather than its result alone.
 */
const displayStores = new WeakMap<object, RunStore>();

/**
 * Runs a run for a notebook and shows it: a live table of its tool calls (action, observation,
 * duration), pauses and streaming answer, updated in place while it runs; then resolves with the
 * final MIME bundle ({@link RunDisplayBundle}): the run's trace page in a frame, the table as
 * text, and a JSON summary (`application/vnd.agentrx.run+json`). A run left as a cell's last
 * expression in Deno's kernel does this by itself; call it to show a run elsewhere in a cell, or
 * with your own `live` target in another kernel (tslab: `newDisplay()`). In Deno's kernel the live
 * display's last update is the final table with the trace (front ends place an update by its
 * display id, so it stays in the cell that ran the run, even when the kernel sends the cell's
 * result after the cell ended); the bundle's HTML is then one line saying so, which this update's
 * style hides. Next to the frame, a plain line names the run and says how to see its trace in a
 * notebook opened untrusted (which strips frames and `<style>`; the table keeps inline styles).
 *
 * For a run made by an executor (`invoke`, `stream`, `resume`), awaiting the run afterwards (or
 * while it is shown) resolves with this run's result (or rejects with its error) without running
 * it again; a run that was awaited already is not run again either: the bundle's summary is its
 * result's (a paused run is `"interrupted"`, a failed one `"failed"` with its error), and its table
 * is replayed from the run's record, above its trace, when the store has it. A run displayed a
 * second time shows the same way, from the record its first display made when the executor has
 * no store. A failed run shows its error in the table and the bundle; the promise still resolves.
 * A stored run replayed (`replayRun(store, runId)` with `{ store }`) whose events end without an
 * output ends as the store's record says (failed, cancelled, with its error). The table shows
 * the first 10,000 characters of a longer answer; the JSON has it whole. It rejects when the
 * live display fails, after the run ended.
 *
 * @param run a run from `executor.invoke`, `stream` or `resume`, or any observable of run events
 * @param options where the live table goes, the store of the run's record, update pacing
 * @example
 * ```ts
 * import { AgentExecutor } from "@agentrx/executors";
 * import { displayRun } from "@agentrx/viewer";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const agent = RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" }));
 * const executor = new AgentExecutor({ agent, tools: [] });
 * const run = executor.invoke({ input: "hello" });
 * const bundle = await displayRun(run, { live: false });
 * console.log(bundle["application/vnd.agentrx.run+json"].status); // "finished"
 * console.log((await run).output); // "hi": the displayed run's result, not a second run
 * ```
 */
export async function displayRun(run: Observable<AgentStreamEvent> | RunObservable<unknown, unknown>, options: DisplayRunOptions = {}): Promise<RunDisplayBundle> {
  checkDisplayArguments(run, options);
  const { throttleMs = 100, traceHeight = 520 } = options;
  const live = options.live === undefined ? denoLiveDisplay() : options.live === false ? undefined : options.live;
  const runObservable = run as RunObservable<unknown, unknown>;
  const source = runDisplaySource(runObservable);
  const awaited = typeof runObservable.awaitedResult === "function" ? runObservable.awaitedResult() : undefined;
  if (awaited !== undefined) {
    // An executors package from before `awaitedRunId` has no id of a failed run: its error alone is shown.
    const runId = typeof runObservable.awaitedRunId === "function" ? runObservable.awaitedRunId() : undefined;
    return awaitedBundle(awaited, runId, options.store ?? source?.store ?? displayStores.get(runObservable), traceHeight);
  }

  let store = options.store ?? source?.store;
  if (store === undefined && source !== undefined) {
    store = new MemoryRunStore();
    displayStores.set(runObservable, store);
  }
  const events = source === undefined ? (run as Observable<AgentStreamEvent>) : source.events(store);
  const table = new RunTable();
  const updates = new LiveUpdates(live, table, throttleMs);
  const seen: AgentStreamEvent[] = [];
  let failure: { error: unknown } | undefined;
  // The result is this display's from now on (before the first await): awaiting the run while it
  // is shown waits for the run shown, rather than running it a second time.
  let settle: ((outcome: Promise<unknown>) => void) | undefined;
  if (source !== undefined) runObservable.adoptResult(new Promise<unknown>((resolve) => (settle = resolve)), () => table.id);
  await updates.start();
  await new Promise<void>((resolve) => {
    events.subscribe({
      next: (event) => {
        seen.push(event);
        table.add(event);
        updates.changed();
      },
      error: (error: unknown) => {
        failure = { error };
        table.fail(error);
        resolve();
      },
      complete: () => resolve(),
    });
  });
  if (source !== undefined) settle?.(failure === undefined ? lastValueFrom(from(seen).pipe(source.result)) : Promise.reject(failure.error));
  // Events that end without saying how the run ended (a stored run replayed: a failure or a
  // cancellation is in the run's row, not in an event): the record says it.
  if (store !== undefined && table.id !== undefined) await endAsRecorded(table, store, table.id, failure === undefined && !table.hasEnded);
  await updates.finish();
  const trace = table.id === undefined || store === undefined ? undefined : await traceFrame(store, table.id, traceHeight);
  if (live === undefined) return bundleOf(table.html() + (trace ?? ""), table.text(), table.summary());
  const displayId = (live as Partial<DenoLiveDisplay>).displayId;
  if (displayId === undefined) return bundleOf(trace ?? table.html(), table.text(), table.summary());
  // Deno's kernel can end a cell before its value is sent, and labels what it sends then with the
  // next cell: the final table and trace go into the live display, which front ends place by its
  // display id. The cell's value is one line (the trace is not stored twice in the notebook),
  // hidden by the live display's style wherever it lands; shown where styles are stripped.
  await updates.replace({ "text/html": table.html() + hideResultStyle(displayId) + (trace ?? ""), "text/plain": table.text() });
  const line = `<p class="agentrx-result-line">${escapeHtml(table.text().split("\n")[0] ?? "")}: the table and the trace are in the display above.</p>`;
  return bundleOf(`<div class="agentrx-result" data-agentrx-display="${escapeHtml(displayId)}">${line}</div>`, table.text(), table.summary());
}

/** A live display of Deno's kernel: its updates replace the output with this display id. */
interface DenoLiveDisplay extends LiveRunDisplay {
  displayId: string;
}

/** The style that hides a cell value's copy of what the live display `displayId` shows (see `displayRun`). */
function hideResultStyle(displayId: string): string {
  return `<style>div.agentrx-result[data-agentrx-display="${escapeHtml(displayId)}"]{display:none!important}</style>`;
}

/**
 * Sends the table to the live display at most every `throttleMs` (a change within that time is
 * sent when it is up, with every change since): a fast run of hundreds of calls, or an answer
 * streaming token by token, is a few updates a second, not one per event.
 */
class LiveUpdates {
  private queue: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private last = 0;
  private failed: { error: unknown } | undefined;

  constructor(
    private readonly live: LiveRunDisplay | undefined,
    private readonly table: RunTable,
    private readonly throttleMs: number,
  ) {}

  /**
   * Shows the table. A show that fails is kept, as a failed update is, and rejects `finish`: the
   * run goes on regardless, since awaiting it waits for this display's run.
   */
  async start(): Promise<void> {
    if (this.live === undefined) return;
    this.last = Date.now();
    try {
      await this.live.show(this.bundle());
    } catch (error) {
      this.failed = { error };
    }
  }

  changed(): void {
    if (this.live === undefined || this.timer !== undefined) return;
    const wait = this.throttleMs - (Date.now() - this.last);
    if (wait <= 0) this.send();
    else this.timer = setTimeout(() => this.send(), wait);
  }

  /** Replaces what the live display shows with `bundle`, after every update; rejects as `finish` does. */
  async replace(bundle: MimeBundle): Promise<void> {
    if (this.live === undefined) return;
    await this.update(bundle);
    if (this.failed !== undefined) throw this.failed.error;
  }

  /** Sends the final table and waits for every update; rejects with the first update that failed. */
  async finish(): Promise<void> {
    if (this.live === undefined) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.send();
    await this.queue;
    if (this.failed !== undefined) throw this.failed.error;
  }

  private send(): void {
    this.timer = undefined;
    this.last = Date.now();
    void this.update(this.bundle());
  }

  /** Queues `bundle` as the live display's next update (none after one failed); resolves once it is sent. */
  private update(bundle: MimeBundle): Promise<void> {
    const live = this.live as LiveRunDisplay;
    this.queue = this.queue.then(async () => {
      if (this.failed !== undefined) return;
      try {
        await live.update(bundle);
      } catch (error) {
        this.failed = { error };
      }
    });
    return this.queue;
  }

  private bundle(): MimeBundle {
    return { "text/html": this.table.html(), "text/plain": this.table.text() };
  }
}

interface DenoJupyter {
  broadcast(type: string, content: Record<string, unknown>): Promise<void>;
}

/** The live display of Deno's Jupyter kernel (`display_data`, then `update_display_data` with the same id). */
function denoLiveDisplay(): DenoLiveDisplay | undefined {
  let jupyter: DenoJupyter | undefined;
  try {
    jupyter = (globalThis as { Deno?: { jupyter?: DenoJupyter } }).Deno?.jupyter;
  } catch {
    return undefined; // Deno outside its kernel throws on `Deno.jupyter` (it is an unstable API there)
  }
  if (typeof jupyter?.broadcast !== "function") return undefined;
  const displayId = `agentrx-run-${randomUuid()}`;
  const send = (type: string, bundle: MimeBundle) => jupyter.broadcast(type, { data: bundle, metadata: {}, transient: { display_id: displayId } });
  return { displayId, show: (bundle) => send("display_data", bundle), update: (bundle) => send("update_display_data", bundle) };
}

/**
 * Characters of recorded text (and of recorded requests) the trace in a cell carries: a notebook
 * keeps its outputs in its file, so a long run's longest texts are cut sooner than on the page
 * `npx agentrx trace` writes, which has them whole.
 */
const NOTEBOOK_TEXT_BUDGET = 400_000;
const NOTEBOOK_REQUEST_BUDGET = 100_000;

/**
 * What `displayRun` was given, checked before the run starts: a run (an observable of its events),
 * and options of the right kinds. A `live` target without `show` and `update` would fail only once
 * the run had run; a `traceHeight` that is not a number would be written into the frame's style.
 */
function checkDisplayArguments(run: unknown, options: unknown): void {
  const bad = (argument: string, value: unknown, message: string): never => {
    throw new InvalidArgumentError({ argument, value, message: `displayRun: ${message}` });
  };
  const kind = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : typeof value === "string" ? JSON.stringify(value) : String(value));
  if (typeof (run as { subscribe?: unknown } | null)?.subscribe !== "function") {
    bad("run", run, `\`run\` must be a run: executor.invoke(...), stream(...) or resume(...), or an observable of run events; got ${isThenable(run) ? "a promise (pass the run itself, not what awaiting it gives)" : kind(run)}.`);
  }
  if (typeof options !== "object" || options === null || Array.isArray(options)) bad("options", options, `\`options\` must be an object such as { live: false }, got ${kind(options)}.`);
  checkOptionKeys("displayRun", options, ["live", "store", "throttleMs", "traceHeight"] satisfies (keyof DisplayRunOptions)[]);
  const { live, throttleMs, traceHeight, store } = options as DisplayRunOptions;
  if (live !== undefined && live !== false && (typeof live !== "object" || live === null || typeof live.show !== "function" || typeof live.update !== "function")) {
    bad("live", live, `\`live\` must be false or a display target { show(bundle), update(bundle) } (tslab: newDisplay()), got ${kind(live)}.`);
  }
  if (throttleMs !== undefined && (typeof throttleMs !== "number" || !Number.isFinite(throttleMs) || throttleMs < 0)) bad("throttleMs", throttleMs, `\`throttleMs\` must be a number of milliseconds >= 0, got ${kind(throttleMs)}.`);
  if (traceHeight !== undefined && (typeof traceHeight !== "number" || !Number.isFinite(traceHeight) || traceHeight <= 0)) bad("traceHeight", traceHeight, `\`traceHeight\` must be a number of CSS pixels > 0, got ${kind(traceHeight)}.`);
  if (store !== undefined && typeof (store as { readEvents?: unknown } | null)?.readEvents !== "function") bad("store", store, `\`store\` must be a RunStore (e.g. new SqliteRunStore() from @agentrx/runs), got ${kind(store)}.`);
}

/**
 * The run's trace page in a sandboxed frame (scripts only: the page needs nothing else), under a
 * line naming the run. A notebook opened untrusted strips the frame but keeps that line, which says
 * how to see the trace (`note: false` leaves it out).
 */
async function traceFrame(store: RunStore, runId: string, height: number, { note = true }: { note?: boolean } = {}): Promise<string | undefined> {
  let page: string;
  try {
    page = tracePageHtml(await readTracePage(store, runId, { mode: "file", source: "notebook", textBudget: NOTEBOOK_TEXT_BUDGET, requestBudget: NOTEBOOK_REQUEST_BUDGET }));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return `<p class="agentrx-trace-missing">The trace of run <code>${escapeHtml(runId)}</code> could not be read: ${escapeHtml(why)}</p>`;
  }
  const id = escapeHtml(runId);
  const line = note
    ? `<p class="agentrx-trace-note" style="margin:6px 0 2px;font:12px/1.4 system-ui,sans-serif;opacity:.7">Trace of run <code>${id}</code>. Nothing below? The notebook is not trusted: File &gt; Trust Notebook shows the trace, or run <code>npx agentrx trace ${id}</code>.</p>`
    : "";
  return `${line}<iframe class="agentrx-trace" title="Trace of run ${escapeHtml(runId)}" sandbox="allow-scripts" style="width:100%;height:${height}px;border:1px solid rgba(127,127,127,.35);border-radius:4px" srcdoc="${escapeHtml(page)}"></iframe>`;
}

/**
 * Times `table` as the record of run `runId` does (its checkpoint's running time over every
 * segment, which the trace page's header shows), once the record says the run is over; with `end`
 * (the run's events ended without saying how), also ends it as the record says (failed,
 * cancelled; its error). A run the record says is still running stays so. A record that cannot be
 * read leaves it as it is: the trace below the table says why it could not be read.
 */
async function endAsRecorded(table: RunTable, store: RunStore, runId: string, end = true): Promise<void> {
  const info = await store.getRun(runId).catch(() => undefined);
  if (info === undefined || info.status === "running" || info.status === "queued") return;
  const elapsedMs = info.checkpoint?.elapsedMs;
  if (!end) {
    if (typeof elapsedMs === "number") table.useRecordedTime(elapsedMs);
    return;
  }
  table.endAsRecorded({
    status: info.status,
    ...(info.stopReason === undefined ? {} : { stopReason: info.stopReason as StopReason }),
    ...(info.error === undefined ? {} : { error: info.error }),
    ...(elapsedMs === undefined ? {} : { elapsedMs }),
  });
}

/** What awaiting an executor's run resolves with, as far as the display reads it. */
interface AwaitedResult {
  runId?: string;
  output?: string;
  stopReason?: StopReason;
  interrupts?: Interrupt[];
  usage?: UsageMetadata;
  intermediateSteps?: unknown[];
}

/**
 * The bundle of a run that ran before this display (awaited, or displayed already). Its summary is its result's (status,
 * stop reason, pauses, usage); its table is the run's record replayed when `store` has it (the
 * segment the result ends: a resumed run shows its resumed part, as a live display of the resume
 * does), else a line with its answer; and its trace when recorded. A failed run shows the same
 * from its record (`runId`: the error does not say which run it was) with its error.
 */
async function awaitedBundle(result: Promise<unknown>, runId: string | undefined, store: RunStore | undefined, height: number): Promise<RunDisplayBundle> {
  let value: AwaitedResult;
  try {
    value = ((await result) ?? {}) as AwaitedResult;
  } catch (error) {
    return failedBundle(error, runId, store, height);
  }
  const summary = awaitedSummary(value);
  runId = value.runId;
  const table = runId === undefined || store === undefined ? undefined : await recordedSegment(store, runId, value);
  if (table !== undefined) {
    summary.actions = table.summary().actions;
    summary.steps = table.summary().steps;
  }
  const trace = runId === undefined || store === undefined ? undefined : await traceFrame(store, runId, height);
  if (table !== undefined) return bundleOf(table.html() + (trace ?? ""), table.text(), summary);
  const headline = summary.status === "interrupted" ? "paused" : `finished (${summary.stopReason ?? "finish"})`;
  const text = `Run ${headline} ${runId ?? ""} (it ran before this display): ${cutAnswer(value.output ?? "")}`;
  return bundleOf(trace ?? `<div class="agentrx-run" data-status="${summary.status}"><pre>${escapeHtml(text)}</pre></div>`, text, summary);
}

/**
 * The bundle of an awaited run that failed: the last recorded segment of run `runId` (the one that
 * failed) with the error, above the run's trace, when `store` has it; else the error alone (with
 * the run's id when known).
 */
async function failedBundle(error: unknown, runId: string | undefined, store: RunStore | undefined, height: number): Promise<RunDisplayBundle> {
  const recorded = runId === undefined || store === undefined ? undefined : await recordedSegments(store, runId);
  const table = new RunTable();
  for (const event of recorded?.at(-1) ?? []) table.add(event);
  table.fail(error);
  if (recorded !== undefined) await endAsRecorded(table, store as RunStore, runId as string, false);
  const summary = table.summary();
  if (runId !== undefined) summary.runId = runId;
  const trace = recorded === undefined ? undefined : await traceFrame(store as RunStore, runId as string, height);
  return bundleOf(table.html() + (trace ?? ""), table.text(), summary);
}

/**
 * The summary of an awaited run from its result. Without the record, its counts are what the
 * result says: its steps (with `returnIntermediateSteps`), and those calls plus the paused ones.
 */
function awaitedSummary(value: AwaitedResult): RunTableSummary {
  const steps = Array.isArray(value.intermediateSteps) ? value.intermediateSteps.length : 0;
  const interrupts = Array.isArray(value.interrupts) ? value.interrupts : [];
  const summary: RunTableSummary = { status: value.stopReason === "interrupted" ? "interrupted" : "finished", actions: steps + interrupts.length, steps };
  if (value.runId !== undefined) summary.runId = value.runId;
  if (value.stopReason !== undefined) summary.stopReason = value.stopReason;
  if (value.output !== undefined) summary.output = value.output;
  if (interrupts.length > 0) summary.interrupts = interrupts.map(({ id, tool, toolInput }) => ({ id, tool, toolInput }));
  if (value.usage !== undefined) summary.usage = value.usage;
  return summary;
}

/**
 * The table of the recorded segment (from a `start` of the run to its `output`) that ended with
 * `value`: the latest one whose stop reason, answer and pauses are the result's (the run may have
 * been resumed again since). `undefined` when the record cannot be read or has no such segment.
 */
async function recordedSegment(store: RunStore, runId: string, value: AwaitedResult): Promise<RunTable | undefined> {
  const segments = await recordedSegments(store, runId);
  if (segments === undefined) return undefined;
  const pauses = (interrupts: readonly Interrupt[] | undefined) => (interrupts ?? []).map(({ id }) => id).join("\n");
  for (let index = segments.length - 1; index >= 0; index--) {
    const segment = segments[index] as AgentStreamEvent[];
    const output = segment.find((event) => event.type === "output" && event.subRun === undefined);
    if (output?.type !== "output" || output.stopReason !== value.stopReason || output.output !== value.output) continue;
    const interrupt = segment.find((event) => event.type === "interrupt" && event.subRun === undefined);
    if (pauses(interrupt?.type === "interrupt" ? interrupt.interrupts : undefined) !== pauses(value.interrupts)) continue;
    const table = new RunTable();
    for (const event of segment) table.add(event);
    await endAsRecorded(table, store, runId, false);
    return table;
  }
  return undefined;
}

/**
 * The run's recorded events, by segment (each from a `start` of the run: a resumed run has one per
 * resume). `undefined` when the record cannot be read.
 */
async function recordedSegments(store: RunStore, runId: string): Promise<AgentStreamEvent[][] | undefined> {
  let events: AgentStreamEvent[];
  try {
    events = await lastValueFrom(replayRun(store, runId).pipe(toArray()));
  } catch {
    return undefined;
  }
  const segments: AgentStreamEvent[][] = [];
  for (const event of events) {
    if (event.type === "start" && event.subRun === undefined) segments.push([]);
    segments.at(-1)?.push(event);
  }
  return segments;
}

/** An answer as a line of text shows it: its first {@link ANSWER_LIMIT} characters, then its length (the JSON has it whole). */
function cutAnswer(answer: string): string {
  return answer.length <= ANSWER_LIMIT ? answer : `${cutText(answer, ANSWER_LIMIT)}… (${answer.length.toLocaleString("en-US")} characters: the run's JSON has the whole answer)`;
}

function bundleOf(html: string, text: string, summary: RunTableSummary): RunDisplayBundle {
  const bundle: RunDisplayBundle = { "text/html": html, "text/plain": text, [RUN_MIME_TYPE]: summary };
  Object.defineProperty(bundle, Symbol.for("Jupyter.display"), { value: () => ({ ...bundle }), enumerable: false });
  return bundle;
}
