import type { RunInfo, RunStore, StoredRunEvent } from "@agentrx/executors";
import { afterAll, beforeAll, describe } from "vitest";
import { concurrencyTests } from "./conformance/concurrency-tests";
import { conformanceContext } from "./conformance/conformance-context";
import { failureTests } from "./conformance/failure-tests";
import { fencingTests } from "./conformance/fencing-tests";
import { inboxTests } from "./conformance/inbox-tests";
import { leaseTests } from "./conformance/lease-tests";
import { listingTests } from "./conformance/listing-tests";
import { pagingTests } from "./conformance/paging-tests";
import { pruneTests } from "./conformance/prune-tests";
import { recordTests } from "./conformance/record-tests";
import { searchTests } from "./conformance/search-tests";
import { searchTextTests } from "./conformance/search-text-tests";
import { stringTests } from "./conformance/string-tests";
import { threadTests } from "./conformance/thread-tests";

/** What the suite asks another process to do with a run (see `inAnotherProcess`). */
export interface AnotherProcessRequest {
  runId: string;
  /** The owner the other process claims the run as. */
  owner: string;
  leaseMs: number;
  /** The time of its claim and of its write. */
  at: number;
}

/** What the other process read and who it was. */
export interface AnotherProcessReport {
  /** The other process's `process.pid`. */
  pid: number;
  run: RunInfo | undefined;
  events: StoredRunEvent[];
}

/** Options of {@link runStoreConformance}. */
export interface RunStoreConformanceOptions {
  /** The name of the `describe` block (e.g. the store's class name). */
  name: string;
  /**
   * Opens a store. Called once before the tests; when `persistent`, called again by the tests that
   * reopen the store or race two stores, and every call must open the same records (the same file,
   * database and schema).
   */
  create: () => Promise<RunStore>;
  /** Called after every test, once every store the suite opened is closed: remove files, drop schemas. */
  cleanup?: () => Promise<void>;
  /** Whether two stores from `create` share their records; enables the reopen and two-store tests. @default false */
  persistent?: boolean;
  /**
   * Overwrites what the store keeps of a run with text that is not JSON, bypassing the store (with
   * the driver): `column` is `inputs`, `usage`, `checkpoint` or `metadata` of the run's row, or
   * `event` for the data of its event with seq 1. Enables the tests of corrupt records.
   */
  corrupt?: (runId: string, column: "inputs" | "usage" | "checkpoint" | "metadata" | "event") => Promise<void>;
  /**
   * Overwrites the stored message of the thread's message `seq` with text that is not JSON,
   * bypassing the store (with the driver). Enables the test of a corrupt thread message.
   */
  corruptThreadMessage?: (threadId: string, seq: number) => Promise<void>;
  /**
   * Opens the same records in another process, which must: read the run (`getRun`) and its events
   * (`readEvents`), claim it with `request.owner`, write one event (seq `eventCount + 1`, type
   * `note`, data `{ type: "note", at, pid }`) with `update: { status: "finished", stopReason:
   * "finish", release: true }`, close, and report what it read. Enables the cross-process test.
   */
  inAnotherProcess?: (request: AnotherProcessRequest) => Promise<AnotherProcessReport>;
  /** Registers the tests as skipped (e.g. when the database is unreachable). @default false */
  skip?: boolean;
}

/**
 * Registers the run store conformance tests (vitest `describe`/`it` blocks) for a store: records
 * and events, listing filters at their bounds, search (query syntax of every engine read as words,
 * unicode, long words, inputs that are not strings), cursors (ties, damaged cursors, runs written
 * between pages), pruning, leases and claims, fencing epochs and forks, atomic writes, concurrency, large and unusual
 * strings, corrupt records, closed stores and bad arguments, and thread messages (order, paging,
 * concurrent appends, clearing), and run inboxes (`appendRunMessage`, the inbox position every
 * `write` reports, `closeInbox` racing a send, deletion with the run). Every store of `@agentrx/runs`
 * passes it; run it against your own `RunStore` to check that it behaves the same.
 *
 * @example
 * ```ts
 * import { MemoryRunStore } from "@agentrx/runs";
 * import { runStoreConformance } from "@agentrx/runs/testing";
 *
 * runStoreConformance({ name: "MemoryRunStore", create: async () => new MemoryRunStore() });
 * ```
 */
export function runStoreConformance(options: RunStoreConformanceOptions): void {
  describe.skipIf(options.skip === true)(`${options.name} (run store conformance)`, () => {
    let store: RunStore | undefined;
    const context = conformanceContext(options, () => {
      if (store === undefined) throw new Error(`${options.name}: create() has not resolved yet (or failed)`);
      return store;
    });

    beforeAll(async () => {
      store = await options.create();
    });

    afterAll(async () => {
      await store?.close();
      await options.cleanup?.();
    });

    recordTests(context);
    listingTests(context);
    searchTests(context);
    searchTextTests(context);
    pagingTests(context);
    leaseTests(context);
    fencingTests(context);
    concurrencyTests(context);
    stringTests(context);
    failureTests(context);
    threadTests(context);
    inboxTests(context);
    // Last: it prunes every run older than its own (in 1970) that the tests before left.
    pruneTests(context);
  });
}
