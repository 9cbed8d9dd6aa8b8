// The run an AG-UI request asks for, checked against the run store before it starts: what a
// request gets wrong (an unknown run to resume, one that is not paused, a run id in use) is
// answered with an HTTP status rather than a RUN_ERROR event (see docs/serving.md, "AG-UI"). @internal
import { InvalidArgumentError } from "@agentrx/core";
import { type AgentExecutor, type AgentStreamEvent, type Decision, RunBusyError, RunNotFoundError, type RunObservable, type RunStore, SteeringInboxFullError, ThreadBusyError, runDisplaySource } from "@agentrx/executors";
import { type Observable, throwError } from "rxjs";
import { type StaleDecisions, staleDecisions } from "../runs/stale-decisions";
import { watchRunCreation } from "./watch-run-creation";

/** A request refused before its run started: the HTTP status, a one-line reason, and headers to send with them. */
export interface Refusal {
  status: 400 | 404 | 409 | 429;
  message: string;
  headers?: Record<string, string>;
}

/** The `Retry-After` (seconds) of a `429`: a hint, a run takes the messages sent to it at its next turn. */
const RETRY_AFTER_SECONDS = 1;

/** A request's run, checked, to subscribe to. */
export interface AGUIRun {
  events: Observable<AgentStreamEvent>;
  /** A new recorded run: its id, and a promise that settles once its record is created (or refused). */
  record?: { runId: string; created: Promise<void> };
  /**
   * What an error of the run that comes before the response opened means for the request: a
   * refusal, or undefined for an error of the run itself (sent as `RUN_ERROR`).
   */
  refusal(error: unknown): Promise<Refusal | undefined>;
}

/**
 * A new run with the request's ids. With a store, a run id the store has already is refused
 * (`409`) before anything starts, and the run's record is watched: when another request took the
 * id meanwhile, the store refuses the record and that too is a `409`.
 */
export async function newAGUIRun(executor: AgentExecutor, inputs: Record<string, unknown>, ids: { runId: string; threadId: string }): Promise<AGUIRun | Refusal> {
  const { runId } = ids;
  const events = executor.stream(inputs, ids);
  const store = storeOf(events);
  if (store === undefined) return { events, refusal: async (error) => threadBusy(error) ?? inboxFull(error, ids.threadId) };
  if ((await store.getRun(runId)) !== undefined) return runExists(runId);
  const watched = watchRunCreation(store, runId);
  return {
    events: executor.stream(inputs, { ...ids, store: watched.store }),
    record: { runId, created: watched.created },
    refusal: async (error) => threadBusy(error) ?? inboxFull(error, ids.threadId) ?? (watched.refused && (await statusOf(store, runId)) !== undefined ? runExists(runId) : undefined),
  };
}

/**
 * The paused run `runId` resumed with `decisions`. With a store, a run it does not have (`404`)
 * or that is not paused (`409`) is refused before anything starts; the same found by the resume
 * itself (another request answered the pause meanwhile) too, and so are decisions for an earlier
 * pause of the run, which is over while it waits on a newer one (`409` naming that one, see
 * `staleDecisions`); decisions the pause does not take (an interrupt the run never had, an edit
 * its tool's schema refuses) are a `400`.
 */
export async function resumedAGUIRun(executor: AgentExecutor, runId: string, decisions: Record<string, Decision>): Promise<AGUIRun | Refusal> {
  const events = executor.resume(runId, { decisions });
  const store = storeOf(events);
  if (store !== undefined) {
    const info = await store.getRun(runId);
    if (info === undefined) return notFound(runId);
    if (info.status !== "interrupted") return notPaused(runId, info.status);
  }
  return {
    events,
    refusal: async (error) => {
      if (RunNotFoundError.isInstance(error)) return notFound(runId);
      if (RunBusyError.isInstance(error)) return notPaused(runId, "running");
      if (InvalidArgumentError.isInstance(error) && error.argument === "decisions") {
        const status = await statusOf(store, runId);
        if (status !== undefined && status !== "interrupted") return notPaused(runId, status);
        const stale = await staleOf(store, runId, decisions);
        if (stale !== undefined) return { status: 409, message: stale.message };
        return { status: 400, message: `The resume entries do not fit the paused run: ${error.message.replace(/^AgentExecutor\.resume: /, "")}` };
      }
      return undefined;
    },
  };
}

/**
 * A valid request whose run failed before it could start (`inputs`, the executor or the store
 * threw): a run that fails at once, so the client gets `RUN_ERROR` as for any error of a run
 * before its first event.
 */
export function failedAGUIRun(error: unknown): AGUIRun {
  return { events: throwError(() => error), refusal: async () => undefined };
}

/** Whether `value` is a refusal rather than a run. */
export function isRefusal(value: AGUIRun | Refusal): value is Refusal {
  return "status" in value;
}

/** The store the run records to (the executor's, or the call's), when the executor says. */
function storeOf(events: RunObservable<unknown, unknown>): RunStore | undefined {
  return runDisplaySource(events)?.store;
}

/** The run's status in the store, or undefined when it has none or cannot be read. */
async function statusOf(store: RunStore | undefined, runId: string): Promise<string | undefined> {
  try {
    return (await store?.getRun(runId))?.status;
  } catch {
    return undefined;
  }
}

/** The decisions' stale answers (see `staleDecisions`), or undefined when there are none or the store cannot say. */
async function staleOf(store: RunStore | undefined, runId: string, decisions: Record<string, Decision>): Promise<StaleDecisions | undefined> {
  try {
    return store === undefined ? undefined : await staleDecisions(store, runId, decisions);
  } catch {
    return undefined;
  }
}

function threadBusy(error: unknown): Refusal | undefined {
  if (!ThreadBusyError.isInstance(error)) return undefined;
  return { status: 409, message: `Thread "${error.threadId}" has a run going on ("${error.runId}"): wait for it to end before starting another.` };
}

/**
 * The input, sent to the thread's running run (the executor's `followUp: "interrupt"`), found its
 * inbox full: a `429`, since the same request succeeds once the run has taken its messages.
 */
function inboxFull(error: unknown, threadId: string): Refusal | undefined {
  if (!SteeringInboxFullError.isInstance(error)) return undefined;
  return {
    status: 429,
    message: `Thread "${threadId}" has a run going on ("${error.runId}") with ${error.pending} messages waiting to join it, the most it holds (maxPendingMessages ${error.limit}): send the input again once the run has taken them.`,
    headers: { "retry-after": String(RETRY_AFTER_SECONDS) },
  };
}

function runExists(runId: string): Refusal {
  return { status: 409, message: `Run "${runId}" exists already: a new run needs a new \`runId\` (a paused run is answered with \`resume\` entries and its state).` };
}

function notFound(runId: string): Refusal {
  return { status: 404, message: `No run "${runId}" is recorded: \`state.agentrx.runId\` must name the paused run to resume.` };
}

function notPaused(runId: string, status: string): Refusal {
  return { status: 409, message: `Run "${runId}" is ${status}, not paused: there is nothing to resume (a pause is answered once).` };
}
