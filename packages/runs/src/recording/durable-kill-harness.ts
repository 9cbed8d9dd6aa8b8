// Test-only: drives the processes of durable-kill-child.ts for the steering, fork and memory kill tests.
// A kill point is a marker file the child writes where it stops; the parent waits for it (never
// for a time), looks at the store, and SIGKILLs the child.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { childScript } from "../../../../test/support/child-script";
import type { InDoubtPolicy } from "@agentrx/core";
import type { Decision, RunStore } from "@agentrx/executors";
import { afterAll, beforeAll, describe } from "vitest";
import { PostgresRunStore } from "../postgres/index";
import { SqliteRunStore } from "../sqlite/index";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import type { ChildStoreTarget } from "./child-store";

const CHILD = await childScript(fileURLToPath(new URL("./durable-kill-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** The arguments of one child process (see durable-kill-child.ts). */
export interface ChildArgs {
  mode: "run" | "resume" | "fork" | "send";
  store: ChildStoreTarget;
  runId: string;
  /** Where the markers and the effects file are. */
  dir: string;
  /** Names this process in the effects file. */
  label: string;
  /**
   * Where to stop and tell the parent (a marker file `<dir>/<label>.<point>.blocked`, the point's
   * characters other than letters, digits and `-` made `_`):
   * `model-with-message`: at a model call that was sent a message of the user's (blocks);
   * `model:<n>`: at this process's n-th model call, 0-based (blocks);
   * `inbox-read`: as the run reads its inbox (blocks);
   * `tool:<job>`: at the first line of that job's tool call (blocks);
   * `tool-wait:<job>`: at the first line of that job's tool call, which then waits for the file
   * `<dir>/<label>.release` (the event loop goes on);
   * `fork-copy`: as the fork's copied prefix is about to be written, after its run was created (blocks);
   * `memory-append`: as the conversation memory is about to append the run's messages (blocks);
   * `memory-appended`: once it has appended them (blocks).
   */
  blocks?: string[];
  /** The run's thread: the executor then has a `ThreadMemory` on the same store. */
  threadId?: string;
  inDoubt?: InDoubtPolicy;
  decisions?: Record<string, Decision>;
  /** With `fork`: the source run and where to cut (`runId` is the fork's id). */
  fork?: { sourceId: string; at?: number };
  /** With `send`: the message, sent once the file `<dir>/<go>` exists. */
  message?: string;
  go?: string;
}

/** A child process going on. */
export interface Child {
  /** Resolves with what the child wrote in its marker file of `point` once it wrote it (rejects if it exits first). */
  reached(point: string): Promise<Record<string, unknown>>;
  /** Lets a child waiting in `tool-wait:<job>` go on. */
  release(): void;
  /** Resolves with what the child printed once it exits with 0. */
  result(): Promise<Record<string, unknown>>;
  kill(): Promise<void>;
}

/** Starts a child. */
export function start(args: ChildArgs): Child {
  const child: ChildProcess = spawn(process.execPath, [CHILD, JSON.stringify(args)], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += String(chunk)));
  child.stderr?.on("data", (chunk) => (stderr += String(chunk)));
  let exited = false;
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => ((exited = true), resolve(code))));
  return {
    async reached(point) {
      const markerFile = join(args.dir, `${args.label}.${point.replace(/[^A-Za-z0-9-]/g, "_")}.blocked`);
      while (!existsSync(markerFile)) {
        if (exited) throw new Error(`child ${args.label} exited before it reached ${point}: ${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // Written with one writeFileSync: read it once it has content.
      for (;;) {
        const text = readFileSync(markerFile, "utf8");
        if (text !== "") return JSON.parse(text) as Record<string, unknown>;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    release() {
      writeFileSync(join(args.dir, `${args.label}.release`), "");
    },
    async result() {
      const code = await exit;
      if (code !== 0) throw new Error(`child ${args.label} exited with ${code}: ${stdout}\n${stderr}`);
      return JSON.parse(stdout) as Record<string, unknown>;
    },
    async kill() {
      if (!exited) child.kill("SIGKILL");
      await exit;
    },
  };
}

/** Resolves once the file exists. */
export async function fileWritten(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Runs a child to its end; resolves with what it printed. */
export function run(args: ChildArgs): Promise<Record<string, unknown>> {
  return start(args).result();
}

/** The lines of the effects file written by the child labelled `label` (without the label). */
export function effects(dir: string, label: string): string[] {
  const file = join(dir, "effects.log");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.startsWith(`${label} `))
    .map((line) => line.slice(label.length + 1));
}

/** What each model call of the child labelled `label` was sent: its tool results and the user's messages. */
export function modelCalls(dir: string, label: string): { results: string[]; told: string[] }[] {
  return effects(dir, label)
    .filter((line) => line.startsWith("model "))
    .map((line) => JSON.parse(line.slice("model ".length)) as { results: string[]; told: string[] });
}

/** What a kill test runs against: the parent's store, the children's way to it, and the folder of markers and effects. */
export interface KillSetup {
  store: RunStore;
  target: ChildStoreTarget;
  dir: string;
}

/** Declares kill tests: each case, given its setup, declares its `it`s. */
export type KillCases = ((setup: () => KillSetup) => void)[];

/**
 * Declares `sqlite` under `title (SQLite)` on a file store, and `postgres` under `title
 * (PostgreSQL)` on a schema of its own (skipped with a line saying why without a server, unless
 * `CI` is set); each suite has its own folder of markers, removed afterwards.
 */
export async function describeKillTests(title: string, { sqlite, postgres = [] }: { sqlite: KillCases; postgres?: KillCases }): Promise<void> {
  describe(`${title} (SQLite)`, () => {
    let dir: string;
    let store: SqliteRunStore;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "agentrx-kill-"));
      store = new SqliteRunStore({ path: join(dir, "runs.db") });
    });
    afterAll(async () => {
      await store?.close();
      rmSync(dir, { recursive: true, force: true });
    });
    for (const declare of sqlite) declare(() => ({ store, target: { kind: "sqlite", path: join(dir, "runs.db") }, dir }));
  });
  if (postgres.length === 0) return;
  const database = await postgresTestDatabase(`${title} (PostgreSQL)`);
  describe.skipIf(database.skip)(`${title} (PostgreSQL)`, () => {
    let dir: string;
    let store: PostgresRunStore;
    beforeAll(() => {
      database.assertReachable();
      dir = mkdtempSync(join(tmpdir(), "agentrx-kill-pg-"));
      store = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
    });
    afterAll(async () => {
      await store?.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });
    for (const declare of postgres) declare(() => ({ store, target: { kind: "postgres", connectionString: database.connectionString, schema: database.schema }, dir }));
  });
}
