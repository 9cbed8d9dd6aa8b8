import { InvalidArgumentError } from "@agentrx/core";
import type { Subscriber } from "rxjs";
import type { AgentStreamEvent } from "../executor/events";
import { RECORD_ONLY_EVENT_TYPES, RunEventDecoder } from "../runs/run-event-codec";
import type { RunInfo, RunStore } from "../runs/run-store";
import { RunStoreError } from "../runs/run-store-errors";
import { withStoreTimeout } from "../runs/with-store-timeout";
import { RunFinishedError } from "./run-finished-error";
import { type SendMessageResult, sendRunMessage } from "./send-run-message";
import { ThreadBusyError } from "./thread-busy-error";

/**
 * What a new input on a thread whose run is still going on does: `"queue"` waits for that run to
 * end and then starts (its history then includes that run); `"interrupt"` sends the input to the
 * running run as a message (see `executor.send`) and follows that run to its end (a run already
 * writing its answer cannot take it: the input then waits for it to end, as with `"queue"`);
 * `"reject"` fails with `ThreadBusyError`.
 */
export type FollowUp = "queue" | "interrupt" | "reject";

/** The `followUp` values. @internal */
export const FOLLOW_UPS: readonly FollowUp[] = ["queue", "interrupt", "reject"];

/** How often a waiting or following input looks at the store, in milliseconds. @internal */
export const FOLLOW_UP_POLL_MS = 50;

/** What {@link followUpOnThread} needs of the new run. @internal */
export interface FollowUpRequest {
  policy: FollowUp;
  store: RunStore;
  threadId: string;
  runId: string;
  inputs: Record<string, unknown>;
  storeTimeoutMs: number;
  subscriber: Subscriber<AgentStreamEvent>;
  /** Starts the new run; returns its teardown. */
  start(): () => void;
}

/**
 * Before a run with a thread starts: when another run of the thread is going on, does what the
 * executor's `followUp` says (see {@link FollowUp}). Returns the teardown of whatever it started.
 *
 * @internal
 */
export function followUpOnThread(request: FollowUpRequest): () => void {
  const { policy, store, threadId, subscriber } = request;
  let closed = false;
  let teardown: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Resolves after the poll interval; never, once the subscriber left (its timer is cleared). */
  const pause = (): Promise<void> => new Promise((resolve) => (timer = setTimeout(resolve, FOLLOW_UP_POLL_MS)));
  /** Waits for the thread's run (and any that started meanwhile) to end; then starts. */
  const queue = async (): Promise<void> => {
    let busy = await runningRunOf(request);
    while (busy !== undefined) {
      if (closed) return;
      await pause();
      if (closed) return;
      busy = await runningRunOf(request);
    }
    if (!closed) teardown = request.start();
  };
  const go = async (): Promise<void> => {
    const busy = await runningRunOf(request);
    if (closed) return;
    if (busy === undefined) {
      teardown = request.start();
      return;
    }
    if (policy === "reject") throw new ThreadBusyError({ threadId, runId: busy.runId });
    if (policy === "queue") return queue();
    let sent: SendMessageResult;
    try {
      sent = await sendRunMessage(busy.runId, inputText(request.inputs), { store, storeTimeoutMs: request.storeTimeoutMs, operation: 'followUp: "interrupt"' });
    } catch (error) {
      // The run was ending (it had closed its inbox) as the input came: the input cannot join it,
      // and the thread is no longer busy once it has ended. It starts a run of its own then.
      if (!RunFinishedError.isInstance(error)) throw error;
      return queue();
    }
    if (closed) return;
    await follow(request, busy.runId, busy.eventCount, sent.inboxSeq, () => closed, pause);
  };
  go().then(
    () => undefined,
    (error: unknown) => {
      if (!closed) subscriber.error(error);
    },
  );
  return () => {
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    teardown?.();
  };
}

/** The run of the thread that is going on (status `running` under a lease that has not expired), if any. */
async function runningRunOf({ store, threadId, runId, storeTimeoutMs }: FollowUpRequest): Promise<RunInfo | undefined> {
  const runs = await withStoreTimeout(store.listRuns({ threadId, status: "running" }), storeTimeoutMs, "listRuns", runId);
  const now = Date.now();
  return runs.find((run) => run.runId !== runId && (run.leaseExpiresAt === undefined || run.leaseExpiresAt > now));
}

/**
 * Emits the events the running run records after `after` (its message event included) until its
 * output; the output's run is that run.
 */
async function follow(request: FollowUpRequest, runId: string, after: number, inboxSeq: number | undefined, closed: () => boolean, pause: () => Promise<void>): Promise<void> {
  const { store, subscriber, storeTimeoutMs } = request;
  const decoder = new RunEventDecoder(runId);
  let read = 0;
  for (;;) {
    const events = await withStoreTimeout(store.readEvents(runId, { after: read }), storeTimeoutMs, "readEvents", runId);
    if (closed()) return;
    for (const stored of events) {
      read = stored.seq;
      const event = decoder.decode(stored);
      if (stored.seq <= after || RECORD_ONLY_EVENT_TYPES.has(stored.type)) continue;
      subscriber.next(event as AgentStreamEvent);
      if (event.type === "output" && (event as { subRun?: unknown }).subRun === undefined) {
        subscriber.complete();
        return;
      }
    }
    if (events.length === 0) {
      const info = await withStoreTimeout(store.getRun(runId), storeTimeoutMs, "getRun", runId);
      const ended = info === undefined || info.eventCount > read ? undefined : howItEnded(info);
      if (ended !== undefined) {
        throw new RunStoreError({
          operation: "followUp",
          runId,
          message: `followUp: "interrupt": the input was sent to run "${runId}"${inboxSeq === undefined ? "" : ` (inbox position ${inboxSeq})`}, which then ${ended} before it answered; resume it to have the input taken.`,
        });
      }
      await pause();
      if (closed()) return;
    }
  }
}

/**
 * How a followed run that recorded nothing more ended without answering: it failed, was
 * cancelled, or its process stopped (status `running` under an expired lease: the rule by which
 * `"queue"` no longer waits for it either). `undefined` while it may still go on.
 */
function howItEnded(info: RunInfo): string | undefined {
  if (info.status === "failed") return `failed (${info.error ?? "no reason recorded"})`;
  if (info.status === "cancelled") return "was cancelled";
  if (info.status === "running" && info.leaseExpiresAt !== undefined && info.leaseExpiresAt <= Date.now()) {
    return `stopped acting (its process let its lease expire at ${new Date(info.leaseExpiresAt).toISOString()})`;
  }
  return undefined;
}

/** The text of a new input sent to a running run: `inputs.input`, else the one string input. */
function inputText(inputs: Record<string, unknown>): string {
  const input = inputs["input"];
  if (typeof input === "string" && input !== "") return input;
  const strings = Object.values(inputs).filter((value): value is string => typeof value === "string" && value !== "");
  if (strings.length === 1) return strings[0] as string;
  throw new InvalidArgumentError({
    argument: "inputs",
    value: inputs,
    message: 'followUp: "interrupt" sends the new input to the running run as a message: it needs `inputs.input` (a non-empty string), or exactly one string input.',
  });
}
