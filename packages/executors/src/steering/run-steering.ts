import type { BaseMessage } from "@langchain/core/messages";
import type { RunStore, RunWriteResult } from "../runs/run-store";
import { readInbox } from "./run-inbox";
import { RunFinishedError } from "./run-finished-error";

/** A message taken from a run's inbox (or its in-process queue), about to join the run. @internal */
export interface PendingMessage {
  message: BaseMessage;
  /** Its position in the store's inbox; absent for a message queued in this process. */
  inboxSeq?: number;
}

/** Writes what the run buffered with `closeInbox: after`; resolves with what the store reported. @internal */
export type CloseInbox = (after: number) => Promise<RunWriteResult | undefined>;

/**
 * The runs going on in this process, by id: where `send` finds a run that records to no store.
 * Shared through `globalThis`, so two copies of the package (a duplicate install) see each other's runs.
 */
const registry = globalThis as { [key: symbol]: Map<string, RunSteering> | undefined };
const LIVE_RUNS = Symbol.for("agentrx.steering.liveRuns");
const liveRuns: Map<string, RunSteering> = (registry[LIVE_RUNS] ??= new Map());

/**
 * The ids of the runs without a store that ended in this process, the latest {@link ENDED_KEPT}:
 * a message sent to one is refused with `RunFinishedError`, as a store refuses one to an ended run.
 */
const ENDED_RUNS = Symbol.for("agentrx.steering.endedRuns");
const endedRuns = ((registry as unknown as { [key: symbol]: Set<string> | undefined })[ENDED_RUNS] ??= new Set<string>());
const ENDED_KEPT = 1000;

/**
 * Where one run finds the messages sent to it (see docs/steering.md): with a store, the run's
 * inbox in the store (any process may append to it); without one, a queue in this process. The
 * loop asks at each turn boundary. Every write of the run reports the inbox's last position, so a
 * boundary after a write reads the inbox only when something was sent; before the run ends it
 * closes the inbox (`closeInbox`), atomically with the check that nothing waits in it.
 *
 * @internal
 */
export class RunSteering {
  private queued: BaseMessage[] = [];
  /** The inbox's last position as the latest write reported it; undefined: no write since the last read. */
  private reported: number | undefined;
  /** In-process only: the run is ending and takes no more messages. */
  private closed = false;

  private constructor(
    readonly runId: string,
    /** The store whose inbox the run reads; undefined: messages come only through this process. */
    readonly store: RunStore | undefined,
    /** The inbox position of the last message the run has taken. */
    private after: number,
    private readonly timeoutMs: number,
    private readonly closer: CloseInbox | undefined,
  ) {}

  /**
   * Opens the steering of a run: its store's inbox (when the store keeps threads), read from after
   * position `after` (what the run's record has taken); registered as live in this process.
   * `closer` closes the inbox through the run's recorder.
   */
  static open(runId: string, store: RunStore | undefined, after: number, timeoutMs: number, closer?: CloseInbox): RunSteering {
    const inbox = store !== undefined && keepsInbox(store) ? store : undefined;
    const steering = new RunSteering(runId, inbox, after, timeoutMs, inbox === undefined ? undefined : closer);
    liveRuns.set(runId, steering);
    return steering;
  }

  /** The run with this id going on in this process, if any. */
  static live(runId: string): RunSteering | undefined {
    return liveRuns.get(runId);
  }

  /** Whether a run without a store with this id ended in this process (recently: the latest 1,000 are kept). */
  static ended(runId: string): boolean {
    return endedRuns.has(runId);
  }

  /** The run ended: it takes nothing more. */
  close(): void {
    this.closed = true;
    if (liveRuns.get(this.runId) === this) liveRuns.delete(this.runId);
    if (this.store === undefined) {
      endedRuns.delete(this.runId);
      endedRuns.add(this.runId);
      if (endedRuns.size > ENDED_KEPT) endedRuns.delete(endedRuns.values().next().value as string);
    }
  }

  /** Queues a message sent in this process to a run without a store; `RunFinishedError` once the run is ending. */
  push(message: BaseMessage): void {
    if (this.closed) throw new RunFinishedError({ runId: this.runId });
    this.queued.push(message);
  }

  /** In-process only (no store): how many messages wait to join the run. */
  get queuedCount(): number {
    return this.queued.length;
  }

  /** The inbox position of the last message the run has taken (0: none). */
  get takenUpTo(): number {
    return this.after;
  }

  /** A write of the run was applied; `inboxSeq` is the inbox's last position then. */
  noteInbox(inboxSeq: number): void {
    this.reported = inboxSeq;
  }

  /**
   * The messages sent and not yet taken, oldest first; `undefined` (no promise, no store read)
   * when none can be waiting: nothing queued, or the run's latest write found nothing new in the
   * inbox. A message sent after that write joins at a later boundary, or when the run closes its
   * inbox before it ends. They stay waiting until {@link taken} says they joined the run: a run
   * halted while it read them takes them again (as it ends, or when it is resumed).
   */
  take(): Promise<PendingMessage[]> | undefined {
    const store = this.store;
    if (store === undefined) {
      if (this.queued.length === 0) return undefined;
      return Promise.resolve(this.queued.map((message) => ({ message })));
    }
    const reported = this.reported;
    this.reported = undefined;
    if (reported !== undefined && reported <= this.after) return undefined;
    return readInbox(store, this.runId, this.after, this.timeoutMs);
  }

  /** `messages` (what {@link take} gave, oldest first) joined the run: they are not taken again. */
  taken(messages: readonly PendingMessage[]): void {
    if (this.store === undefined) {
      this.queued.splice(0, messages.length);
      return;
    }
    for (const { inboxSeq } of messages) if (inboxSeq !== undefined && inboxSeq > this.after) this.after = inboxSeq;
  }

  /**
   * Before the run ends with an answer: closes the inbox when nothing waits in it (true; a send
   * from then on is refused with `RunFinishedError`), else leaves it open (false: `take` then
   * returns what waits). A store that cannot close an inbox gets one last look instead.
   */
  async closeInbox(): Promise<boolean> {
    const store = this.store;
    if (store === undefined) {
      if (this.queued.length > 0) return false;
      this.closed = true;
      return true;
    }
    const result = this.closer === undefined ? undefined : await this.closer(this.after);
    if (result !== undefined && typeof result.inboxClosed === "boolean") {
      this.reported = result.inboxSeq;
      return result.inboxClosed;
    }
    const waiting = await readInbox(store, this.runId, this.after, this.timeoutMs);
    this.reported = undefined;
    return waiting.length === 0;
  }
}

/**
 * Whether a store can keep a run's inbox: it keeps thread messages. The executor's in-process
 * store of approvals keeps its runs' inboxes (and no other thread), so a paused run takes what was
 * sent to it when it is resumed.
 */
function keepsInbox(store: RunStore): boolean {
  return typeof store.appendThreadMessages === "function" && typeof store.readThreadMessages === "function";
}
