// Runs-search scenario (docs/runs.md): `listRuns` over 100,000 runs in MemoryRunStore, SQLite (a temporary file)
// and PostgreSQL (a schema of its own; left out when the server is not reachable): a full-text
// search for a rare word and for a common one, a search sorted by cost, the page after a cursor,
// and a filter without search. The rows are inserted in bulk by SQL with the columns the stores
// write (input and answer text, cost, the search words every store indexes), then one
// run is recorded through the store API so its own path is in the table too.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MemoryRunStore, PostgresRunStore, SqliteRunStore, type ListRunsOptions, type RunStore } from "@agentrx/runs";
import Database from "better-sqlite3";
import { searchWordsOf } from "../packages/runs/src/internal/search-words";
import { median } from "./measure";
import type { Row } from "./scenarios";

const RUNS = 100_000;
const TARGET_MS = 200;
const CITIES = Array.from({ length: 500 }, (_, i) => `city${i.toString(36)}`);
const TOPICS = ["weather", "flights", "hotels", "trains", "museums", "food", "prices", "events"];
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** The i-th synthetic run: an input naming a topic and a city, an answer, a cost, a status. */
function runOf(i: number) {
  const city = CITIES[(i * 7919) % CITIES.length]!;
  const topic = TOPICS[i % TOPICS.length]!;
  const rare = i % 1000 === 0 ? " zanzibar" : "";
  return {
    runId: `run-${String(i).padStart(6, "0")}`,
    input: `What about ${topic} in ${city}${rare}? Please answer briefly.`,
    answer: `The ${topic} in ${city} look fine today.`,
    cost: (i % 97) / 1000,
    status: i % 50 === 0 ? "failed" : "finished",
    error: i % 50 === 0 ? "Tool failed" : null,
    at: 1_700_000_000_000 + i * 1000,
  };
}

const QUERIES: [string, ListRunsOptions][] = [
  ["search a rare word (100 hits)", { search: "zanzibar", limit: 50 }],
  ["search a common word (12.5k hits)", { search: "weather", limit: 50 }],
  ["search two words, by cost", { search: "hotels city1", sort: "cost", limit: 50 }],
  ["filter failed + cost, no search", { status: "failed", minCost: 0.05, limit: 50 }],
];

async function timeQueries(label: string, store: RunStore): Promise<Row[]> {
  // The rows are the ones the stores write: a search finds what it should (a bulk insert that
  // missed a column the search reads would time empty answers).
  const rare = await store.listRuns({ search: "zanzibar", limit: 1000 });
  if (rare.length !== RUNS / 1000) throw new Error(`runs-search: ${label} found ${rare.length} runs for "zanzibar", not ${RUNS / 1000}`);
  const rows: Row[] = [];
  for (const [name, query] of QUERIES) {
    await store.listRuns(query); // warm up: statement preparation, caches
    const times: number[] = [];
    for (let n = 0; n < 15; n++) {
      const started = performance.now();
      await store.listRuns(query);
      times.push(performance.now() - started);
    }
    const ms = median(times);
    rows.push({ scenario: "runs-search", metric: `${label}: ${name}, ms`, agentrx: ms, check: { label: "ms", value: ms, limit: TARGET_MS } });
  }
  const first = await store.listRuns({ search: "weather", limit: 50 });
  const cursor = first.at(-1)?.cursor;
  const times: number[] = [];
  for (let n = 0; n < 15; n++) {
    const started = performance.now();
    await store.listRuns({ search: "weather", limit: 50, ...(cursor ? { cursor } : {}) });
    times.push(performance.now() - started);
  }
  const ms = median(times);
  rows.push({ scenario: "runs-search", metric: `${label}: next page of the common search, ms`, agentrx: ms, check: { label: "ms", value: ms, limit: TARGET_MS } });
  return rows;
}

/** Records one real run through the store API, and checks a search finds it. */
async function recordOne(store: RunStore): Promise<void> {
  const at = 1_700_000_000_000 + RUNS * 1000 + 1;
  await store.createRun({ runId: "api-run", inputs: { input: "Through the API to Timbuktu" }, status: "running", owner: "bench", leaseMs: 60_000, at });
  await store.write("api-run", { owner: "bench", leaseMs: 60_000, events: [{ seq: 1, type: "output", at, data: { type: "output", at, output: "Arrived." } }], update: { status: "finished", release: true }, at: at + 1 });
  const found = await store.listRuns({ search: "timbukt" });
  if (found[0]?.runId !== "api-run") throw new Error("runs-search: the run recorded through the store API was not found");
}

async function sqlite(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "agentrx-search-"));
  const path = join(dir, "runs.db");
  try {
    const store = new SqliteRunStore({ path });
    await store.listRuns({ limit: 1 }); // creates the schema
    await store.close();
    const db = new Database(path);
    const started = performance.now();
    const insert = db.prepare(
      `INSERT INTO agentrx_runs (run_id, status, inputs, usage, error, created_at, updated_at, event_count, epoch, input_text, answer_text, cost_usd, input_words, answer_words)
       VALUES (?, ?, ?, ?, ?, ?, ?, 1, 1, ?, ?, ?, ?, ?)`,
    );
    db.transaction(() => {
      for (let i = 0; i < RUNS; i++) {
        const run = runOf(i);
        const usage = JSON.stringify({ input_tokens: 100, output_tokens: 10, total_tokens: 110, cost: { input: run.cost / 2, output: run.cost / 2, total: run.cost, currency: "USD" } });
        insert.run(run.runId, run.status, JSON.stringify({ input: run.input }), usage, run.error, run.at, run.at + 500, run.input, run.answer, run.cost, searchWordsOf(run.input), searchWordsOf(run.answer));
      }
    })();
    db.close();
    process.stderr.write(`runs-search: ${RUNS} SQLite rows in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    const reopened = new SqliteRunStore({ path });
    await recordOne(reopened);
    const rows = await timeQueries("SQLite", reopened);
    await reopened.close();
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(): Promise<Row[]> {
  const schema = `agentrx_bench_${Math.random().toString(36).slice(2, 8)}`;
  const store = new PostgresRunStore({ connectionString: DATABASE_URL, schema });
  try {
    await store.listRuns({ limit: 1 });
  } catch (error) {
    process.stderr.write(`PostgreSQL is not reachable (${(error as Error).message}): its runs-search rows are left out.\n`);
    await store.close().catch(() => undefined);
    return [];
  }
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const started = performance.now();
    for (let from = 0; from < RUNS; from += 5000) {
      const runs = Array.from({ length: Math.min(5000, RUNS - from) }, (_, k) => runOf(from + k));
      await client.query(
        `INSERT INTO "${schema}".agentrx_runs (run_id, status, inputs, usage, error, created_at, updated_at, event_count, epoch, input_text, answer_text, cost_usd, input_vector, answer_vector)
         SELECT r.run_id, r.status, json_build_object('input', r.input)::text, json_build_object('input_tokens', 100, 'output_tokens', 10, 'total_tokens', 110, 'cost', json_build_object('total', r.cost))::text,
                r.error, r.at, r.at + 500, 1, 1, r.input, r.answer, r.cost, array_to_tsvector(string_to_array(r.input_words, ' ')), array_to_tsvector(string_to_array(r.answer_words, ' '))
         FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::float8[], $8::text[], $9::text[]) AS r (run_id, status, error, at, input, answer, cost, input_words, answer_words)`,
        [
          runs.map((r) => r.runId), runs.map((r) => r.status), runs.map((r) => r.error), runs.map((r) => r.at), runs.map((r) => r.input), runs.map((r) => r.answer), runs.map((r) => r.cost),
          runs.map((r) => searchWordsOf(r.input)), runs.map((r) => searchWordsOf(r.answer)),
        ],
      );
    }
    await client.query(`ANALYZE "${schema}".agentrx_runs`);
    process.stderr.write(`runs-search: ${RUNS} PostgreSQL rows in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    await recordOne(store);
    return await timeQueries("PostgreSQL", store);
  } finally {
    await store.close();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}

/** MemoryRunStore, filled through its API (it scans its rows: fine for tests and scripts). */
async function memory(): Promise<Row[]> {
  const store = new MemoryRunStore();
  for (let i = 0; i < RUNS; i++) {
    const run = runOf(i);
    await store.createRun({ runId: run.runId, inputs: { input: run.input }, status: "running", owner: "bench", leaseMs: 60_000, at: run.at });
    const usage = { input_tokens: 100, output_tokens: 10, total_tokens: 110, cost: { input: run.cost / 2, output: run.cost / 2, total: run.cost, currency: "USD" as const } };
    const events = [{ seq: 1, type: "output", at: run.at, data: { type: "output", at: run.at, output: run.answer } }];
    await store.write(run.runId, { owner: "bench", leaseMs: 60_000, events, update: { status: run.status as "finished" | "failed", release: true, usage, ...(run.error ? { error: run.error } : {}) }, at: run.at + 500 });
  }
  await recordOne(store);
  return timeQueries("MemoryRunStore", store);
}

export async function runsSearch(): Promise<Row[]> {
  return [...(await memory()), ...(await sqlite()), ...(await postgres())];
}
