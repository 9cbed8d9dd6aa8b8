import { describeThrown, onNextTurn } from "@agentrx/core";
import type { BaseMessage } from "@langchain/core/messages";
import type { AgentStreamEvent, Decision } from "../executor/events";
import type { SubRunModelCall } from "../executor/sub-run";
import { digestMessages } from "./digest-messages";
import type { RecordedPromptRef } from "./prompt-recorder";
import { randomUuid } from "./random-uuid";
import type { JsonValue } from "./run-store";
import { type RecordedModelCall, encodeDecisions, encodeMessage, encodeModelCall, encodeRunEventWith } from "./run-event-codec";
import type { JsonObject, RunCheckpoint, RunStore, RunUpdate, RunWrite, RunWriteResult, StoredRunEvent } from "./run-store";
import { RunLease, unref } from "./run-lease";
import { RunLeaseLostError, RunStoreError } from "./run-store-errors";
import { withStoreTimeout } from "./with-store-timeout";

/** With `recordTokens: "each"`: how soon streamed tokens are written, in milliseconds. */
const TOKEN_WRITE_MS = 200;
/** The first wait before the end write of a failed run is tried again (see `endAfterFailure`), in ms. */
const END_RETRY_FIRST_MS = 50;
/** The longest wait between tries of that end write, in ms. */
const END_RETRY_MAX_MS = 2000;

/**
 * How a recorder reaches its run: the checkpoint to write, where a store failure goes, and how
 * many agent calls the run's record already counts.
 */
export interface RecorderHooks {
  /**
   * The run's checkpoint now (small and fixed-size), with `iteration`: the agent calls the record
   * counts as made, this write's entries included (see {@link RunRecorder}), which is what a
   * resume will count, rather than the live run's count (which includes a call under way).
   */
  checkpoint(iteration: number): RunCheckpoint;
  /**
   * The agent calls the run's record counts when the recorder starts: a resumed run's or a fork's
   * restored `iteration`. Absent: 0 (a new run).
   */
  readonly iteration?: number;
  /** A write failed: the run must fail with this error. */
  onFailure(error: unknown): void;
  /** A write was applied; the store reported its run's inbox (see `RunWriteResult`). */
  onWritten?(result: RunWriteResult): void;
}

let processOwner: string | undefined;

/**
 * A lease owner id for one segment of a run: `pid:<pid>:<process random>:<segment random>`. Each
 * segment has its own, so one process cannot resume a run that it is still running.
 */
export function ownerId(): string {
  const pid = (globalThis as { process?: { pid?: number } }).process?.pid;
  processOwner ??= `${pid === undefined ? "runtime" : `pid:${pid}`}:${randomUuid().slice(0, 8)}`;
  return `${processOwner}:${randomUuid().slice(0, 8)}`;
}

/**
 * Writes one run's events to a store: buffered, in order, one write in flight at a time (events
 * that arrive meanwhile go into the next write, so a busy run writes in batches). Token events are
 * coalesced per model call. Every write carries the checkpoint, whose `iteration` counts the agent
 * calls as a resume folds the record (see {@link callsShown}): a call cut off before its outcome
 * was recorded is not counted. Every write also renews the run's lease, which a
 * `RunLease` keeps (run-lease.ts): a heartbeat renews it while nothing else is written, and a
 * watchdog fails the run with `RunLeaseLostError` (aborting its tool calls) when the lease is about
 * to run out with no newer write acknowledged, before another process may take the run over (see
 * docs/runs.md, Fencing). The recorder tells it of each write, and renews or fails for it.
 *
 * @internal
 */
export class RunRecorder {
  private seq: number;
  private buffer: StoredRunEvent[] = [];
  private tail: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;
  /** Whether the run's end was written after a failure (see {@link endAfterFailure}). */
  private ended = false;
  /** The run's lease: its heartbeat and watchdog, told of every write (see run-lease.ts). */
  private readonly lease: RunLease;
  /** Writes queued or in flight (`first`, `flush`, `closeInbox`): while there is one, no heartbeat is sent and `barrier` waits for them. */
  private pending = 0;
  private tokenText = "";
  private tokenIteration = -1;
  private tokenAt = 0;
  private modelCalls = 0;
  /** The agent calls the entries recorded so far count as made (see {@link callsShown}). */
  private iterations: number;
  private scheduled = false;
  /** With `recordTokens: "each"`: the timer that writes the tokens streamed since the last write. */
  private tokenTimer: ReturnType<typeof setTimeout> | undefined;
  /** The run's fencing token, once known (the store's `createRun` or `claimRun` gives it). */
  epoch: number | undefined;
  /**
   * The last model reply recorded, in its stored form, with its own fields' values as they were
   * then (see {@link encodeMessage}); until the next write.
   */
  private reply: { message: BaseMessage; stored: JsonValue; fields: unknown[] } | undefined;

  constructor(
    readonly store: RunStore,
    readonly runId: string,
    readonly owner: string,
    readonly leaseMs: number,
    eventCount: number,
    private readonly hooks: RecorderHooks,
    modelCalls = 0,
    private readonly coalesceTokens = true,
    /** How long one store call may take before the run fails with a timeout. */
    readonly storeTimeoutMs = 10_000,
    /** When the lease this recorder starts with was taken (epoch ms). */
    leaseTakenAt = Date.now(),
  ) {
    this.seq = eventCount;
    this.modelCalls = modelCalls;
    this.iterations = hooks.iteration ?? 0;
    this.lease = new RunLease(
      { runId, owner, leaseMs, storeTimeoutMs, takenAt: leaseTakenAt },
      {
        pending: () => this.pending,
        renew: () => {
          this.flush().catch(noop); // a failure has reached onFailure
        },
        fail: (error) => this.fail(error),
        epoch: () => this.epoch,
      },
    );
  }

  /** Runs `step` (creating the record) before any write; its failure fails the run. */
  first(step: () => Promise<void>): void {
    const sentAt = Date.now();
    this.lease.creating(sentAt);
    this.enqueue(() =>
      withStoreTimeout(step(), this.storeTimeoutMs, "createRun", this.runId).then(
        () => {
          this.lease.settled();
          this.lease.acknowledged(sentAt);
        },
        (error: unknown) => {
          this.lease.settled();
          this.fail(error);
          throw error;
        },
      ),
    ).catch(noop); // a failure has reached onFailure
  }

  /**
   * Runs `send` (one store write) once every write before it has settled, counting it as pending
   * until it settles; a heartbeat that came due meanwhile runs once none is (see `RunLease.idle`).
   */
  private enqueue<T>(send: () => Promise<T>): Promise<T> {
    this.pending++;
    const write = this.tail.then(send);
    const settled = (): void => {
      if (--this.pending > 0) return;
      this.lease.idle();
    };
    write.then(settled, settled);
    this.tail = write.then(noop, noop);
    return write;
  }

  /**
   * Resolves once everything recorded so far is acknowledged by the store (write-ahead: what the
   * run does next may rely on it being durable); rejects with the store's failure. Nothing
   * buffered and nothing in flight: `undefined` (nothing to wait for, not even a microtask).
   */
  barrier(): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.buffer.length > 0 || this.tokenText !== "") return this.flush();
    if (this.pending === 0) return undefined;
    return this.tail.then(() => {
      if (this.failure) throw this.failure.error;
    });
  }

  /**
   * Throws `RunLeaseLostError` when this process cannot be sure it will hold the run's lease a while
   * longer (no write acknowledged for its whole lease but the watchdog's margin): called before
   * each tool starts, so a process that was cut off from its store never acts on a run that another
   * process may take over. The first tool to start arms the lease watchdog (see {@link startHeartbeat}).
   */
  checkLease(): void {
    if (this.failure) throw this.failure.error;
    const error = this.lease.check();
    if (error === undefined) return;
    this.failure = { error };
    this.stop();
    throw error;
  }

  /** Records an intent (a record-only event such as an early tool call) and resolves once it is durable. */
  recordIntent(data: JsonObject): Promise<void> {
    this.flushTokens();
    const at = Date.now();
    this.push({ ...data, at }, at);
    return this.flush();
  }

  /**
   * Starts keeping the lease: the heartbeat renews it within `leaseMs / 3` of the last write while
   * the run is quiet. Once a tool has started ({@link checkLease}), a watchdog also fails the run
   * with `RunLeaseLostError` through `onFailure` (which aborts its tool calls) when the lease is
   * within `min(leaseMs / 10, 1000)` ms of running out with no newer write acknowledged: a process
   * cut off from its store stops its tools before another process may take its run over (before a
   * tool starts, the next write's fencing and `checkLease` suffice). After a blocked event loop it
   * waits for a write in flight until the lease's end instead (see `RunLease`). Both timers are
   * unref'd; {@link stop} clears them.
   */
  startHeartbeat(): void {
    if (this.failure) return;
    this.lease.start();
  }

  /** Records an event; `index` is the action's position in its turn (`action` and tool `step` events). */
  record(event: AgentStreamEvent, index?: number): void {
    if (event.type === "token" && this.coalesceTokens) {
      if (event.iteration !== this.tokenIteration) this.flushTokens();
      if (this.tokenText === "") this.tokenAt = event.at;
      this.tokenIteration = event.iteration;
      this.tokenText += event.text;
      return;
    }
    this.flushTokens();
    this.push(encodeRunEventWith(event, index, this.encodeMessage), event.at);
    if (event.type === "token") this.scheduleTokens();
  }

  /**
   * With `recordTokens: "each"`: writes the tokens streamed so far within {@link TOKEN_WRITE_MS},
   * so a reader following the record (the `ui`'s live page) sees a model's text while it streams,
   * in a few writes a second at most.
   */
  private scheduleTokens(): void {
    if (this.tokenTimer !== undefined || !this.lease.started) return;
    this.tokenTimer = setTimeout(() => {
      this.tokenTimer = undefined;
      if (this.buffer.length > 0 && this.lease.started) this.flush().catch(noop); // a failure has reached onFailure
    }, TOKEN_WRITE_MS);
    unref(this.tokenTimer);
  }

  /** Records the decisions a resume brought (before their tool calls run). */
  recordDecisions(decisions: Record<string, Decision>): void {
    this.flushTokens();
    const at = Date.now();
    this.push(encodeDecisions({ type: "decisions", at, decisions }), at);
  }

  /** Records a finished model call (for `RecordedChatModel`): its reply and a digest of what it was sent. */
  recordModelCall(input: BaseMessage[], message: BaseMessage, startedAt: number, iteration: number, request?: { prompt: RecordedPromptRef; blobs: JsonObject | undefined }): void {
    this.flushTokens();
    const at = Date.now();
    const call = modelCallEntry(this.modelCalls++, iteration, at, input, message, startedAt);
    if (request !== undefined) {
      call.prompt = request.prompt;
      if (request.blobs !== undefined) call.blobs = request.blobs;
    }
    const stored = encodeMessage(message);
    this.reply = { message, stored, fields: Object.values(message) };
    this.push(encodeModelCall(call, stored), at);
  }

  /**
   * A message's stored form for an event: the model reply's, taken from its `model_call` entry when
   * it is that same message with the same values in its own fields (its turn's actions carry it in
   * their message log), so a step serialises its reply once (`toDict` costs about as much as the
   * rest of recording the step); else serialised anew.
   */
  private readonly encodeMessage = (message: BaseMessage): JsonValue => {
    const reply = this.reply;
    if (reply !== undefined && reply.message === message && sameValues(Object.values(message), reply.fields)) return reply.stored;
    return encodeMessage(message);
  };

  /**
   * Records a sub-run's finished model call, marked with its `subRun` path and `subRunCallIds`: it
   * is not one of this run's calls (it takes none of this run's call numbers; `RecordedChatModel`
   * and a resume skip it).
   */
  recordSubRunModelCall(call: SubRunModelCall): void {
    this.flushTokens();
    const at = Date.now();
    const data = encodeModelCall(modelCallEntry(call.call, call.iteration, at, call.input, call.message, call.startedAt));
    data["subRun"] = call.subRun;
    data["subRunCallIds"] = call.subRunCallIds;
    this.push(data, at);
  }


  /**
   * Writes what is buffered (with `update` applied to the run), after any write in flight.
   * Resolves when it is in the store; a failure also goes to `onFailure`. After a failure it
   * rejects with it, having written only the run's end when `update` releases the lease (see
   * {@link endAfterFailure}).
   */
  flush(update?: RunUpdate): Promise<void> {
    // After a failure nothing is written (but the run's end, see endAfterFailure): reject at once
    // rather than behind a write that hangs.
    if (this.failure) return update?.release === true ? this.endAfterFailure(update, this.failure.error) : Promise.reject(this.failure.error);
    this.flushTokens();
    return this.enqueue(() => this.write(update));
  }

  /**
   * After a write the store failed (it answered with an error: not a lost lease, not a timeout),
   * writes the run's end once (`update`'s status and error, the lease released) with no events and
   * no checkpoint, so the record stays as its last acknowledged write left it: a store that answers
   * again then shows the run failed, free to resume at once rather than `running` until its lease
   * runs out. Fenced by owner and epoch as every write; rejects with `error` whatever it does.
   *
   * A store that fails the end write too (still unreachable) is tried again in the background,
   * waiting 50 ms, then twice as long each time (at most 2 s), until the lease this process held
   * would have run out anyway.
   *
   * After this process judged its own lease lost (the watchdog's `RunLeaseLostError`, `op: "lease"`,
   * or `"toolStart"`; not `"write"`, where the store said another process holds the run), it makes
   * the same write once, best effort, after the write in flight: it rejects at once, not waiting for
   * it, and the write's own failure is swallowed (the epoch makes it safe: a store whose run another
   * process took over refuses it).
   */
  private endAfterFailure(update: RunUpdate, error: unknown): Promise<void> {
    const judged = RunLeaseLostError.isInstance(error) && (error.operation === "lease" || error.operation === "toolStart");
    if (this.ended || (!judged && (RunLeaseLostError.isInstance(error) || !RunStoreError.isInstance(error) || error.reason === "timeout"))) return Promise.reject(error);
    this.ended = true;
    const end: RunUpdate = { release: true };
    if (update.status !== undefined) end.status = update.status;
    if (update.error !== undefined) end.error = update.error;
    const attempt = (): Promise<unknown> => {
      const write: RunWrite = { owner: this.owner, leaseMs: this.leaseMs, events: [], update: end, at: Date.now() };
      if (this.epoch !== undefined) write.epoch = this.epoch;
      return withStoreTimeout(this.store.write(this.runId, write), this.storeTimeoutMs, "write", this.runId);
    };
    const written = this.tail.then(attempt);
    // A store that does not answer yet is tried again in the background (the run's error does not
    // wait for it), until the lease would have run out anyway.
    written.catch((failure: unknown) => this.endAgain(attempt, failure, END_RETRY_FIRST_MS));
    if (judged) return Promise.reject(error); // the run's error does not wait for the first try either
    return written.then(
      () => Promise.reject(error),
      () => Promise.reject(error),
    );
  }

  /**
   * Tries the run's end write again after `wait` ms (doubling, at most {@link END_RETRY_MAX_MS}),
   * while the lease this process held has not run out (after that, another process may take the
   * run, and its lease no longer holds it) and the store has not said another process holds it.
   */
  private endAgain(attempt: () => Promise<unknown>, failure: unknown, wait: number): void {
    if (RunLeaseLostError.isInstance(failure) || Date.now() + wait >= this.lease.until) return;
    unref(
      setTimeout(() => {
        attempt().catch((again: unknown) => this.endAgain(attempt, again, Math.min(wait * 2, END_RETRY_MAX_MS)));
      }, wait),
    );
  }

  /**
   * Writes what is buffered with `closeInbox: after` (see `RunUpdate.closeInbox`); resolves with
   * what the store reported (`undefined` from a store that reports nothing).
   */
  closeInbox(after: number): Promise<RunWriteResult | undefined> {
    this.flushTokens();
    let reported: RunWriteResult | undefined;
    return this.enqueue(() => this.write({ closeInbox: after }, (result) => (reported = result))).then(() => reported);
  }

  /**
   * Writes what is buffered once the event loop turns (`setImmediate`): everything a run does in
   * between (a zero-latency tool, the next agent call) goes into the same write, while anything
   * that waits on I/O or a timer finds the events before it already written. When a barrier has
   * written them meanwhile, nothing is written (an empty write would cost the store a commit, and
   * hold up the next write behind it).
   */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    onNextTurn(() => {
      this.scheduled = false;
      if (this.buffer.length === 0 && this.tokenText === "") return;
      this.flush().catch(noop); // a failure has reached onFailure
    });
  }

  /** Stops the heartbeat and the lease watchdog (and the pending write of streamed tokens). */
  stop(): void {
    this.lease.stop();
    if (this.tokenTimer !== undefined) clearTimeout(this.tokenTimer);
    this.tokenTimer = undefined;
  }

  /**
   * Fails the run with `error` (a write's failure, or the watchdog's `RunLeaseLostError`): nothing
   * more is written, and `onFailure` fails the run, aborting everything in flight. Only the first
   * failure counts: a write that hung when the watchdog fired changes nothing when it fails later.
   */
  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = { error };
    this.stop();
    this.hooks.onFailure(error);
  }

  private push(data: JsonObject, at: number): void {
    this.buffer.push({ seq: ++this.seq, type: data["type"] as string, at, data });
    const calls = callsShown(data);
    if (calls > this.iterations) this.iterations = calls;
  }

  private flushTokens(): void {
    if (this.tokenText === "") return;
    const text = this.tokenText;
    this.tokenText = "";
    this.push({ type: "token", at: this.tokenAt, iteration: this.tokenIteration, text }, this.tokenAt);
  }

  private async write(update: RunUpdate | undefined, onResult?: (result: RunWriteResult) => void): Promise<void> {
    if (this.failure) throw this.failure.error;
    const events = this.buffer;
    this.buffer = [];
    // The reply's stored form goes with this write: a run waiting on its next model call keeps none.
    this.reply = undefined;
    const at = Date.now();
    this.lease.writing(at);
    const checkpoint = this.hooks.checkpoint(this.iterations);
    const change: RunUpdate = update ? { ...update, checkpoint } : { checkpoint };
    if (checkpoint.usage !== undefined && change.usage === undefined) change.usage = checkpoint.usage;
    const write: RunWrite = { owner: this.owner, leaseMs: this.leaseMs, events, update: change, at };
    if (this.epoch !== undefined) write.epoch = this.epoch;
    this.lease.sent(at);
    try {
      const result = await withStoreTimeout(this.store.write(this.runId, write), this.storeTimeoutMs, "write", this.runId);
      this.lease.acknowledged(at);
      if (typeof result === "object" && result !== null && typeof result.inboxSeq === "number") {
        onResult?.(result);
        this.hooks.onWritten?.(result);
      }
    } catch (cause) {
      const error = RunStoreError.isInstance(cause)
        ? cause
        : new RunStoreError({ operation: "write", runId: this.runId, message: `Run "${this.runId}": recording failed: ${describeThrown(cause, "the store")}`, cause });
      this.fail(error);
      throw this.failure!.error;
    } finally {
      this.lease.settled();
    }
  }
}

function noop(): void {}

/**
 * How many agent calls an entry of the run's own record shows were made, as a resume counts them
 * when it folds the record (`applyRunEvent`, docs/runs.md, Resume): an agent call counts once its
 * outcome is recorded. Its turn's actions, a handled parsing error (a step without an index), an
 * early tool call (`tool_intent`) and its answer (the output's `iterations`) count it; a message
 * counts the calls made before it joined; its streamed tokens and its model call count only the
 * calls before it (a call cut off while its model streamed is made again, as the same iteration).
 * A sub-run's entries count none of this run's calls.
 */
function callsShown(data: JsonObject): number {
  if (data["subRun"] !== undefined) return 0;
  const iteration = data["iteration"];
  switch (data["type"]) {
    case "action":
    case "tool_intent":
      return typeof iteration === "number" ? iteration + 1 : 0;
    case "step":
      return typeof iteration === "number" && data["index"] === undefined ? iteration + 1 : 0;
    case "token":
    case "model_call":
    case "message":
      return typeof iteration === "number" ? iteration : 0;
    case "output":
      return typeof data["iterations"] === "number" ? data["iterations"] : 0;
    default:
      return 0;
  }
}

function sameValues(now: readonly unknown[], then: readonly unknown[]): boolean {
  if (now.length !== then.length) return false;
  for (let i = 0; i < now.length; i++) if (now[i] !== then[i]) return false;
  return true;
}


/** A finished model call as the record keeps it: its reply and a digest of what it was sent. */
function modelCallEntry(call: number, iteration: number, at: number, input: BaseMessage[], message: BaseMessage, startedAt: number): RecordedModelCall {
  return { type: "model_call", call, iteration, at, durationMs: at - startedAt, inputCount: input.length, inputDigest: digestMessages(input), message };
}
