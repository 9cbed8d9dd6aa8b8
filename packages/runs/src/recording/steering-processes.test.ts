import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AgentStep, isMessageStep } from "@agentrx/core";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { PostgresRunStore } from "../postgres/index";
import { SqliteRunStore } from "../sqlite/index";
import { type PostgresTestDatabase, postgresTestDatabase } from "../testing/postgres-test-database";
import type { ChildStoreTarget } from "./child-store";
import { childScript } from "../../../../test/support/child-script";

const CHILD = await childScript(fileURLToPath(new URL("./steer-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url)); // its tsconfig maps @agentrx/* to sources

/** Runs the child that sends `message` to `runId` through the store; resolves with what it printed. */
function sendFromAnotherProcess(target: ChildStoreTarget, runId: string, message: string): Promise<{ ok?: Record<string, unknown>; error?: string; message?: string }> {
  const args = JSON.stringify({ store: target, runId, message });
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [CHILD, args], { cwd: ROOT, timeout: 60_000 }, (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(JSON.parse(out)))),
  );
}

/**
 * This process runs an agent whose tool waits; another process sends "Also check Rome." through
 * the store meanwhile. The message must join the run after the tool's step, before the next agent
 * call, and be in the record; a message for the finished run is refused in the other process.
 */
async function steerAcrossProcesses(store: RunStore, target: ChildStoreTarget): Promise<void> {
  const runId = `steer-${Math.random().toString(36).slice(2, 8)}`;
  let open: () => void = () => undefined;
  let started: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const toolStarted = new Promise<void>((resolve) => (started = resolve));
  const search = tool(
    async ({ city }: { city: string }) => {
      started();
      await gate;
      return `${city}: sunny`;
    },
    { name: "search", description: "Searches.", schema: z.object({ city: z.string() }) },
  );
  const seen: AgentStep[][] = [];
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
    seen.push(input.steps);
    if (input.steps.length === 0) return { tool: "search", toolInput: { city: "Paris" }, log: "", toolCallId: "c1" };
    const sent = input.steps.filter(isMessageStep).map((step) => step.observation);
    return { returnValues: { output: `Paris is sunny; asked also: ${sent.join(", ")}` }, log: "" };
  });
  const executor = new AgentExecutor({ agent, tools: [search], store });
  const result = lastValueFrom(executor.invoke({ input: "Weather?" }, { runId }));
  await toolStarted;
  const sent = await sendFromAnotherProcess(target, runId, "Also check Rome.");
  expect(sent).toEqual({ ok: { runId, inboxSeq: 1, status: "running" } });
  open();
  expect((await result).output).toBe("Paris is sunny; asked also: Also check Rome.");
  expect(seen[1]?.map((step) => step.action.tool)).toEqual(["search", "_Message"]);
  const types = (await store.readEvents(runId)).map((event) => event.type).filter((type) => type !== "usage" && type !== "model_call");
  expect(types).toEqual(["start", "action", "step", "message", "output"]);
  const late = await sendFromAnotherProcess(target, runId, "And Oslo?");
  expect(late).toMatchObject({ error: "RunFinishedError" });
  expect(late.message).toMatch(/finished \(finish\) before the message arrived/);
}

describe("a message sent from another process (SQLite)", () => {
  let dir: string;
  let store: SqliteRunStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentrx-steer-"));
    store = new SqliteRunStore({ path: join(dir, "runs.db") });
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("joins the running run at its next turn boundary", async () => {
    await steerAcrossProcesses(store, { kind: "sqlite", path: join(dir, "runs.db") });
  }, 120_000);
});

const database: PostgresTestDatabase = await postgresTestDatabase("steering across processes (PostgreSQL)");

describe.skipIf(database.skip)("a message sent from another process (PostgreSQL)", () => {
  let store: PostgresRunStore;
  beforeAll(() => {
    database.assertReachable();
    store = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
  });
  afterAll(async () => {
    await store?.close();
    await database.drop();
  });

  it("joins the running run at its next turn boundary", async () => {
    await steerAcrossProcesses(store, { kind: "postgres", connectionString: database.connectionString, schema: database.schema });
  }, 120_000);
});
