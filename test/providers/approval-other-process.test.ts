// A run of each reasoning model (@langchain/anthropic with extended thinking, @langchain/openai on
// the Responses API, @langchain/google-genai with thinking, OpenAIChatModel on DeepSeek's thinking
// mode) that pauses for approval in one process, which then exits, and is approved and resumed
// from its store (SQLite, PostgreSQL) in this one: every call valid for the provider (its loopback
// server says so), the reasoning of both tool-call turns sent back exactly as the model sent it.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunStore } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { lastValueFrom } from "rxjs";
import { afterAll, describe, expect, it } from "vitest";
import { type ChildStoreTarget, openChildStore } from "../../packages/runs/src/recording/child-store";
import { postgresTestDatabase } from "../../packages/runs/src/testing/postgres-test-database";
import { type ReasoningProvider, type ReasoningTurn, reasoningModel, startReasoningServer } from "./reasoning-providers";
import { cleanupAfterEach, multiply, toolCallingExecutor, weather } from "./support";
import { childScript } from "../support/child-script";

const CHILD = await childScript(fileURLToPath(new URL("./fixtures/approval-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ANSWER = "Paris and Rome are sunny at 21°C; 21 × 2 = 42.";
const TURNS: ReasoningTurn[] = [
  { reasoning: "Two cities: both at once.", calls: [{ name: "weather", args: { city: "Paris" } }, { name: "weather", args: { city: "Rome" } }] },
  { reasoning: "21 × 2 with the tool.", calls: [{ name: "multiply", args: { a: 21, b: 2 } }] },
  { reasoning: "Done.", text: ANSWER },
];
const expected: Record<ReasoningProvider, string[]> = {
  anthropic: ["Two cities: both at once.", "21 × 2 with the tool."],
  responses: ["Two cities: both at once.", "21 × 2 with the tool."],
  gemini: ["Two cities: both at once. (signed)", "21 × 2 with the tool. (signed)"],
  chat: ["Two cities: both at once.", "21 × 2 with the tool."],
};

const { track, tempDir } = cleanupAfterEach();
const database = await postgresTestDatabase("provider approvals resumed in another process on PostgresRunStore");
afterAll(() => database.drop());

const stores: [string, boolean, (dir: string) => ChildStoreTarget][] = [
  ["SQLite", false, (dir) => ({ kind: "sqlite", path: join(dir, "runs.db") })],
  ["PostgreSQL", database.skip, () => ({ kind: "postgres", connectionString: database.connectionString, schema: database.schema })],
];
const cases = (Object.keys(expected) as ReasoningProvider[]).flatMap((provider) => stores.map(([name, skip, target]) => [provider, name, skip, target] as const));

describe.each(cases)("%s: an approval pause resumed in another process from %s", (provider, name, skip, targetIn) => {
  it.skipIf(skip)("pauses in one process, is approved and resumed in this one, every call valid, the reasoning intact", async () => {
    if (name === "PostgreSQL") database.assertReachable();
    const server = track(await startReasoningServer(provider, TURNS));
    const dir = tempDir(`agentrx-${provider}-approval-`);
    const target = targetIn(dir);
    const out = join(dir, "interrupts.json");
    const runId = `approval-${provider}-${name}`;
    const child = spawn(process.execPath, [CHILD, JSON.stringify({ provider, url: server.url, store: target, runId, out })], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (data) => (stderr += String(data)));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code, stderr).toBe(0);
    const interrupts = JSON.parse(readFileSync(out, "utf8")) as { id: string; tool: string }[];
    expect(interrupts).toMatchObject([{ tool: "multiply" }]);

    const store: RunStore = openChildStore(target);
    try {
      const executor = toolCallingExecutor(reasoningModel(provider, server.url), [weather, withApproval(multiply)], { store });
      const done = await lastValueFrom(executor.resume(runId, { decisions: { [interrupts[0]?.id as string]: "approve" } }));
      expect(server.rejections).toEqual([]);
      expect(done).toMatchObject({ type: "output", output: ANSWER });
      const requests = server.requests();
      expect(requests).toHaveLength(3); // the paused turn's model call was not repeated
      expect(server.reasoningSent(requests[2])).toEqual(expected[provider]);
    } finally {
      await (store as { close?: () => Promise<void> }).close?.();
    }
  }, 90_000);
});
