import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunStore } from "@agentrx/executors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresRunStore } from "../postgres/index";
import { SqliteRunStore } from "../sqlite/index";
import { type PostgresTestDatabase, postgresTestDatabase } from "../testing/postgres-test-database";
import { childScript } from "../../../../test/support/child-script";

const CHILD = await childScript(fileURLToPath(new URL("./fence-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url)); // its tsconfig maps @agentrx/* to sources
const RUNS = 12;
const PROCESSES = 4;

type Target = { kind: "sqlite"; path: string } | { kind: "postgres"; connectionString: string; schema: string };

/**
 * Four processes resume the same queued runs at once with `leaseMs: 500`, each stalling its whole
 * process past the lease on every third agent call, so runs change hands while their old holder
 * still believes it holds them. Fencing must keep every tool call to one start.
 */
async function contend(store: RunStore, target: Target, dir: string): Promise<void> {
  const prefix = Math.random().toString(36).slice(2, 8);
  const runIds = Array.from({ length: RUNS }, (_, i) => `fence-${prefix}-${i}`);
  for (const runId of runIds) await store.createRun({ runId, inputs: { run: runId }, status: "queued", at: Date.now() });
  const effects = join(dir, `${prefix}.log`);
  const args = JSON.stringify({ runIds, effects, stallMs: 700, store: target });
  await Promise.all(
    Array.from({ length: PROCESSES }, () =>
      new Promise<void>((resolve, reject) =>
        execFile(process.execPath, [CHILD, args], { cwd: ROOT, timeout: 90_000 }, (error, _out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve())),
      ),
    ),
  );
  const starts = readFileSync(effects, "utf8").split("\n").filter(Boolean).map((line) => line.split(" ").slice(1, 3).join(" "));
  const counts = new Map<string, number>();
  for (const start of starts) counts.set(start, (counts.get(start) ?? 0) + 1);
  const twice = [...counts].filter(([, count]) => count > 1);
  expect(twice, "tool calls that started more than once").toEqual([]);
  expect(counts.size).toBe(RUNS * 4);
  const epochs: number[] = [];
  for (const runId of runIds) {
    const info = await store.getRun(runId);
    expect(info?.status).toBe("finished");
    epochs.push(info?.epoch ?? 0);
  }
  // Runs did change hands mid-run (a claim beyond the first), which is what fencing is for.
  expect(Math.max(...epochs)).toBeGreaterThanOrEqual(3);
}

describe("four processes resume the same runs with leaseMs 500 (SQLite)", () => {
  let dir: string;
  let store: SqliteRunStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentrx-fence-"));
    store = new SqliteRunStore({ path: join(dir, "runs.db") });
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("no tool call starts twice, though runs change hands mid-run", async () => {
    await contend(store, { kind: "sqlite", path: join(dir, "runs.db") }, dir);
  }, 120_000);
});

const database: PostgresTestDatabase = await postgresTestDatabase("fencing across processes (PostgreSQL)");

describe.skipIf(database.skip)("four processes resume the same runs with leaseMs 500 (PostgreSQL)", () => {
  let dir: string;
  let store: PostgresRunStore;
  beforeAll(() => {
    database.assertReachable();
    dir = mkdtempSync(join(tmpdir(), "agentrx-fence-pg-"));
    store = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
  });
  afterAll(async () => {
    await store?.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("no tool call starts twice, though runs change hands mid-run", async () => {
    await contend(store, { kind: "postgres", connectionString: database.connectionString, schema: database.schema }, dir);
  }, 120_000);
});
