import type { AgentStreamEvent, Decision, ForkOptions, ResumeOptions, RunInfo, RunStore } from "@agentrx/executors";
import { RunEventDecoder, randomUuid } from "@agentrx/executors";
import type { Observable, Subscription } from "rxjs";
import type { TraceActions, TracePendingCall } from "../trace-page/trace-data";
import { isUnreadableRunEvent, readReadableEvents } from "../trace-page/read-readable-events";
import { isStalledRun } from "../trace-page/is-stalled-run";

/**
 * What the `ui` server needs of an executor to act on runs: an `AgentExecutor` (the one that runs
 * these agents, over the same store) has both.
 */
export interface UiActionExecutor {
  resume(runId: string, options?: ResumeOptions): Observable<AgentStreamEvent>;
  fork(runId: string, options?: ForkOptions): Observable<AgentStreamEvent>;
}

/** What the page asks for (the JSON body of `POST /api/runs/<runId>/actions`). */
export type RunActionRequest =
  | { action: "approve"; interruptId: string }
  | { action: "reject"; interruptId: string; message?: string }
  | { action: "edit"; interruptId: string; toolInput: unknown }
  | { action: "resume" }
  | { action: "cancel" }
  | { action: "fork"; at?: number };

/** The answer to an action: the HTTP status and its JSON body. */
export interface RunActionResult {
  status: number;
  body: { runId?: string; error?: string };
}

/**
 * The actions of the `ui` server: it resumes, decides, forks and cancels runs with the executor it
 * was given, and runs what it starts in this process (recorded in the store, as any run). It
 * cancels the runs it runs itself at once, and those of other processes through the store
 * (`RunStore.cancelRun`: their process stops at its next write), when the store can.
 *
 * @internal
 */
export class RunActions {
  /** The runs this server started, by run id, with what cancels them. */
  private readonly running = new Map<string, { controller: AbortController; subscription: Subscription }>();

  constructor(
    private readonly executor: UiActionExecutor,
    private readonly store: RunStore,
    private readonly token: string,
    private readonly onError: (message: string) => void,
  ) {}

  /** What the page of `run` may offer. */
  async pageActions(run: RunInfo, now = Date.now()): Promise<TraceActions> {
    // Stalled: running under a lapsed lease, its process stopped (not one this server runs).
    const stalled = !this.running.has(run.runId) && isStalledRun(run, now);
    return {
      token: this.token,
      pending: run.status === "interrupted" ? await this.pending(run.runId) : [],
      // A failed run goes on where its record ends, as `executor.resume` does (docs/runs.md).
      resume: run.status === "cancelled" || run.status === "failed" || stalled,
      // A run of another process: through the store, when it can (`cancelRun`).
      cancel: this.running.has(run.runId) || (this.store.cancelRun !== undefined && CANCELLABLE.has(run.status)),
      fork: run.eventCount > 0 && run.status !== "queued",
    };
  }

  /** Carries out `request` on run `runId`; resolves once the run it starts has started. */
  async perform(runId: string, request: RunActionRequest): Promise<RunActionResult> {
    const run = await this.store.getRun(runId);
    if (run === undefined) return { status: 404, body: { error: `no run ${JSON.stringify(runId)}` } };
    const actions = await this.pageActions(run);
    switch (request.action) {
      case "approve":
      case "reject":
      case "edit": {
        const call = actions.pending.find((pending) => pending.id === request.interruptId);
        if (call === undefined) return conflict(`run ${runId} has no call waiting for a decision with interrupt id ${JSON.stringify(request.interruptId)} (it is ${run.status}${waitingOn(actions.pending)})`);
        const decision: Decision =
          request.action === "approve"
            ? { type: "approve" }
            : request.action === "reject"
              ? { type: "reject", ...(request.message ? { message: request.message } : {}) }
              : { type: "edit", toolInput: request.toolInput };
        return this.start(runId, (signal) => this.executor.resume(runId, { decisions: { [call.id]: decision }, store: this.store, signal }));
      }
      case "resume":
        if (!actions.resume) return conflict(`run ${runId} is ${run.status}: only a cancelled or failed run, or a stalled one (running, its process stopped and its lease lapsed), can be resumed here`);
        return this.start(runId, (signal) => this.executor.resume(runId, { store: this.store, signal }));
      case "cancel": {
        const own = this.running.get(runId);
        if (own === undefined) {
          if (this.store.cancelRun === undefined) return conflict(`run ${runId} is not run by this server (it is ${run.status}) and this store cannot cancel runs of other processes; cancel it where it runs`);
          if (!CANCELLABLE.has(run.status)) return conflict(`run ${runId} is ${run.status}: only a queued, running or paused run can be cancelled`);
          const cancelled = await this.store.cancelRun(runId, { reason: "The run was cancelled from agentrx ui.", at: Date.now() });
          if (!cancelled) return conflict(`run ${runId} ended before it could be cancelled`);
          return { status: 200, body: { runId } };
        }
        own.controller.abort();
        own.subscription.unsubscribe();
        this.running.delete(runId);
        return { status: 200, body: { runId } };
      }
      case "fork": {
        if (!actions.fork) return conflict(`run ${runId} has no record to fork from`);
        const forkId = randomUuid();
        return this.start(forkId, (signal) =>
          this.executor.fork(runId, { runId: forkId, store: this.store, signal, ...(request.at === undefined ? {} : { at: request.at }) }),
        );
      }
    }
  }

  /** Stops every run this server runs (the server is closing). */
  stopAll(): void {
    for (const { controller, subscription } of this.running.values()) {
      controller.abort();
      subscription.unsubscribe();
    }
    this.running.clear();
  }

  /** Calls waiting for a decision: those of the run's last `interrupt` event. */
  private async pending(runId: string): Promise<TracePendingCall[]> {
    const decoder = new RunEventDecoder(runId);
    let last: TracePendingCall[] = [];
    for await (const page of readReadableEvents(this.store, runId, "agentrx ui")) {
      for (const entry of page) {
        if (isUnreadableRunEvent(entry) || entry.type !== "interrupt") continue;
        const event = decoder.decode(entry);
        if (event.type !== "interrupt" || event.subRun !== undefined) continue;
        last = event.interrupts.map((interrupt) => ({ id: interrupt.id, tool: interrupt.tool, toolInput: interrupt.toolInput, ...(interrupt.reason === undefined ? {} : { reason: interrupt.reason }) }));
      }
    }
    return last;
  }

  /** Runs `run` here until it ends; resolves with its id once it emitted its first event (it started) or ended. */
  private start(runId: string, run: (signal: AbortSignal) => Observable<AgentStreamEvent>): Promise<RunActionResult> {
    const controller = new AbortController();
    return new Promise<RunActionResult>((resolve) => {
      let answered = false;
      const answer = (result: RunActionResult) => {
        if (answered) return;
        answered = true;
        resolve(result);
      };
      const subscription = run(controller.signal).subscribe({
        next: () => answer({ status: 202, body: { runId } }),
        error: (error: unknown) => {
          this.running.delete(runId);
          const message = error instanceof Error ? error.message : String(error);
          if (answered) this.onError(`run ${runId}: ${message}`);
          answer({ status: 409, body: { error: message } });
        },
        complete: () => {
          this.running.delete(runId);
          answer({ status: 202, body: { runId } });
        },
      });
      if (!subscription.closed) this.running.set(runId, { controller, subscription });
    });
  }
}

/** The statuses of a run the store can cancel (`cancelRun`): one that has not ended. */
const CANCELLABLE = new Set(["queued", "running", "interrupted"]);

/** The calls a pause waits on, for a refusal that names them (`; it waits on call-1-0 (refund)`); none: nothing. */
function waitingOn(pending: readonly TracePendingCall[]): string {
  return pending.length === 0 ? "" : `; it waits on ${pending.map((call) => `${call.id} (${call.tool})`).join(", ")}`;
}

function conflict(error: string): RunActionResult {
  return { status: 409, body: { error } };
}

/**
 * The body of an action request, checked: a clear message names what is wrong.
 *
 * @internal
 */
export function parseActionRequest(body: unknown): RunActionRequest | string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "the body must be a JSON object with an `action`";
  const { action, interruptId, message, toolInput, at } = body as Record<string, unknown>;
  switch (action) {
    case "approve":
    case "reject":
    case "edit":
      if (typeof interruptId !== "string" || interruptId === "") return `\`${action}\` needs \`interruptId\`, the id of the paused call`;
      if (action === "approve") return { action, interruptId };
      if (action === "reject") {
        if (message !== undefined && typeof message !== "string") return "`message` must be a string";
        return { action, interruptId, ...(message === undefined ? {} : { message }) };
      }
      if (toolInput === undefined) return "`edit` needs `toolInput`, the call's new arguments";
      return { action, interruptId, toolInput };
    case "resume":
    case "cancel":
      return { action };
    case "fork":
      if (at !== undefined && (typeof at !== "number" || !Number.isInteger(at) || at < 0)) return "`at` must be an iteration number (an integer >= 0)";
      return { action, ...(at === undefined ? {} : { at }) };
    default:
      return `unknown action ${JSON.stringify(action)}: one of approve, reject, edit, resume, cancel, fork`;
  }
}
