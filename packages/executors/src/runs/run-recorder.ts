import type { BaseMessage } from "@langchain/core/messages";
import type { AgentStreamEvent, Decision } from "../executor/events";
import { digestMessages } from "./digest-messages";
import { randomUuid } from "./random-uuid";
import { type RecordedModelCall, encodeDecisions, encodeModelCall, encodeRunEvent } from "./run-event-codec";
import type { JsonObject, RunCheckpoint, RunStore, RunUpdate, StoredRunEvent } from "./run-store";
import { RunStoreError } from "./run-store-errors";

/** How a recorder reaches its run: the checkpoint to write, and where a store failure goes. */
export interface RecorderHooks {
  /** The run's checkpoint now (small and fixed-size). */
  checkpoint(): RunCheckpoint;
  /** A write failed: the run must fail with this error. */
  onFailure(error: unknown): void;
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
 * coalesced per model call. Every write carries the checkpoint and renews the run's lease; a
 * heartbeat renews it while nothing is written.
 *
 * @internal
 */
export class RunRecorder {
  private seq: number;
  private buffer: StoredRunEvent[] = [];
  private tail: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;
  private lastWrite = 0;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private tokenText = "";
  private tokenIteration = -1;
  private tokenAt = 0;
  private modelCalls = 0;
  private scheduled = false;

  constructor(
    readonly store: RunStore,
    readonly runId: string,
    readonly owner: string,
    readonly leaseMs: number,
    eventCount: number,
    private readonly hooks: RecorderHooks,
    modelCalls = 0,
    private readonly coalesceTokens = true,
  ) {
    this.seq = eventCount;
    this.modelCalls = modelCalls;
  }

  /** Runs `step` (creating the record) before any write; its failure fails the run. */
  first(step: () => Promise<void>): void {
    const write = this.tail.then(step).catch((error: unknown) => {
      this.failure = { error };
      this.stop();
      this.hooks.onFailure(error);
      throw error;
    });
    this.tail = write.catch(noop);
  }

  /** Starts renewing the lease while the run is quiet. */
  startHeartbeat(): void {
    const every = Math.max(10, Math.floor(this.leaseMs / 3));
    this.heartbeat = setInterval(() => {
      if (Date.now() - this.lastWrite >= every) this.flush().catch(noop);
    }, every);
    (this.heartbeat as { unref?: () => void }).unref?.();
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
    this.push(encodeRunEvent(event, index), event.at);
  }

  /** Records the decisions a resume brought (before their tool calls run). */
  recordDecisions(decisions: Record<string, Decision>): void {
    this.flushTokens();
    const at = Date.now();
    this.push(encodeDecisions({ type: "decisions", at, decisions }), at);
  }

  /** Records a finished model call (for `RecordedChatModel`): its reply and a digest of what it was sent. */
  recordModelCall(input: BaseMessage[], message: BaseMessage, startedAt: number, iteration: number): void {
    this.flushTokens();
    const at = Date.now();
    const call: RecordedModelCall = {
      type: "model_call",
      call: this.modelCalls++,
      iteration,
      at,
      durationMs: at - startedAt,
      inputCount: input.length,
      inputDigest: digestMessages(input),
      message,
    };
    this.push(encodeModelCall(call), at);
  }

  /**
   * Writes what is buffered (with `update` applied to the run), after any write in flight.
   * Resolves when it is in the store; a failure also goes to `onFailure`.
   */
  flush(update?: RunUpdate): Promise<void> {
    this.flushTokens();
    const write = this.tail.then(() => this.write(update));
    this.tail = write.catch(() => undefined);
    return write;
  }

  /**
   * Writes what is buffered once the event loop turns (`setImmediate`): everything a run does in
   * between (a zero-latency tool, the next agent call) goes into the same write, while anything
   * that waits on I/O or a timer finds the events before it already written.
   */
  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    defer(() => {
      this.scheduled = false;
      this.flush().catch(noop); // a failure has reached onFailure
    });
  }

  /** Stops the heartbeat. */
  stop(): void {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private push(data: JsonObject, at: number): void {
    this.buffer.push({ seq: ++this.seq, type: data["type"] as string, at, data });
  }

  private flushTokens(): void {
    if (this.tokenText === "") return;
    const text = this.tokenText;
    this.tokenText = "";
    this.push({ type: "token", at: this.tokenAt, iteration: this.tokenIteration, text }, this.tokenAt);
  }

  private async write(update: RunUpdate | undefined): Promise<void> {
    if (this.failure) throw this.failure.error;
    const events = this.buffer;
    this.buffer = [];
    const at = Date.now();
    this.lastWrite = at;
    const checkpoint = this.hooks.checkpoint();
    const change: RunUpdate = update ? { ...update, checkpoint } : { checkpoint };
    if (checkpoint.usage !== undefined && change.usage === undefined) change.usage = checkpoint.usage;
    try {
      await this.store.write(this.runId, { owner: this.owner, leaseMs: this.leaseMs, events, update: change, at });
    } catch (cause) {
      const error = RunStoreError.isInstance(cause)
        ? cause
        : new RunStoreError({ operation: "write", runId: this.runId, message: `Run "${this.runId}": recording failed: ${(cause as Error)?.message ?? String(cause)}`, cause });
      this.failure = { error };
      this.stop();
      this.hooks.onFailure(error);
      throw error;
    }
  }
}

type Defer = (callback: () => void) => void;
const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
/** `setImmediate` where there is one (Node, Deno, Bun), else a zero timeout (browsers). */
const defer: Defer = immediate ? (callback) => void immediate(callback) : (callback) => void setTimeout(callback, 0);

function noop(): void {}
