import { AgentRxError } from "@agentrx/core";

const STORE_MARKER = "agentrx.error.RunStoreError";
const NOT_FOUND_MARKER = "agentrx.error.RunNotFoundError";
const BUSY_MARKER = "agentrx.error.RunBusyError";
const LEASE_LOST_MARKER = "agentrx.error.RunLeaseLostError";
const STORE_SYMBOL = Symbol.for(STORE_MARKER);
const NOT_FOUND_SYMBOL = Symbol.for(NOT_FOUND_MARKER);
const BUSY_SYMBOL = Symbol.for(BUSY_MARKER);
const LEASE_LOST_SYMBOL = Symbol.for(LEASE_LOST_MARKER);

/**
 * Why a store call failed (see {@link RunStoreError.reason}): `"unsupported"` is a record written
 * by a newer version (a checkpoint `schemaVersion` above the ones this version reads), which a
 * process running that version can still go on with (see docs/runs.md).
 */
export type RunStoreErrorReason = "timeout" | "gone" | "corrupt" | "unsupported" | "error";

/**
 * A run store could not do what was asked: the database is unreachable, a write failed, a record
 * is corrupt. `runId` and `operation` name what failed; the driver's error is the `cause`.
 *
 * @example
 * ```ts
 * import { RunStoreError } from "@agentrx/executors";
 *
 * const error = new RunStoreError({ operation: "write", runId: "r1", message: "disk full" });
 * console.log(RunStoreError.isInstance(error), error.runId); // true "r1"
 * ```
 */
export class RunStoreError extends AgentRxError {
  protected readonly [STORE_SYMBOL] = true;

  /** The store operation that failed (`createRun`, `write`, `readEvents`, ...). */
  readonly operation: string;
  /** The run concerned, when there is one. */
  readonly runId: string | undefined;
  /**
   * What kind of failure: `timeout` (the store did not answer within `storeTimeoutMs`), `gone`
   * (its file was deleted or replaced), `corrupt` (a record that cannot be read or does not hold
   * together), or `error` (anything else; the driver's error is the `cause`).
   */
  readonly reason: RunStoreErrorReason;

  constructor({ operation, runId, message, cause, name, reason }: { operation: string; runId?: string; message: string; cause?: unknown; name?: string; reason?: RunStoreErrorReason }) {
    super({ name: name ?? "RunStoreError", message, cause });
    this.operation = operation;
    this.runId = runId;
    this.reason = reason ?? "error";
  }

  /** The store operation that failed: the same as {@link RunStoreError.operation}. */
  get op(): string {
    return this.operation;
  }

  /** Returns true when `error` is a {@link RunStoreError} or one of its subclasses (from any copy of the package). */
  static override isInstance(error: unknown): error is RunStoreError {
    return AgentRxError.hasMarker(error, STORE_MARKER);
  }
}

/**
 * No run with that id is recorded.
 *
 * @example
 * ```ts
 * import { RunNotFoundError } from "@agentrx/executors";
 *
 * const error = new RunNotFoundError({ operation: "resume", runId: "r404" });
 * console.log(error.message); // names the run
 * ```
 */
export class RunNotFoundError extends RunStoreError {
  protected readonly [NOT_FOUND_SYMBOL] = true;

  constructor({ operation, runId }: { operation: string; runId: string }) {
    super({ name: "RunNotFoundError", operation, runId, message: `Run "${runId}" is not recorded in this store.` });
  }

  /** Returns true when `error` is a {@link RunNotFoundError} (from any copy of the package). */
  static override isInstance(error: unknown): error is RunNotFoundError {
    return AgentRxError.hasMarker(error, NOT_FOUND_MARKER);
  }
}

/**
 * Another process holds the run's lease: it is running there (or died less than a lease ago).
 *
 * @example
 * ```ts
 * import { RunBusyError } from "@agentrx/executors";
 *
 * const error = new RunBusyError({ runId: "r1", owner: "host:42", leaseExpiresAt: Date.now() + 30_000 });
 * console.log(error.owner); // "host:42"
 * ```
 */
export class RunBusyError extends RunStoreError {
  protected readonly [BUSY_SYMBOL] = true;

  /** The lease holder. */
  readonly owner: string | undefined;
  /** When its lease expires (epoch ms): after that the run can be taken over. */
  readonly leaseExpiresAt: number | undefined;

  constructor({ runId, owner, leaseExpiresAt }: { runId: string; owner?: string; leaseExpiresAt?: number }) {
    const until = leaseExpiresAt === undefined ? "" : ` until ${new Date(leaseExpiresAt).toISOString()}`;
    super({
      name: "RunBusyError",
      operation: "claimRun",
      runId,
      message: `Run "${runId}" is running in another process (${owner ?? "unknown owner"}), which holds its lease${until}. Wait for it to end, or for the lease to expire if that process died, then resume.`,
    });
    this.owner = owner;
    this.leaseExpiresAt = leaseExpiresAt;
  }

  /** Returns true when `error` is a {@link RunBusyError} (from any copy of the package). */
  static override isInstance(error: unknown): error is RunBusyError {
    return AgentRxError.hasMarker(error, BUSY_MARKER);
  }
}

/**
 * A writer no longer holds the run's lease (it expired and another process took the run over, or
 * the run was cancelled from another process: see {@link RunLeaseLostError.cancelled}): the write
 * was refused and the run must stop here.
 *
 * @example
 * ```ts
 * import { RunLeaseLostError } from "@agentrx/executors";
 *
 * const error = new RunLeaseLostError({ runId: "r1", owner: "host:42" });
 * console.log(RunLeaseLostError.isInstance(error)); // true
 * ```
 */
export class RunLeaseLostError extends RunStoreError {
  protected readonly [LEASE_LOST_SYMBOL] = true;

  /** The writer that lost the lease. */
  readonly owner: string;
  /** The writer's epoch (fencing token), when it gave one. */
  readonly epoch: number | undefined;
  /**
   * True when the run was cancelled from another process (`cancelRun`) rather than taken over:
   * the run stopped because someone asked it to, which a front-end shows as cancelled, not failed.
   */
  readonly cancelled: boolean;

  constructor({ runId, owner, epoch, operation, message, cancelled }: { runId: string; owner: string; epoch?: number; operation?: string; message?: string; cancelled?: boolean }) {
    super({
      name: "RunLeaseLostError",
      operation: operation ?? "write",
      runId,
      message:
        message ??
        `Run "${runId}": this process (${owner}${epoch === undefined ? "" : `, epoch ${epoch}`}) no longer holds the run's lease (it expired and another process took the run over); the write was refused and the run stops here.`,
    });
    this.owner = owner;
    this.epoch = epoch;
    this.cancelled = cancelled ?? false;
  }

  /** Returns true when `error` is a {@link RunLeaseLostError} (from any copy of the package). */
  static override isInstance(error: unknown): error is RunLeaseLostError {
    return AgentRxError.hasMarker(error, LEASE_LOST_MARKER);
  }
}
