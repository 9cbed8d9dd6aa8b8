import { RunNotFoundError, type RunInfo, type RunStore } from "@agentrx/executors";
import { readReadableEvents } from "./read-readable-events";
import { CappedText, capTexts } from "./capped-text";
import type { TracePageData, TraceRun } from "./trace-data";
import { TraceEventConverter, type ServerTraceEvent, usageOf } from "./trace-event-converter";
import { isStalledRun } from "./is-stalled-run";
import { RequestEmbedder } from "./request-embedder";
import type { TracePageSource } from "./page/trace-page-html";

/**
 * How many characters of recorded text (inputs, tool inputs, observations, replies) a trace page
 * carries in all: about 2.5 MB. Texts that fit a fair share stay whole; the longest are cut.
 */
export const TRACE_TEXT_BUDGET = 2_500_000;

/**
 * How many characters of recorded requests (`recordPrompts`: the messages, tools and settings each
 * model call was sent) a trace page carries in all, besides {@link TRACE_TEXT_BUDGET}: about 1 MB.
 * The page holds each distinct message, tool list and settings text once, however many requests
 * repeat it, and each counts once against this budget.
 */
export const TRACE_REQUEST_BUDGET = 1_000_000;

/** Options of {@link readTracePage}. */
export interface ReadTracePageOptions {
  mode: TracePageData["mode"];
  /** Where the store is, as the page names it. */
  source: string;
  /** Characters of recorded text the page may carry. @default TRACE_TEXT_BUDGET */
  textBudget?: number;
  /** Characters of recorded requests the page may carry. @default TRACE_REQUEST_BUDGET */
  requestBudget?: number;
}

/**
 * A run's trace page data, read from `store`: its row and every event recorded so far. An event
 * that cannot be read is in the page as an `other` event with an `error` (see
 * {@link readReadableEvents}), and the page says how many there are. Rejects with
 * `RunNotFoundError` for an unknown run and a `RunStoreError` for a store failure.
 *
 * @internal
 */
export async function readTracePage(store: RunStore, runId: string, options: ReadTracePageOptions): Promise<TracePageSource> {
  const { mode, source, textBudget = TRACE_TEXT_BUDGET } = options;
  // A live page shows the text of the model call still streaming: the `ui` keeps token texts.
  // The row first, then the events: a run that ends in between is then a running run whose page
  // holds its last events (and follows it live), never a finished run without them.
  const info = await store.getRun(runId);
  if (info === undefined) throw new RunNotFoundError({ operation: "agentrx", runId });
  const converter = new TraceEventConverter(runId, { tokenText: mode === "ui" });
  const events: ServerTraceEvent[] = [];
  for await (const page of readReadableEvents(store, runId, "agentrx trace")) for (const stored of page) events.push(converter.convert(stored));
  dropAnsweredTokenTexts(events);
  capTexts(converter.texts, textBudget);
  capTexts(converter.requestTexts, options.requestBudget ?? TRACE_REQUEST_BUDGET);
  const embedder = new RequestEmbedder();
  const embedded = events.map((event) => embedder.embed(event));
  return { run: traceRunOf(info), events: embedded, mode, source, generatedAt: Date.now(), ...(embedder.isEmpty ? {} : { requestParts: embedder.parts }) };
}

/** Removes the text of the token events whose model call has its reply recorded (the reply holds it). */
function dropAnsweredTokenTexts(events: ServerTraceEvent[]): void {
  const answered = new Set<number>();
  let ended = false;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as ServerTraceEvent;
    if (event.type === "model_call") answered.add(event.iteration);
    else if (event.type === "output") ended = true;
    else if (event.type === "token" && event.text !== undefined && (ended || answered.has(event.iteration))) delete event.text;
  }
}

/**
 * The whole text at `field` (a dotted path such as `observation` or `reply.toolCalls.0.args`) of
 * event `seq` of a run, for a page that holds only its start (`undefined` when that event cannot
 * be read).
 *
 * @internal
 */
export async function readTraceText(store: RunStore, runId: string, seq: number, field: string): Promise<string | undefined> {
  const converter = new TraceEventConverter(runId);
  for await (const page of readReadableEvents(store, runId, "agentrx ui")) {
    for (const stored of page) {
      const event = converter.convert(stored);
      if (stored.seq !== seq) continue;
      let value: unknown = event;
      for (const key of field.split(".")) value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
      return value instanceof CappedText ? value.text : typeof value === "string" ? value : undefined;
    }
  }
  return undefined;
}

/**
 * The page's view of a run's row, read at `now` (epoch milliseconds; a running run whose lease
 * lapsed by then is `stalled`).
 *
 * @internal
 */
export function traceRunOf(info: RunInfo, now: number = Date.now()): TraceRun {
  const run: TraceRun = {
    runId: info.runId,
    status: info.status,
    createdAt: info.createdAt,
    updatedAt: info.updatedAt,
    eventCount: info.eventCount,
  };
  if (info.threadId !== undefined) run.threadId = info.threadId;
  if (isStalledRun(info, now)) run.stalled = true;
  if (info.forkOf !== undefined) run.forkOf = { runId: info.forkOf.runId, iteration: info.forkOf.iteration };
  if (info.stopReason !== undefined) run.stopReason = info.stopReason;
  // Why a run failed or was cancelled; a run that ran on after that (a resume) has no error, even
  // in a record written before claims cleared it.
  if (info.error !== undefined && (info.status === "failed" || info.status === "cancelled")) run.error = info.error;
  if (info.usage !== undefined) run.usage = usageOf(info.usage);
  if (info.checkpoint !== undefined) {
    run.iterations = info.checkpoint.iteration;
    run.elapsedMs = info.checkpoint.elapsedMs;
  }
  return run;
}
