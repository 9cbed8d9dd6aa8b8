import { InvalidArgumentError } from "@agentrx/core";
import { RunLeaseLostError, RunStoreError, runInboxId } from "@agentrx/executors";
import { createServer, type AddressInfo, type Socket } from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { appendInManyProcesses, runInAnotherProcess, runManyProcesses } from "../testing/another-process";
import { rejectionOf } from "../testing/conformance/conformance-context";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { runStoreConformance } from "../testing/run-store-conformance";
import { POSTGRES_MIGRATIONS, postgresMigrationSql } from "./postgres-migrations";
import { PostgresRunStore } from "./postgres-run-store";

const database = await postgresTestDatabase("PostgresRunStore");
const { connectionString, schema } = database;

runStoreConformance({
  name: "PostgresRunStore",
  skip: database.skip,
  create: async () => {
    database.assertReachable();
    return new PostgresRunStore({ connectionString, schema });
  },
  persistent: true,
  corrupt: async (runId, column) => {
    if (column === "event") await database.pool().query(`UPDATE "${schema}".agentrx_run_events SET data = '{not json' WHERE run_id = $1 AND seq = 1`, [runId]);
    else await database.pool().query(`UPDATE "${schema}".agentrx_runs SET ${column} = '{"truncated":' WHERE run_id = $1`, [runId]);
  },
  corruptThreadMessage: async (threadId, seq) => {
    await database.pool().query(`UPDATE "${schema}".agentrx_thread_messages SET message = '{not json' WHERE thread_id = $1 AND seq = $2`, [threadId, seq]);
  },
  inAnotherProcess: (request) => runInAnotherProcess({ kind: "postgres", connectionString, schema }, request),
});

/** Schemas the tests below create besides the conformance one; dropped at the end. */
const extraSchemas: string[] = [];
const extraSchema = () => {
  const name = `${schema}_${extraSchemas.length + 1}`;
  extraSchemas.push(name);
  return name;
};

/** A new schema as version `version` of the store left it, with the migrations table saying so. */
async function schemaAtVersion(version: number): Promise<string> {
  const name = extraSchema();
  const pool = database.pool();
  await pool.query(`CREATE SCHEMA "${name}"; CREATE TABLE "${name}".agentrx_schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL);`);
  for (const migration of POSTGRES_MIGRATIONS.slice(0, version)) {
    await pool.query(migration.up(`"${name}"`));
    await pool.query(`INSERT INTO "${name}".agentrx_schema_migrations (version, applied_at) VALUES ($1, 0)`, [migration.version]);
  }
  return name;
}

afterAll(async () => {
  if (!database.skip) for (const name of extraSchemas) await database.pool().query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  await database.drop();
});

describe("PostgresRunStore options", () => {
  it("names the problem of a connection string that is no PostgreSQL URL, without its password; takes key-value strings and host-less URLs", () => {
    expect(() => new PostgresRunStore({ connectionString: "mysql://root:secret@127.0.0.1/test" })).toThrow("PostgresRunStore: connectionString must be a PostgreSQL URL (postgres://user@host:5432/database), got a mysql: URL (mysql://root:***@127.0.0.1/test).");
    for (const ok of ["postgresql://u@localhost:5432/db", "postgres://u@/test?host=/var/run/postgresql", "host=localhost dbname=test", "socket:/var/run/postgresql?db=test"]) expect(() => new PostgresRunStore({ connectionString: ok })).not.toThrow();
  });

  it("takes exactly one of pool and connectionString, a schema that is an identifier, and timeouts in whole ms", () => {
    const cases: [unknown, string][] = [
      [{}, "connectionString"],
      [{ connectionString: "postgres://x/y", pool: new pg.Pool() }, "pool"],
      [{ connectionString: "" }, "connectionString"],
      [{ pool: {} }, "pool"],
      [{ connectionString: "postgres://x/y", schema: 'bad"; DROP TABLE x; --' }, "schema"],
      [{ connectionString: "postgres://x/y", schema: "1starts_with_digit" }, "schema"],
      [{ connectionString: "postgres://x/y", schema: "x".repeat(64) }, "schema"],
      [{ connectionString: "postgres://x/y", statementTimeoutMs: -1 }, "statementTimeoutMs"],
      [{ connectionString: "postgres://x/y", connectionTimeoutMs: 1.5 }, "connectionTimeoutMs"],
      // The timeouts are the pool's: a pool you own keeps its own.
      [{ pool: new pg.Pool(), statementTimeoutMs: 100 }, "statementTimeoutMs"],
      // A typo is not ignored (the store would use the default schema).
      [{ connectionString: "postgres://x/y", schma: "tenant_a" }, "schma"],
      ["postgres://x/y", "options"],
      // A URL of another database, or no URL at all, fails here rather than at the first call.
      [{ connectionString: "mysql://root@127.0.0.1/test" }, "connectionString"],
    ];
    for (const [options, argument] of cases) {
      let caught: unknown;
      try {
        new PostgresRunStore(options as never);
      } catch (error) {
        caught = error;
      }
      expect(InvalidArgumentError.isInstance(caught), argument).toBe(true);
      expect(caught).toMatchObject({ argument });
    }
  });

  it("says where it cannot connect, without the password, as a RunStoreError", async () => {
    const store = new PostgresRunStore({ connectionString: "postgres://agent:secret-password@127.0.0.1:1/nowhere", schema: "agentrx" });
    const error = await rejectionOf(store.getRun("r1"));
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error.message).toBe("PostgresRunStore: cannot reach the database at 127.0.0.1:1/nowhere (ECONNREFUSED).");
    expect(error).toMatchObject({ operation: "getRun", runId: "r1" });
    expect(error.cause).toBeDefined();
    await store.close();
  });
});

describe("PostgresRunStore timeouts", () => {
  it("gives up on a server that accepts the connection but never answers, after connectionTimeoutMs", async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    const store = new PostgresRunStore({ connectionString: `postgres://agent@127.0.0.1:${port}/silent`, connectionTimeoutMs: 200 });
    try {
      const started = Date.now();
      const error = await rejectionOf(store.getRun("r1"));
      expect(Date.now() - started).toBeLessThan(3000);
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ reason: "timeout", operation: "getRun", runId: "r1" });
      expect(error.message).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}/silent within connectionTimeoutMs`));
    } finally {
      await store.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it.skipIf(database.skip)("fails a statement that waits longer than statementTimeoutMs with reason \"timeout\", and goes on after", async () => {
    database.assertReachable();
    const store = new PostgresRunStore({ connectionString, schema, statementTimeoutMs: 300 });
    const runId = `locked-${Math.random().toString(36).slice(2, 8)}`;
    await store.createRun({ runId, inputs: {}, status: "queued", at: 1 });
    const holder = await database.pool().connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM "${schema}".agentrx_runs WHERE run_id = $1 FOR UPDATE`, [runId]);
      const started = Date.now();
      const error = await rejectionOf(store.claimRun(runId, { owner: "w", leaseMs: 1000, at: 2 }));
      expect(Date.now() - started).toBeLessThan(3000);
      expect(error).toMatchObject({ reason: "timeout", operation: "claimRun", runId });
      expect(error.message).toMatch(/statementTimeoutMs/);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    expect((await store.claimRun(runId, { owner: "w", leaseMs: 1000, at: 3 })).epoch).toBe(2);
    await store.close();
  });
});

describe.skipIf(database.skip)("PostgresRunStore", () => {
  it("writes with one query in autocommit (the write that closes the inbox too), and leaves a pool it was given open on close", async () => {
    database.assertReachable();
    const pool = database.pool();
    let queries = 0;
    let connections = 0;
    const counting = { query: (config: never) => (queries++, pool.query(config)), connect: () => (connections++, pool.connect()), end: () => pool.end() };
    const store = new PostgresRunStore({ pool: counting, schema });
    await store.createRun({ runId: "one-query", inputs: {}, status: "running", owner: "w", leaseMs: 1000, at: 1 });
    const checkpoint = { schemaVersion: 1, iteration: 1, elapsedMs: 1, phase: "act" };
    const event = (seq: number) => ({ seq, type: "step", at: seq, data: {} });
    const writes = [
      { owner: "w", leaseMs: 1000, events: [{ seq: 1, type: "start", at: 2, data: { type: "start" } }, event(2)], update: { checkpoint }, at: 3 },
      { owner: "w", epoch: 1, leaseMs: 1000, events: [], update: { checkpoint }, at: 4 },
      { owner: "w", epoch: 1, leaseMs: 1000, events: Array.from({ length: 20 }, (_, index) => event(3 + index)), update: { checkpoint }, at: 5 },
      { owner: "w", epoch: 1, leaseMs: 1000, events: [event(23)], update: { checkpoint, closeInbox: 0 }, at: 6 },
    ];
    for (const write of writes) {
      queries = 0;
      connections = 0;
      await store.write("one-query", write);
      expect({ queries, connections }).toEqual({ queries: 1, connections: 0 });
    }
    await store.close();
    expect((await pool.query(`SELECT event_count, inbox_closed FROM "${schema}".agentrx_runs WHERE run_id = 'one-query'`)).rows).toEqual([{ event_count: 23, inbox_closed: true }]);
  });

  it("fails with reason \"gone\" when its tables were dropped after it opened them", async () => {
    database.assertReachable();
    const name = extraSchema();
    const store = new PostgresRunStore({ connectionString, schema: name });
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1 });
    await database.pool().query(`DROP SCHEMA "${name}" CASCADE`);
    const error = await rejectionOf(store.getRun("r1"));
    expect(error).toMatchObject({ reason: "gone", operation: "getRun", runId: "r1" });
    expect(error.message).toMatch(/tables gone/);
    await store.close();
    const fresh = new PostgresRunStore({ connectionString, schema: name });
    expect(await fresh.getRun("r1")).toBeUndefined();
    await fresh.close();
  });

  it("ends the pool it created from connectionString on close", async () => {
    database.assertReachable();
    const app = `agentrx_close_${Math.random().toString(36).slice(2, 8)}`;
    const url = new URL(connectionString);
    url.searchParams.set("application_name", app);
    const store = new PostgresRunStore({ connectionString: url.toString(), schema });
    await store.listRuns({ limit: 1 });
    const count = async () => Number((await database.pool().query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1", [app])).rows[0].n);
    expect(await count()).toBeGreaterThan(0);
    await store.close();
    for (let attempt = 0; attempt < 50 && (await count()) > 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await count()).toBe(0);
  });

  it("migrates a new schema once when several stores and processes open it at once", { timeout: 60_000 }, async () => {
    database.assertReachable();
    const name = extraSchema();
    const stores = Array.from({ length: 4 }, () => new PostgresRunStore({ connectionString, schema: name }));
    const [reports] = await Promise.all([runManyProcesses({ kind: "postgres", connectionString, schema: name }, 2), ...stores.map((store) => store.listRuns())]);
    await Promise.all(stores.map((store) => store.close()));
    const { rows } = await database.pool().query(`SELECT version FROM "${name}".agentrx_schema_migrations ORDER BY version`);
    expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }]);
    const check = new PostgresRunStore({ pool: database.pool(), schema: name });
    expect((await check.listRuns()).map((run) => run.runId).sort()).toEqual(reports.map((report) => report.runId).sort());
    await check.close();
  });

  it("can be migrated ahead of time, by the static method or by running its SQL (again)", async () => {
    database.assertReachable();
    const name = extraSchema();
    expect(await PostgresRunStore.migrate({ connectionString, schema: name })).toBe(6);
    await database.pool().query(postgresMigrationSql(name));
    await database.pool().query(postgresMigrationSql(name));
    const { rows } = await database.pool().query(`SELECT version FROM "${name}".agentrx_schema_migrations ORDER BY version`);
    expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }]);
    const tables = await database.pool().query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [name]);
    expect(tables.rows.map((row) => row.table_name)).toEqual(["agentrx_run_events", "agentrx_runs", "agentrx_schema_migrations", "agentrx_thread_messages", "agentrx_threads"]);
  });

  it("upgrades a schema of version 1 to the latest, keeping its runs (at epoch 0, shown without one until claimed)", async () => {
    database.assertReachable();
    const name = await schemaAtVersion(1);
    const pool = database.pool();
    await pool.query(`INSERT INTO "${name}".agentrx_runs (run_id, thread_id, status, inputs, created_at, updated_at) VALUES ('old', 't1', 'finished', '{"input":"hi"}', 1, 2)`);
    const store = new PostgresRunStore({ pool, schema: name });
    const old = await store.getRun("old");
    expect(old).toMatchObject({ runId: "old", threadId: "t1", status: "finished", inputs: { input: "hi" } });
    expect(old?.epoch).toBeUndefined();
    expect(old?.forkOf).toBeUndefined();
    expect((await store.claimRun("old", { owner: "w", leaseMs: 1000, at: 3 })).epoch).toBe(1);
    expect(await store.appendThreadMessages("t1", [{ message: { type: "human", data: { content: "hi" } }, tokens: 5, at: 3 }])).toEqual([1]);
    await store.close();
    expect((await pool.query(`SELECT version FROM "${name}".agentrx_schema_migrations ORDER BY version`)).rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }]);
  });

  it("upgrades a schema of version 3: old runs get previews, cost and search from their inputs, usage and output", async () => {
    database.assertReachable();
    const name = await schemaAtVersion(3);
    const pool = database.pool();
    const usage = '{"input_tokens":1,"output_tokens":1,"total_tokens":2,"cost":{"input":0.5,"output":0.25,"total":0.75,"currency":"USD"}}';
    await pool.query(`INSERT INTO "${name}".agentrx_runs (run_id, status, inputs, usage, created_at, updated_at) VALUES ('old', 'finished', '{"input":"Weather in Paris?"}', $1, 1, 2), ('broken', 'finished', '{not json', NULL, 3, 4)`, [usage]);
    await pool.query(`INSERT INTO "${name}".agentrx_run_events (run_id, seq, type, at, data) VALUES ('old', 1, 'output', 2, '{"type":"output","at":2,"output":"Sunny and mild."}')`);
    const store = new PostgresRunStore({ pool, schema: name });
    expect(await store.getRun("old")).toMatchObject({ inputPreview: "Weather in Paris?", answerPreview: "Sunny and mild." });
    expect((await store.listRuns({ search: "sunn pari" })).map((run) => run.runId)).toEqual(["old"]);
    expect((await store.listRuns({ minCost: 0.5 })).map((run) => run.runId)).toEqual(["old"]);
    expect((await store.listRuns({ sort: "cost", order: "asc" })).map((run) => run.runId)).toEqual(["broken", "old"]);
    await store.close();
  });

  it("upgrades a schema of version 5: runs searched by PostgreSQL's own split of their text get the words every store searches", async () => {
    database.assertReachable();
    const name = await schemaAtVersion(5);
    const pool = database.pool();
    // As version 5 recorded them: the vectors PostgreSQL's "simple" configuration makes of the text
    // (accents kept; a non-string input by its JSON, keys included).
    const insert = `INSERT INTO "${name}".agentrx_runs (run_id, status, inputs, created_at, updated_at, input_text, answer_text, input_vector, answer_vector)
      VALUES ($1, 'finished', $2, $3, $3, $4, $5, to_tsvector('simple', $4), to_tsvector('simple', $5))`;
    await pool.query(insert, ["accents", '{"input":"Un café crème"}', 1, "Un café crème", "Voilà, ﬁni."]);
    await pool.query(insert, ["object", '{"input":{"city":"Zürich"}}', 2, '{"input":{"city":"Zürich"}}', ""]);
    await pool.query(`INSERT INTO "${name}".agentrx_run_events (run_id, seq, type, at, data) VALUES
      ('object', 1, 'output', 2, '{"type":"output","at":2,"output":{"forecast":"Sonnig"}}'),
      ('object', 2, 'output', 3, '{"type":"output","at":3,"output":"sub-run answer","subRun":{"runId":"s"}}')`);
    const rows = Array.from({ length: 1203 }, (_, i) => i);
    await pool.query(`INSERT INTO "${name}".agentrx_runs (run_id, status, inputs, created_at, updated_at, input_text) SELECT 'bulk-' || i, 'finished', '{"input":"Ärger ' || i || '"}', 10 + i, 10 + i, 'Ärger ' || i FROM unnest($1::int[]) AS i`, [rows]);
    const store = new PostgresRunStore({ pool, schema: name });
    expect((await store.listRuns({ search: "cafe creme" })).map((run) => run.runId)).toEqual(["accents"]);
    expect((await store.listRuns({ search: "voila fini" })).map((run) => run.runId)).toEqual(["accents"]);
    expect((await store.listRuns({ search: "zurich" })).map((run) => run.runId)).toEqual(["object"]);
    expect((await store.listRuns({ search: "sonnig" })).map((run) => run.runId)).toEqual(["object"]);
    // Not the JSON's keys, nor a sub-run's answer.
    expect(await store.listRuns({ search: "city" })).toEqual([]);
    expect(await store.listRuns({ search: "forecast" })).toEqual([]);
    expect(await store.listRuns({ search: "sub" })).toEqual([]);
    expect((await store.listRuns({ search: "arger 1202" })).map((run) => run.runId)).toEqual(["bulk-1202"]);
    const pending = await pool.query(`SELECT count(*)::int AS n FROM "${name}".agentrx_runs WHERE words_pending`);
    expect(pending.rows[0].n).toBe(0);
    await store.close();
  });

  it("computes the words of runs marked by migration SQL run by hand when a store opens the schema", async () => {
    database.assertReachable();
    const name = await schemaAtVersion(5);
    const pool = database.pool();
    await pool.query(`INSERT INTO "${name}".agentrx_runs (run_id, status, inputs, created_at, updated_at, input_text, input_vector) VALUES ('old', 'finished', '{"input":"Crème brûlée"}', 1, 1, 'Crème brûlée', to_tsvector('simple', 'Crème brûlée'))`);
    await pool.query(postgresMigrationSql(name));
    const store = new PostgresRunStore({ pool, schema: name });
    expect((await store.listRuns({ search: "creme brulee" })).map((run) => run.runId)).toEqual(["old"]);
    await store.close();
  });

  it("assigns every seq of a thread once when several processes append to it at once", { timeout: 60_000 }, async () => {
    database.assertReachable();
    const name = extraSchema();
    await PostgresRunStore.migrate({ pool: database.pool(), schema: name });
    const reports = await appendInManyProcesses({ kind: "postgres", connectionString, schema: name }, "shared", 3, 15, 2);
    const store = new PostgresRunStore({ pool: database.pool(), schema: name });
    const messages = await store.readThreadMessages("shared");
    await store.close();
    expect(messages.map((message) => message.seq)).toEqual(Array.from({ length: 90 }, (_, index) => index + 1));
    for (const report of reports) {
      for (const [append, seqs] of report.seqs.entries()) {
        expect(seqs[1]).toBe(seqs[0]! + 1);
        expect(seqs.map((seq) => messages[seq - 1]?.message)).toEqual([{ pid: report.pid, append, index: 0 }, { pid: report.pid, append, index: 1 }]);
      }
    }
  });

  it("clears a thread while appends run, leaving seqs that never collide", async () => {
    database.assertReachable();
    const other = new PostgresRunStore({ connectionString, schema });
    const store = new PostgresRunStore({ connectionString, schema });
    try {
      const threadId = `clear-race-${Math.random().toString(36).slice(2, 8)}`;
      const message = (n: number) => [{ message: { n }, tokens: 1, at: n }];
      for (let round = 0; round < 10; round++) {
        await Promise.all([
          ...Array.from({ length: 5 }, (_, index) => store.appendThreadMessages(threadId, message(round * 10 + index))),
          other.clearThread(threadId),
          ...Array.from({ length: 5 }, (_, index) => other.appendThreadMessages(threadId, message(round * 10 + 5 + index))),
        ]);
        const seqs = (await store.readThreadMessages(threadId)).map((read) => read.seq);
        // Whatever survived the clear is numbered 1..n without gaps: the counter restarted with the messages.
        expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
      }
    } finally {
      await Promise.all([store.close(), other.close()]);
    }
  });

  it("refuses a schema migrated by a newer version", async () => {
    database.assertReachable();
    const name = extraSchema();
    await PostgresRunStore.migrate({ pool: database.pool(), schema: name });
    await database.pool().query(`INSERT INTO "${name}".agentrx_schema_migrations (version, applied_at) VALUES (7, 0)`);
    const store = new PostgresRunStore({ pool: database.pool(), schema: name });
    const error = await rejectionOf(store.listRuns());
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/version 7, newer/);
    await store.close();
  });

  it("wraps a driver error in a RunStoreError with the driver's error as its cause (a dropped table: reason \"gone\")", async () => {
    database.assertReachable();
    const name = extraSchema();
    const store = new PostgresRunStore({ pool: database.pool(), schema: name });
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 1 });
    await database.pool().query(`DROP TABLE "${name}".agentrx_run_events`);
    const error = await rejectionOf(store.readEvents("r1"));
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ operation: "readEvents", runId: "r1", reason: "gone" });
    expect(error.message).toMatch(/^PostgresRunStore: readEvents found the store's tables gone at .*: .*agentrx_run_events.* \(42P01\); they were dropped/);
    expect((error.cause as { code?: string }).code).toBe("42P01");
    await store.close();
  });
});

describe.skipIf(database.skip)("PostgresRunStore: closing a run's inbox while a message is being sent to it", () => {
  for (const sentBefore of [0, 1]) {
    it(`the write waits for the send that holds the run's row, and sees its message (${sentBefore} sent before)`, async () => {
      const store = new PostgresRunStore({ connectionString, schema });
      const runId = `close-race-${sentBefore}`;
      const inbox = runInboxId(runId);
      await store.createRun({ runId, inputs: { input: "x" }, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
      for (let index = 0; index < sentBefore; index++) await store.appendRunMessage(runId, { message: { type: "human", data: { content: "before" } }, tokens: 0, runId, at: 2 });
      const seq = sentBefore + 1;
      const sender = await database.pool().connect();
      try {
        // A send half done, as appendRunMessage does it: the run's row held (shared), the inbox's
        // counter (new, or bumped) and the message written, not committed.
        await sender.query("BEGIN");
        await sender.query(`SELECT 1 FROM "${schema}".agentrx_runs WHERE run_id = $1 FOR SHARE`, [runId]);
        await sender.query(`INSERT INTO "${schema}".agentrx_threads AS t (thread_id, last_seq, updated_at) VALUES ($1, 1, 3) ON CONFLICT (thread_id) DO UPDATE SET last_seq = t.last_seq + 1`, [inbox]);
        await sender.query(`INSERT INTO "${schema}".agentrx_thread_messages (thread_id, seq, run_id, tokens, at, message) VALUES ($1, $2, NULL, 1, 3, '{}')`, [inbox, seq]);
        const closing = store.write(runId, { owner: "w", epoch: 1, leaseMs: 60_000, events: [], update: { closeInbox: sentBefore }, at: 4 });
        // The write waits for the row the send holds.
        await expect
          .poll(async () => (await database.pool().query("SELECT count(*)::integer AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).rows[0].n, { timeout: 10_000 })
          .toBeGreaterThan(0);
        await sender.query("COMMIT");
        // The message came after the position the run saw: the inbox stays open, and the write says where it ends.
        expect(await closing).toEqual({ inboxSeq: seq, inboxClosed: false });
      } finally {
        sender.release();
      }
      expect(await store.write(runId, { owner: "w", epoch: 1, leaseMs: 60_000, events: [], update: { closeInbox: seq }, at: 5 })).toEqual({ inboxSeq: seq, inboxClosed: true });
      await store.close();
    });
  }

  it("a stale writer's closing write is refused and changes nothing, the inbox's counter included", async () => {
    const store = new PostgresRunStore({ connectionString, schema });
    const runId = "close-stale";
    await store.createRun({ runId, inputs: { input: "x" }, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
    await store.claimRun(runId, { owner: "w2", leaseMs: 60_000, at: 60_002 }); // the lease ran out: w2 takes the run
    const error = await rejectionOf(store.write(runId, { owner: "w", epoch: 1, leaseMs: 60_000, events: [{ seq: 1, type: "step", at: 3, data: {} }], update: { closeInbox: 0 }, at: 3 }));
    expect(RunLeaseLostError.isInstance(error)).toBe(true);
    const state = await database.pool().query(
      `SELECT (SELECT event_count FROM "${schema}".agentrx_runs WHERE run_id = $1) AS events, (SELECT inbox_closed FROM "${schema}".agentrx_runs WHERE run_id = $1) AS closed, (SELECT count(*)::integer FROM "${schema}".agentrx_threads WHERE thread_id = $2) AS counters`,
      [runId, runInboxId(runId)],
    );
    expect(state.rows[0]).toEqual({ events: 0, closed: false, counters: 0 });
    await store.close();
  });
});

describe.skipIf(database.skip)("PostgresRunStore: deleting a run while a message is being sent to it", () => {
  for (const how of ["deleteRun", "pruneRuns"] as const) {
    it(`${how} deletes a message whose send held the run's row, instead of leaving it behind`, async () => {
      const store = new PostgresRunStore({ connectionString, schema });
      const runId = `${how}-race`;
      const inbox = runInboxId(runId);
      await store.createRun({ runId, inputs: { input: "x" }, status: "queued", at: 1 });
      const sender = await database.pool().connect();
      try {
        // A send half done, as appendRunMessage does it: the run's row held (shared), the message written, not committed.
        await sender.query("BEGIN");
        await sender.query(`SELECT 1 FROM "${schema}".agentrx_runs WHERE run_id = $1 FOR SHARE`, [runId]);
        await sender.query(`INSERT INTO "${schema}".agentrx_threads (thread_id, last_seq, updated_at) VALUES ($1, 1, 1)`, [inbox]);
        await sender.query(`INSERT INTO "${schema}".agentrx_thread_messages (thread_id, seq, run_id, tokens, at, message) VALUES ($1, 1, NULL, 1, 1, '{}')`, [inbox]);
        const deleting = how === "deleteRun" ? store.deleteRun(runId).then(Number) : store.pruneRuns({ olderThan: Date.now() });
        // The delete waits for the row the send holds.
        await expect
          .poll(async () => (await database.pool().query("SELECT count(*)::integer AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).rows[0].n, { timeout: 10_000 })
          .toBeGreaterThan(0);
        await sender.query("COMMIT");
        expect(await deleting).toBe(1);
        const left = await database.pool().query(`SELECT (SELECT count(*) FROM "${schema}".agentrx_thread_messages WHERE thread_id = $1)::integer AS messages, (SELECT count(*) FROM "${schema}".agentrx_threads WHERE thread_id = $1)::integer AS counters`, [inbox]);
        expect(left.rows[0]).toEqual({ messages: 0, counters: 0 });
      } finally {
        sender.release();
        await store.close();
      }
    });
  }
});

describe.skipIf(database.skip)("PostgresRunStore: close() with calls in flight", () => {
  const event = (seq: number) => ({ seq, type: "step", at: seq, data: { seq } });

  for (const ticks of [0, 1, 2]) {
    it(`lets the calls made before close() finish (close ${ticks} microtask(s) after them) and refuses the calls made after`, { timeout: 20_000 }, async () => {
      database.assertReachable();
      const runId = `in-flight-${ticks}-${Math.random().toString(36).slice(2, 8)}`;
      // connectionTimeoutMs short: a call dropped by the pool's end would fail in 2 s rather than 10.
      const store = new PostgresRunStore({ connectionString, schema, connectionTimeoutMs: 2_000 });
      await store.createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
      const calls = [
        store.write(runId, { owner: "w", epoch: 1, leaseMs: 60_000, events: [event(1)], at: 2 }),
        store.getRun(runId),
        store.listRuns({ limit: 1 }),
        store.readEvents(runId),
        store.createRun({ runId: `${runId}-new`, inputs: {}, status: "queued", at: 3 }),
      ];
      for (let tick = 0; tick < ticks; tick++) await Promise.resolve();
      const closing = store.close();
      const late = await rejectionOf(store.getRun(runId));
      expect(late.message).toMatch(/closed/);
      const outcomes = await Promise.allSettled(calls);
      await closing;
      expect(outcomes.map((outcome) => (outcome.status === "rejected" ? (outcome.reason as Error).message : "fulfilled"))).toEqual(Array(calls.length).fill("fulfilled"));
      const check = new PostgresRunStore({ pool: database.pool(), schema });
      expect((await check.getRun(runId))?.eventCount).toBe(1);
      expect(await check.getRun(`${runId}-new`)).toMatchObject({ status: "queued" });
      await check.close();
    });
  }

  it("finishes a first call still migrating when close() follows in the same tick", { timeout: 20_000 }, async () => {
    database.assertReachable();
    const name = extraSchema();
    const store = new PostgresRunStore({ connectionString, schema: name, connectionTimeoutMs: 2_000 });
    const creating = store.createRun({ runId: "first", inputs: {}, status: "queued", at: 1 });
    await store.close();
    await creating;
    const check = new PostgresRunStore({ pool: database.pool(), schema: name });
    expect((await check.getRun("first"))?.status).toBe("queued");
    await check.close();
  });
});
