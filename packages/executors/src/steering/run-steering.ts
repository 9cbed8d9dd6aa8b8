import type { BaseMessage } from "@langchain/core/messages";
import { InProcessRunStore } from "../runs/in-process-run-store";
import type { RunStore } from "../runs/run-store";
import { type InboxMessage, readInbox } from "./run-inbox";

/** A message taken from a run's inbox (or its in-process queue), about to join the run. @internal */
export interface PendingMessage {
  message: BaseMessage;
  /** Its position in the store's inbox; absent for a message queued in this process. */
  inboxSeq?: number;
}

/**
 * The runs going on in this process, by id: where `send` finds a run that records to no store.
 * Shared through `globalThis`, so two copies of the package (a duplicate install) see each other's runs.
 */
const registry = globalThis as { [key: symbol]: Map<string, RunSteering> | undefined };
const LIVE_RUNS = Symbol.for("agentrx.steering.liveRuns");
const liveRuns: Map<string, RunSteering> = (registry[LIVE_RUNS] ??= new Map());

/**
 * Where one run finds the messages sent to it (see docs/steering.md): with a store, the run's
 * inbox in the store (any process may append to it); without one, a queue in this process. The
 * loop asks at each turn boundary; a run without a store and with nothing queued costs nothing.
 *
 * @internal
 */
export class RunSteering {
  private queued: BaseMessage[] = [];

  private constructor(
    readonly runId: string,
    /** The store whose inbox the run reads; undefined: messages come only through this process. */
    readonly store: RunStore | undefined,
    /** The inbox position of the last message the run has taken. */
    private after: number,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Opens the steering of a run: its store's inbox (when the store keeps threads), read from after
   * position `after` (what the run's record has taken); registered as live in this process.
   */
  static open(runId: string, store: RunStore | undefined, after: number, timeoutMs: number): RunSteering {
    const inbox = store !== undefined && keepsInbox(store) ? store : undefined;
    const steering = new RunSteering(runId, inbox, after, timeoutMs);
    liveRuns.set(runId, steering);
    return steering;
  }

  /** The run with this id going on in this process, if any. */
  static live(runId: string): RunSteering | undefined {
    return liveRuns.get(runId);
  }

  /** The run ended: it takes nothing more. */
  close(): void {
    if (liveRuns.get(this.runId) === this) liveRuns.delete(this.runId);
  }

  /** Queues a message sent in this process to a run without a store. */
  push(message: BaseMessage): void {
    this.queued.push(message);
  }

  /**
   * The messages sent since the last call, oldest first; `undefined` (no promise, no store read)
   * when none can be waiting.
   */
  take(): Promise<PendingMessage[]> | undefined {
    const store = this.store;
    if (store === undefined) {
      if (this.queued.length === 0) return undefined;
      const taken = this.queued.map((message) => ({ message }));
      this.queued = [];
      return Promise.resolve(taken);
    }
    return readInbox(store, this.runId, this.after, this.timeoutMs).then((rows: InboxMessage[]) => {
      const last = rows[rows.length - 1];
      if (last !== undefined) this.after = last.inboxSeq;
      return rows;
    });
  }
}

/** Whether a store can keep a run's inbox: it keeps thread messages (the in-process store of approvals does not). */
function keepsInbox(store: RunStore): boolean {
  return !(store instanceof InProcessRunStore) && typeof store.appendThreadMessages === "function" && typeof store.readThreadMessages === "function";
}
