import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { RunFinishedError } from "../steering/run-finished-error";
import { runInboxId } from "../steering/run-inbox";
import type {
  ClaimRun,
  ListRunsOptions,
  NewRun,
  NewThreadMessage,
  ReadThreadMessagesOptions,
  RunInfo,
  RunMessageAppended,
  RunStore,
  RunWrite,
  RunWriteResult,
  StoredRunEvent,
  StoredThreadMessage,
} from "./run-store";
import { RunBusyError, RunLeaseLostError, RunNotFoundError, RunStoreError } from "./run-store-errors";

/** The `listRuns` options this store applies. */
const LISTED_BY = new Set(["threadId", "status", "limit"]);

/** The statuses of a run that ended: the runs the store keeps at most `maxEndedRuns` of. */
const ENDED = new Set<string>(["finished", "failed", "cancelled"]);

/** How many ended runs an {@link InProcessRunStore} keeps by default. */
export const DEFAULT_MAX_ENDED_RUNS = 1000;

/** Options of {@link InProcessRunStore}. @internal */
export interface InProcessRunStoreOptions {
  /**
   * How many ended runs (`finished`, `failed` or `cancelled`) the store keeps: once one more ends,
   * the one that ended longest ago is dropped. Paused, running and queued runs are never dropped
   * (a paused run waits for a decision). A positive integer, or `Infinity` to keep them all.
   * @default 1000
   */
  maxEndedRuns?: number;
}

/** Where a run's inbox thread id starts: the run id follows (see `runInboxId`). */
const INBOX_PREFIX = runInboxId("");

interface Record {
  info: RunInfo;
  events: StoredRunEvent[];
  /** The messages sent to the run (its inbox, see docs/steering.md) that it may still take. */
  inbox: StoredThreadMessage[];
  /** The inbox's last position (0: nothing sent); kept when a finished run's messages are dropped. */
  inboxSeq: number;
  /** The run closed its inbox to end (`RunUpdate.closeInbox`); its next claim opens it again. */
  inboxClosed: boolean;
}

/**
 * The store an executor keeps its runs in when its tools need approval and it was given no store:
 * in this process only, so a script or a notebook can pause a run and resume it. It holds what
 * `resume` needs (runs and their events, with the same lease rules as every store) and each run's
 * inbox (the messages `send` gives a paused or running run, see docs/steering.md), which lives
 * and goes with its run (a finished run's is dropped: its record has what it took); nothing
 * more: give the executor a `MemoryRunStore`, `SqliteRunStore` or `PostgresRunStore` (from
 * `@agentrx/runs`) to list runs, keep threads, or resume in another process. So that a process
 * that runs many is not filled by them, it keeps the last `maxEndedRuns` (1,000) ended runs only,
 * and every paused or running one (see docs/approval.md).
 *
 * @internal
 */
export class InProcessRunStore implements RunStore {
  private readonly runs = new Map<string, Record>();
  /** The ids of the ended runs, the one that ended longest ago first. */
  private readonly ended = new Set<string>();
  private readonly maxEndedRuns: number;

  constructor(options: InProcessRunStoreOptions = {}) {
    checkOptionKeys("InProcessRunStore", options, ["maxEndedRuns"] satisfies (keyof InProcessRunStoreOptions)[]);
    const { maxEndedRuns = DEFAULT_MAX_ENDED_RUNS } = options;
    if (maxEndedRuns !== Infinity && (!Number.isSafeInteger(maxEndedRuns) || maxEndedRuns < 1)) {
      throw new InvalidArgumentError({
        argument: "maxEndedRuns",
        value: maxEndedRuns,
        message: `InProcessRunStore: maxEndedRuns must be a positive integer or Infinity, got ${String(maxEndedRuns)}.`,
      });
    }
    this.maxEndedRuns = maxEndedRuns;
  }

  async createRun(run: NewRun): Promise<void> {
    if (this.runs.has(run.runId)) throw new RunStoreError({ operation: "createRun", runId: run.runId, message: `Run "${run.runId}" is recorded already.` });
    const info: RunInfo = { runId: run.runId, status: run.status, inputs: run.inputs, createdAt: run.at, updatedAt: run.at, eventCount: 0, epoch: 1 };
    if (run.threadId !== undefined) info.threadId = run.threadId;
    if (run.forkOf !== undefined) info.forkOf = { ...run.forkOf };
    if (run.owner !== undefined) info.owner = run.owner;
    if (run.leaseMs !== undefined) info.leaseExpiresAt = run.at + run.leaseMs;
    this.runs.set(run.runId, { info, events: [], inbox: [], inboxSeq: 0, inboxClosed: false });
    this.statusChanged(run.runId, info.status);
  }

  async claimRun(runId: string, claim: ClaimRun): Promise<RunInfo> {
    const record = this.record(runId, "claimRun");
    const before = { ...record.info };
    const { status, owner, leaseExpiresAt } = record.info;
    if (status === "running" && owner !== claim.owner && (leaseExpiresAt ?? 0) > claim.at) {
      throw new RunBusyError({ runId, ...(owner === undefined ? {} : { owner }), ...(leaseExpiresAt === undefined ? {} : { leaseExpiresAt }) });
    }
    const epoch = (record.info.epoch ?? 0) + 1;
    delete record.info.error; // a claimed run runs again: why it stopped before no longer holds
    record.inboxClosed = false;
    Object.assign(record.info, { status: "running", owner: claim.owner, leaseExpiresAt: claim.at + claim.leaseMs, updatedAt: claim.at, epoch });
    this.statusChanged(runId, "running");
    return { ...before, epoch };
  }

  async write(runId: string, write: RunWrite): Promise<RunWriteResult> {
    const record = this.record(runId, "write");
    if (record.info.owner !== write.owner) throw new RunLeaseLostError({ runId, owner: write.owner });
    if (write.epoch !== undefined && record.info.epoch !== write.epoch) throw new RunLeaseLostError({ runId, owner: write.owner, epoch: write.epoch });
    const first = write.events[0];
    if (first !== undefined && first.seq !== record.info.eventCount + 1) {
      throw new RunStoreError({ operation: "write", runId, message: `Run "${runId}": event ${first.seq} does not follow event ${record.info.eventCount}.` });
    }
    record.events.push(...write.events);
    const info = record.info;
    info.eventCount += write.events.length;
    info.updatedAt = write.at;
    info.leaseExpiresAt = write.at + write.leaseMs;
    const update = write.update ?? {};
    const statusBefore = info.status;
    if (update.status !== undefined) info.status = update.status;
    if (update.stopReason !== undefined) info.stopReason = update.stopReason;
    if (update.usage !== undefined) info.usage = update.usage;
    if (update.error !== undefined) info.error = update.error;
    if (update.checkpoint !== undefined) info.checkpoint = update.checkpoint;
    if (update.release) {
      delete info.owner;
      delete info.leaseExpiresAt;
    }
    // A finished run takes no more messages, and its record holds those it took.
    if (info.status === "finished") record.inbox = [];
    const inboxSeq = record.inboxSeq;
    const inboxClosed = update.closeInbox === undefined ? undefined : (record.inboxClosed = inboxSeq <= update.closeInbox);
    if (info.status !== statusBefore) this.statusChanged(runId, info.status);
    return inboxClosed === undefined ? { inboxSeq } : { inboxSeq, inboxClosed };
  }

  async getRun(runId: string): Promise<RunInfo | undefined> {
    const record = this.runs.get(runId);
    return record === undefined ? undefined : { ...record.info };
  }

  async readEvents(runId: string, options: { after?: number | undefined; limit?: number | undefined } = {}): Promise<StoredRunEvent[]> {
    const events = this.runs.get(runId)?.events ?? [];
    const after = options.after ?? 0;
    return events.slice(after, options.limit === undefined ? undefined : after + options.limit);
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunInfo[]> {
    // It lists what `resume` and steering need; a filter it would ignore is refused, not dropped.
    const unsupported = Object.keys(options).filter((key) => !LISTED_BY.has(key) && (options as { [key: string]: unknown })[key] !== undefined);
    if (unsupported.length > 0) {
      throw new RunStoreError({
        operation: "listRuns",
        message: `The executor's in-process store lists runs by threadId, status and limit only, not by ${unsupported.join(", ")}: give the executor a MemoryRunStore, SqliteRunStore or PostgresRunStore (from @agentrx/runs) to search, sort or page runs.`,
      });
    }
    const statuses = options.status === undefined ? undefined : ([] as string[]).concat(options.status);
    return [...this.runs.values()]
      .map((record) => ({ ...record.info }))
      .filter((info) => (options.threadId === undefined || info.threadId === options.threadId) && (statuses === undefined || statuses.includes(info.status)))
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, options.limit ?? 100);
  }

  async deleteRun(runId: string): Promise<boolean> {
    this.ended.delete(runId);
    return this.runs.delete(runId);
  }

  async pruneRuns(options: { olderThan: number | Date }): Promise<number> {
    const limit = typeof options.olderThan === "number" ? options.olderThan : options.olderThan.getTime();
    let count = 0;
    for (const [runId, { info }] of this.runs) {
      if (info.status !== "running" && info.updatedAt < limit) {
        this.ended.delete(runId);
        count += this.runs.delete(runId) ? 1 : 0;
      }
    }
    return count;
  }

  /** Appends a message to a run's inbox, checking the run in the same step (see `RunStore.appendRunMessage`). */
  async appendRunMessage(runId: string, message: NewThreadMessage): Promise<RunMessageAppended> {
    const record = this.record(runId, "appendRunMessage");
    const { status, stopReason } = record.info;
    if (status === "finished" || (status === "running" && record.inboxClosed)) throw new RunFinishedError({ runId, ...(stopReason === undefined ? {} : { stopReason }) });
    const inboxSeq = ++record.inboxSeq;
    record.inbox.push({ ...message, seq: inboxSeq });
    return { inboxSeq, status };
  }

  appendThreadMessages(): Promise<number[]> {
    return Promise.reject(this.noThreads("appendThreadMessages"));
  }

  /** A run's inbox (the thread `runInboxId(runId)`) after `options.after`; other threads are refused. */
  async readThreadMessages(threadId: string, options: ReadThreadMessagesOptions = {}): Promise<StoredThreadMessage[]> {
    if (!threadId.startsWith(INBOX_PREFIX)) throw this.noThreads("readThreadMessages");
    const after = options.after ?? 0;
    return (this.runs.get(threadId.slice(INBOX_PREFIX.length))?.inbox ?? []).filter((message) => message.seq > after).map((message) => ({ ...message }));
  }

  clearThread(): Promise<number> {
    return Promise.reject(this.noThreads("clearThread"));
  }

  async close(): Promise<void> {
    this.runs.clear();
    this.ended.clear();
  }

  /**
   * Keeps the list of ended runs as run `runId`, now `status`, changes it: a run that ends goes
   * last (it ended most recently), then the ones that ended longest ago are dropped past
   * `maxEndedRuns`; a run that runs again (a resume of a failed or cancelled run) leaves it.
   */
  private statusChanged(runId: string, status: string): void {
    this.ended.delete(runId);
    if (!ENDED.has(status)) return;
    this.ended.add(runId);
    for (const oldest of this.ended) {
      if (this.ended.size <= this.maxEndedRuns) break;
      this.ended.delete(oldest);
      this.runs.delete(oldest);
    }
  }

  private record(runId: string, operation: string): Record {
    const record = this.runs.get(runId);
    if (record === undefined) throw new RunNotFoundError({ operation, runId });
    return record;
  }

  private noThreads(operation: string): RunStoreError {
    return new RunStoreError({
      operation,
      message: "The executor's own in-process store keeps paused runs and their inboxes only; give ThreadMemory a store from @agentrx/runs (MemoryRunStore, SqliteRunStore, PostgresRunStore).",
    });
  }
}
