import { InvalidArgumentError } from "@agentrx/core";
import type { AgentStreamEvent, Decision, ForkOptions, Interrupt, ResumeOptions, RunInfo, RunPauses, RunStore, StoredRunEvent } from "@agentrx/executors";
import { errorMessageOf as messageOf, randomUuid, runPauses } from "@agentrx/executors";
import type { Observable, Subscription } from "rxjs";
import type { TraceActions, TracePendingCall } from "../trace-page/trace-data";
import { isUnreadableRunEvent, readReadableEvents } from "../trace-page/read-readable-events";
import { isStalledRun } from "../trace-page/is-stalled-run";
import type { RunActionRequest } from "./action-request";
import { type RunActionResult, badRequest, conflict, notFound, refusedStart, serverError } from "./action-results";

/**
 * What the `ui` server needs of an executor to act on runs: an `AgentExecutor` (the one that runs
 * these agents, over the same store) has both.
 */
export interface UiActionExecutor {
  resume(runId: string, options?: ResumeOptions): Observable<AgentStreamEvent>;
  fork(runId: string, options?: ForkOptions): Observable<AgentStreamEvent>;
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
  /**
   * The runs this server started, by run id, with what stops them: a set, as two actions on one
   * run may be starting at once (two tabs), and the one the executor refuses must not take the
   * other's entry with it.
   */
  private readonly running = new Map<string, Set<OwnRun>>();

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
    // Another agent's run that its calling run waits on: its calls are answered there (see perform).
    const pausedIn = run.status === "interrupted" ? await this.callerWaitingOn(run.runId) : undefined;
    // False for another agent's run (or a fork of one): this server's executor is not the agent that ran it.
    const ownAgents = (await this.otherAgentsRun(run)) === undefined;
    return {
      token: this.token,
      pending: run.status === "interrupted" && pausedIn === undefined ? await this.pending(run.runId) : [],
      ...(pausedIn === undefined ? {} : { pausedIn }),
      // A failed run goes on where its record ends, as `executor.resume` does (docs/runs.md).
      resume: ownAgents && (run.status === "cancelled" || run.status === "failed" || stalled),
      // A run of another process: through the store, when it can (`cancelRun`).
      cancel: this.running.has(run.runId) || (this.store.cancelRun !== undefined && CANCELLABLE.has(run.status)),
      fork: ownAgents && run.eventCount > 0 && run.status !== "queued",
    };
  }

  /** Carries out `request` on run `runId`; resolves once the run it starts has started. */
  async perform(runId: string, request: RunActionRequest): Promise<RunActionResult> {
    const run = await this.store.getRun(runId);
    if (run === undefined) return notFound(runId);
    switch (request.action) {
      case "approve":
      case "reject":
      case "edit": {
        // Resumed here, another agent's run would run with this server's executor: the calling
        // run's agent, not its own. Its calling run resumes it, with that agent (docs/approval.md).
        const caller = run.status === "interrupted" ? await this.callerWaitingOn(runId) : undefined;
        if (caller !== undefined) {
          return conflict(`run ${runId} is another agent's run, paused inside a call of run ${caller}, which waits on it: answer its calls on run ${caller} (resuming that run resumes this one, with its own agent)`);
        }
        const call = await this.pausedCall(run, request.interruptId);
        if (!isPendingCall(call)) return call;
        const decision: Decision =
          request.action === "approve"
            ? { type: "approve" }
            : request.action === "reject"
              ? { type: "reject", ...(request.message ? { message: request.message } : {}) }
              : { type: "edit", toolInput: request.toolInput };
        return this.start({
          runId,
          what: `resume run ${runId} with the decision for ${call.id}`,
          run: (signal) => this.executor.resume(runId, { decisions: { [call.id]: decision }, store: this.store, signal }),
          refusal: (error) => this.refusedDecision(runId, call.id, error),
        });
      }
      case "resume": {
        const other = await this.otherAgentsRun(run);
        if (other !== undefined) return conflict(otherAgentsRefusal(runId, other, "resume"));
        if (!(await this.pageActions(run)).resume) return conflict(`run ${runId} is ${run.status}: only a cancelled or failed run, or a stalled one (running, its process stopped and its lease lapsed), can be resumed here`);
        return this.start({ runId, what: `resume run ${runId}`, run: (signal) => this.executor.resume(runId, { store: this.store, signal }) });
      }
      case "cancel": {
        const own = this.running.get(runId);
        if (own === undefined) {
          if (this.store.cancelRun === undefined) return conflict(`run ${runId} is not run by this server (it is ${run.status}) and this store cannot cancel runs of other processes; cancel it where it runs`);
          if (!CANCELLABLE.has(run.status)) return conflict(`run ${runId} is ${run.status}: only a queued, running or paused run can be cancelled`);
          const cancelled = await this.store.cancelRun(runId, { reason: "The run was cancelled from agentrx ui.", at: Date.now() });
          if (!cancelled) return conflict(`run ${runId} ended before it could be cancelled`);
          return { status: 200, body: { runId } };
        }
        // A start not answered yet is answered now: it will not start (the run is left as it was).
        for (const one of [...own]) one.stop(409, "it was cancelled before it started");
        return { status: 200, body: { runId } };
      }
      case "fork": {
        const other = await this.otherAgentsRun(run);
        if (other !== undefined) return conflict(otherAgentsRefusal(runId, other, "fork"));
        if (!(await this.pageActions(run)).fork) return conflict(`run ${runId} has no record to fork from`);
        const forkId = randomUuid();
        return this.start({
          runId: forkId,
          what: `fork run ${runId}`,
          // A source that is gone meanwhile: the 404 names it, not the fork that was never made.
          source: runId,
          run: (signal) => this.executor.fork(runId, { runId: forkId, store: this.store, signal, ...(request.at === undefined ? {} : { at: request.at }) }),
          // An iteration the run has no turn boundary at: the request's mistake, not the run's state.
          refusal: async (error) => (InvalidArgumentError.isInstance(error) && error.argument === "at" ? badRequest(messageOf(error)) : undefined),
        });
      }
    }
  }

  /** Stops every run this server runs (the server is closing). */
  stopAll(): void {
    for (const own of [...this.running.values()].flatMap((runs) => [...runs])) own.stop(503, "agentrx ui closed before it started");
  }

  /**
   * Calls waiting for a decision: those of the pause the run waits on. Another agent's call says
   * whether this store holds that agent's run, so that the page links to its page only then.
   */
  private async pending(runId: string): Promise<TracePendingCall[]> {
    const { waiting } = await this.pauses(runId);
    const subRuns = new Set(waiting.flatMap((call) => (call.subRun === undefined ? [] : [call.subRun.runId])));
    const inStore = new Set<string>();
    for (const subRunId of subRuns) if ((await this.store.getRun(subRunId)) !== undefined) inStore.add(subRunId);
    return waiting.map((call) => pendingCall(call, inStore));
  }

  /**
   * The run that waits on paused run `runId`, when `runId` is another agent's run that a `handoff`
   * or `asTool` call started (`handoff:<the call's idempotency key>`, `as-tool:<key>`, the key
   * `<the calling run's id>:...`) and its calling run, in this store, is paused on it (one of its
   * interrupts has `subRun.runId` `runId`); else undefined. A calling run id with `:` in it is
   * found too: each prefix of the key that ends before a `:` is tried.
   */
  private callerWaitingOn(runId: string): Promise<string | undefined> {
    return this.findCaller(runId, async (caller) => caller.status === "interrupted" && (await this.pauses(caller.runId)).waiting.some((call) => call.subRun?.runId === runId));
  }

  /**
   * Whether `run` is another agent's run, one a `handoff` or `asTool` call started (its id says so:
   * `handoff:...`, `as-tool:...`), or a fork of one (its `forkOf` chain leads to one): then which
   * run that is, and its calling run when this store holds it. The server's executor is the
   * calling runs' agent, not that one: a run does not record which executor ran it, so resuming
   * or forking it here would run it with the wrong agent. Undefined for any other run.
   */
  private async otherAgentsRun(run: RunInfo): Promise<OtherAgentsRun | undefined> {
    const seen = new Set<string>();
    let { runId, forkOf } = run;
    while (!seen.has(runId)) {
      seen.add(runId);
      if (subRunKey(runId) !== undefined) return { subRunId: runId, callerId: await this.callerOf(runId) };
      if (forkOf === undefined) return undefined;
      // A source deleted since still tells by its id what it was; only its own source is unknown.
      runId = forkOf.runId;
      forkOf = (await this.store.getRun(runId))?.forkOf;
    }
    return undefined;
  }

  /** The calling run of sub-run `subRunId` when this store holds it (see {@link callerWaitingOn}), in any status. */
  private callerOf(subRunId: string): Promise<string | undefined> {
    return this.findCaller(subRunId, () => true);
  }

  /**
   * The calling run of sub-run `subRunId` (undefined when `subRunId` is not one) that this store
   * holds and `accepts`: each prefix of its key that ends before a `:` is tried, longest first.
   */
  private async findCaller(subRunId: string, accepts: (caller: RunInfo) => boolean | Promise<boolean>): Promise<string | undefined> {
    const key = subRunKey(subRunId);
    if (key === undefined) return undefined;
    for (let end = key.lastIndexOf(":"); end > 0; end = key.lastIndexOf(":", end - 1)) {
      const caller = await this.store.getRun(key.slice(0, end));
      if (caller !== undefined && (await accepts(caller))) return caller.runId;
    }
    return undefined;
  }

  /**
   * The run's pauses (`runPauses`), read tolerantly as the trace page reads the record: an event
   * that cannot be read is left out, so a damaged record still shows the calls it waits on.
   */
  private async pauses(runId: string): Promise<RunPauses> {
    // Only what `runPauses` reads is kept: the pages of a long run's other events are let go.
    const kept: StoredRunEvent[] = [];
    for await (const page of readReadableEvents(this.store, runId, "agentrx ui")) {
      for (const entry of page) if (!isUnreadableRunEvent(entry) && (entry.type === "interrupt" || entry.type === "decisions")) kept.push(entry);
    }
    return runPauses(runId, kept);
  }

  /**
   * The paused call a decision for `interruptId` answers, or why it is refused, as every route
   * that takes decisions refuses it (docs/serving.md, "Answering a pause"): `409` when the run is
   * not paused, or paused again and the id is of an earlier pause (a stale page); `400` for an
   * interrupt id the run never paused on.
   */
  private async pausedCall(run: RunInfo, interruptId: string): Promise<Interrupt | RunActionResult> {
    if (run.status !== "interrupted") return conflict(`run ${run.runId} is ${run.status}, not paused: there is nothing to decide (a pause is answered once)`);
    const { waiting, over } = await this.pauses(run.runId);
    const call = waiting.find((pending) => pending.id === interruptId);
    if (call !== undefined) return call;
    const id = JSON.stringify(interruptId);
    if (over.has(interruptId)) {
      return conflict(`run ${run.runId} paused again: ${id} answers an earlier pause, which is over${waitingOn(waiting)} now: answer that pause`);
    }
    return badRequest(`run ${run.runId} never paused on interrupt id ${id}${waitingOn(waiting)}`);
  }

  /**
   * The status of a resume that refused the decision for `interruptId` before it started: the
   * run's state moved on meanwhile (another request answered the pause: `409`), or the pause does
   * not take it (an edit its tool's schema refuses: `400`).
   */
  private async refusedDecision(runId: string, interruptId: string, error: unknown): Promise<RunActionResult | undefined> {
    if (!InvalidArgumentError.isInstance(error) || error.argument !== "decisions") return undefined;
    const run = await this.store.getRun(runId);
    if (run === undefined) return notFound(runId);
    const call = await this.pausedCall(run, interruptId);
    if (!isPendingCall(call)) return call;
    return badRequest(messageOf(error).replace(/^AgentExecutor\.resume: /, ""));
  }

  /**
   * Runs `run` here until it ends; resolves with its id once it emitted its first event (it
   * started) or ended. An error before that, thrown or emitted, is answered with `refusal`'s
   * status when it gives one, else as {@link refusedStart} answers it: `409` only when the run's
   * state refused it, `500` naming `what` failed for a store failure or any other error
   * (docs/trace-viewer.md). A start stopped before it started (cancelled, or the server closes) is
   * answered too, with the status `stop` is given.
   */
  private start({ runId, what, source = runId, run, refusal }: StartOptions): Promise<RunActionResult> {
    const controller = new AbortController();
    return new Promise<RunActionResult>((resolve) => {
      let answered = false;
      const answer = (result: RunActionResult) => {
        if (answered) return;
        answered = true;
        resolve(result);
      };
      let subscription: Subscription | undefined;
      const own: OwnRun = {
        stop: (status, why) => {
          this.forget(runId, own);
          controller.abort();
          subscription?.unsubscribe();
          answer({ status, body: { error: `could not ${what}: ${why}` } });
        },
      };
      const failed = (error: unknown) => {
        this.forget(runId, own);
        if (answered) {
          this.onError(`run ${runId}: ${messageOf(error)}`);
          return;
        }
        const failure = (why: string) => {
          this.onError(why);
          return serverError(why);
        };
        void refusedStart(source, error, refusal).then(
          (result) => answer(result ?? failure(`could not ${what}: ${messageOf(error)}`)),
          (cause: unknown) => answer(failure(`could not ${what}: ${messageOf(error)} (and the store could not say why: ${messageOf(cause)})`)),
        );
      };
      try {
        subscription = run(controller.signal).subscribe({
          next: () => answer({ status: 202, body: { runId } }),
          error: failed,
          complete: () => {
            this.forget(runId, own);
            answer({ status: 202, body: { runId } });
          },
        });
      } catch (error) {
        // An executor that throws rather than erroring its observable is answered the same way.
        failed(error);
        return;
      }
      if (!subscription.closed) {
        const runs = this.running.get(runId) ?? new Set<OwnRun>();
        this.running.set(runId, runs.add(own));
      }
    });
  }

  /** Drops `own` from the runs this server runs (only it: not another start of the same run). */
  private forget(runId: string, own: OwnRun): void {
    const runs = this.running.get(runId);
    if (runs?.delete(own) && runs.size === 0) this.running.delete(runId);
  }
}

/** What {@link RunActions}' `start` runs and how it answers. */
interface StartOptions {
  /** The id of the run that starts (a fork's: the new run's). */
  runId: string;
  /** What is done, for a refusal's `error` (`resume run r1`). */
  what: string;
  /** The run a `404` names: the fork's source for a fork. @default runId */
  source?: string;
  /** Starts the run, cancelled by `signal`. */
  run: (signal: AbortSignal) => Observable<AgentStreamEvent>;
  /** The status of an error before the run started, when this action has its own. */
  refusal?: (error: unknown) => Promise<RunActionResult | undefined>;
}

/** A run this server runs: `stop` aborts it and answers its start with `status` when not yet answered. */
interface OwnRun {
  stop(status: number, why: string): void;
}

/** How the ids of the runs `handoff` and `asTool` calls start begin (docs/agent-types.md, "Pauses inside a handoff"). */
const SUB_RUN_PREFIXES = ["handoff:", "as-tool:"];

/** The tool call's idempotency key in sub-run id `runId` (`<the calling run's id>:...`); undefined for a run no call started. */
function subRunKey(runId: string): string | undefined {
  const prefix = SUB_RUN_PREFIXES.find((one) => runId.startsWith(one));
  return prefix === undefined ? undefined : runId.slice(prefix.length);
}

/** Another agent's run that a run is, or was forked from (see `RunActions`' `otherAgentsRun`). */
interface OtherAgentsRun {
  /** The run a `handoff` or `asTool` call started: the run itself, or its fork's source (maybe through forks). */
  subRunId: string;
  /** The run whose call started it, when the store holds it. */
  callerId: string | undefined;
}

/**
 * Why a resume or fork of `runId`, which is (or was forked from) another agent's run, is refused,
 * and what to do instead: act on its calling run, which runs that agent with its own executor.
 */
function otherAgentsRefusal(runId: string, { subRunId, callerId }: OtherAgentsRun, action: "resume" | "fork"): string {
  const what = subRunId === runId ? `run ${runId} is another agent's run` : `run ${runId} is a fork of another agent's run (${subRunId})`;
  const startedBy = callerId === undefined ? "started by a handoff or asTool call" : `started by a handoff or asTool call of run ${callerId}`;
  const why = `this server's executor is not that agent, so it cannot ${action} it`;
  const instead =
    callerId === undefined
      ? `${action} its calling run instead, or this run with that agent's executor in code`
      : action === "fork"
        ? `fork run ${callerId} instead (its fork calls that agent anew)`
        : subRunId === runId
          ? `resume run ${callerId} instead (resuming it resumes this one, with its own agent)`
          : `resume it with that agent's executor in code`;
  return `${what}, ${startedBy}: ${why}; ${instead}`;
}

/** The statuses of a run the store can cancel (`cancelRun`): one that has not ended. */
const CANCELLABLE = new Set(["queued", "running", "interrupted"]);

/** The page's view of a call the run waits on; `inStore`: the sub-runs this store holds. */
function pendingCall(interrupt: Interrupt, inStore: ReadonlySet<string>): TracePendingCall {
  const { subRun } = interrupt;
  return {
    id: interrupt.id,
    tool: interrupt.tool,
    toolInput: interrupt.toolInput,
    ...(interrupt.reason === undefined ? {} : { reason: interrupt.reason }),
    ...(subRun === undefined ? {} : { subRun: { tool: subRun.tool, runId: subRun.runId, interruptId: subRun.interruptId, inStore: inStore.has(subRun.runId) } }),
  };
}

/** The calls a pause waits on, for a refusal that names them (`; it waits on call-1-0 (refund)`); none: nothing. */
function waitingOn(pending: readonly Interrupt[]): string {
  return pending.length === 0 ? "" : `; it waits on ${pending.map((call) => `${call.id} (${call.tool})`).join(", ")}`;
}

/** Whether `value` is a paused call rather than a refusal. */
function isPendingCall(value: Interrupt | RunActionResult): value is Interrupt {
  return !("status" in value);
}
