import { RunStoreError } from "@agentrx/executors";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { rejectionOf } from "../testing/conformance/conformance-context";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { LOST_CONNECTION_ATTEMPTS } from "./postgres-retry";
import { PostgresRunStore } from "./postgres-run-store";

const database = await postgresTestDatabase("PostgresRunStore errors");
const { connectionString } = database;

afterAll(() => database.drop());


/** How many connections of `application_name` `app` wait for a lock. */
const waitingOnLock = async (app: string) =>
  Number((await database.pool().query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [app])).rows[0].n);

describe.skipIf(database.skip)("PostgresRunStore errors of a database that is up", () => {
  it("says a call found no free connection when all of the pool's are busy, not that it could not connect", { timeout: 30_000 }, async () => {
    database.assertReachable();
    const name = database.newSchema();
    const app = `agentrx_full_${Math.random().toString(36).slice(2, 8)}`;
    const store = new PostgresRunStore({ connectionString: database.urlOf(app), schema: name, connectionTimeoutMs: 2_000 });
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1 });
    const holder = await database.pool().connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`LOCK TABLE "${name}".agentrx_runs IN ACCESS EXCLUSIVE MODE`);
      // The pool's 10 connections wait on the lock; the other 2 calls wait for one of them.
      const failures: Error[] = [];
      const calls = Array.from({ length: 12 }, () => store.getRun("r1").catch((error: Error) => void failures.push(error)));
      await expect.poll(() => failures.length, { timeout: 20_000 }).toBe(2);
      expect(await waitingOnLock(app)).toBe(10);
      for (const error of failures) {
        expect(RunStoreError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ reason: "timeout", operation: "getRun", runId: "r1" });
        expect(error.message).toMatch(/^PostgresRunStore: no connection of the pool's 10 to the database at .* was free within connectionTimeoutMs: all were busy with other calls/);
        expect(error.message).not.toMatch(/could not connect|cannot reach/);
      }
      await holder.query("ROLLBACK");
      const results = await Promise.all(calls);
      expect(results.filter((result) => result !== undefined)).toHaveLength(10);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
      await store.close();
    }
  });

  it("says the server closed the connection when its backend is terminated (57P01) on each of the call's tries, not that the database is unreachable, and connects again after", { timeout: 30_000 }, async () => {
    database.assertReachable();
    const name = database.newSchema();
    const app = `agentrx_kill_${Math.random().toString(36).slice(2, 8)}`;
    const store = new PostgresRunStore({ connectionString: database.urlOf(app), schema: name });
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1 });
    const holder = await database.pool().connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`LOCK TABLE "${name}".agentrx_runs IN ACCESS EXCLUSIVE MODE`);
      const reading = rejectionOf(store.getRun("r1"));
      // Terminated, the read is sent again on another connection; terminated every time, it fails.
      for (let attempt = 0; attempt < LOST_CONNECTION_ATTEMPTS; attempt++) {
        await expect.poll(() => waitingOnLock(app), { timeout: 20_000 }).toBe(1);
        await database.pool().query("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = $1", [app]);
      }
      const error = await reading;
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ reason: "error", operation: "getRun", runId: "r1" });
      expect(error.message).toMatch(/^PostgresRunStore: the database at .* closed the connection during getRun: it was terminated by an administrator \(pg_terminate_backend\) or a server restart \(57P01: /);
      expect(error.message).not.toMatch(/cannot reach/);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    expect(await store.getRun("r1")).toMatchObject({ runId: "r1", status: "queued" });
    await store.close();
  });

  it("records a write whose connection is terminated while it waits for a lock, on its retry, once", { timeout: 30_000 }, async () => {
    database.assertReachable();
    const name = database.newSchema();
    const app = `agentrx_killw_${Math.random().toString(36).slice(2, 8)}`;
    const store = new PostgresRunStore({ connectionString: database.urlOf(app), schema: name });
    await store.createRun({ runId: "r1", inputs: {}, status: "running", owner: "w1", leaseMs: 60_000, at: 1 });
    const holder = await database.pool().connect();
    let writing: Promise<unknown> | undefined;
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM "${name}".agentrx_runs WHERE run_id = 'r1' FOR UPDATE`);
      writing = store.write("r1", { owner: "w1", leaseMs: 60_000, at: 2, events: [{ seq: 1, type: "note", at: 2, data: { n: 1 } }] });
      await expect.poll(() => waitingOnLock(app), { timeout: 20_000 }).toBe(1);
      await database.pool().query("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = $1", [app]);
      // The write, sent again, waits for the lock on another connection.
      await expect.poll(() => waitingOnLock(app), { timeout: 20_000 }).toBe(1);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    expect(await writing).toEqual({ inboxSeq: 0 });
    expect((await store.readEvents("r1")).map((event) => event.data)).toEqual([{ n: 1 }]);
    await store.close();
  });

  it("names the pool's own statement_timeout, not statementTimeoutMs, and the migration when it is the statement that ran out", { timeout: 30_000 }, async () => {
    database.assertReachable();
    const name = database.newSchema();
    const pool = new pg.Pool({ connectionString, statement_timeout: 300, max: 2 });
    const holder = await database.pool().connect();
    try {
      // The migration waits for its advisory lock, held here, until the pool's statement_timeout.
      await holder.query("SELECT pg_advisory_lock(hashtext($1))", [`agentrx_runs:${name}`]);
      const store = new PostgresRunStore({ pool, schema: name });
      const migrating = await rejectionOf(store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1 }));
      expect(migrating).toMatchObject({ reason: "timeout", operation: "createRun", runId: "r1" });
      expect(migrating.message).toMatch(/^PostgresRunStore: the migration of its tables before createRun took longer than the statement_timeout of its connection at .*, and the server cancelled it/);
      expect(migrating.message).not.toMatch(/statementTimeoutMs/);
      await holder.query("SELECT pg_advisory_unlock(hashtext($1))", [`agentrx_runs:${name}`]);
      await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1 });
      // Once the tables are there, the call that ran out is named alone.
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM "${name}".agentrx_runs WHERE run_id = 'r1' FOR UPDATE`);
      const claiming = await rejectionOf(store.claimRun("r1", { owner: "w", leaseMs: 1000, at: 2 }));
      expect(claiming).toMatchObject({ reason: "timeout", operation: "claimRun", runId: "r1" });
      expect(claiming.message).toMatch(/^PostgresRunStore: claimRun took longer than the statement_timeout of its connection at .*The store sets none on a pool it is given/);
      expect(claiming.message).not.toMatch(/statementTimeoutMs|migration/);
      await holder.query("ROLLBACK");
      await store.close();
    } finally {
      await holder.query("SELECT pg_advisory_unlock_all()");
      holder.release();
      await pool.end();
    }
  });

  it("names statementTimeoutMs, with the migration, when the migration of a store's own pool runs out of it", { timeout: 30_000 }, async () => {
    database.assertReachable();
    const name = database.newSchema();
    const holder = await database.pool().connect();
    const store = new PostgresRunStore({ connectionString, schema: name, statementTimeoutMs: 300 });
    try {
      await holder.query("SELECT pg_advisory_lock(hashtext($1))", [`agentrx_runs:${name}`]);
      const error = await rejectionOf(store.getRun("r1"));
      expect(error).toMatchObject({ reason: "timeout", operation: "getRun", runId: "r1" });
      expect(error.message).toMatch(/^PostgresRunStore: the migration of its tables before getRun took longer than statementTimeoutMs \(300 ms\) at /);
    } finally {
      await holder.query("SELECT pg_advisory_unlock_all()");
      holder.release();
      await store.close();
    }
  });
});
