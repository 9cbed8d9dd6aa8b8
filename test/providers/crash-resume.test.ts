// A run of a reasoning model (@langchain/anthropic with extended thinking, @langchain/openai on the
// Responses API, @langchain/google-genai with thinking, OpenAIChatModel on DeepSeek's thinking mode
// behind Chat Completions), killed with SIGKILL mid-turn in one process and resumed from its store
// (SQLite, PostgreSQL) in this one: every call is valid for the provider (its loopback server says
// so), with the reasoning of both turns sent back exactly as the model sent it.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RunBusyError, type RunStore } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChildStoreTarget } from "../../packages/runs/src/recording/child-store";
import { openChildStore } from "../../packages/runs/src/recording/child-store";
import { postgresTestDatabase } from "../../packages/runs/src/testing/postgres-test-database";
import { type ReasoningProvider, type ReasoningTurn, reasoningModel, startReasoningServer } from "./reasoning-providers";
import { cleanupAfterEach, toolCallingExecutor, until } from "./support";
import { childScript } from "../support/child-script";

const CHILD = await childScript(fileURLToPath(new URL("./fixtures/crash-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ANSWER = "Sunny in both; report written.";

/** The run every provider plays: both cities at once, then the report (killed there), then the answer. */
const TURNS: ReasoningTurn[] = [
  { reasoning: "Both cities at once.", calls: [{ name: "weather", args: { city: "Paris" } }, { name: "weather", args: { city: "Rome" } }] },
  { reasoning: "Now the report.", calls: [{ name: "report", args: {} }] },
  { reasoning: "All done.", text: ANSWER },
];
/** What the last request must carry back of the two tool-call turns' reasoning. */
const expected: Record<ReasoningProvider, string[]> = {
  anthropic: ["Both cities at once.", "Now the report."],
  responses: ["Both cities at once.", "Now the report."],
  gemini: ["Both cities at once. (signed)", "Now the report. (signed)"],
  chat: ["Both cities at once.", "Now the report."],
};
const providers = Object.keys(expected) as ReasoningProvider[];

const { track, tempDir } = cleanupAfterEach();
const database = await postgresTestDatabase("provider crash and resume on PostgresRunStore");
afterAll(() => database.drop());

const stores: [string, boolean, (dir: string) => ChildStoreTarget][] = [
  ["SQLite", false, (dir) => ({ kind: "sqlite", path: join(dir, "runs.db") })],
  ["PostgreSQL", database.skip, () => ({ kind: "postgres", connectionString: database.connectionString, schema: database.schema })],
];
const cases = providers.flatMap((provider) => stores.map(([name, skip, target]) => [provider, name, skip, target] as const));

describe.each(cases)("%s: a crash and a resume from %s", (provider, name, skip, targetIn) => {
  it.skipIf(skip)("resumes a run killed mid-turn in another process, every call valid, the reasoning intact", async () => {
    if (name === "PostgreSQL") database.assertReachable();
    const server = track(await startReasoningServer(provider, TURNS));
    const url = server.url;
    const dir = tempDir(`agentrx-${provider}-crash-`);
    const effects = join(dir, "effects.log");
    const target = targetIn(dir);
    const runId = `crash-${provider}-${name}`;
    const child: ChildProcess = spawn(process.execPath, [CHILD, JSON.stringify({ provider, url, store: target, runId, effects })], { cwd: ROOT, stdio: "ignore" });
    try {
      await until(() => {
        try {
          return readFileSync(effects, "utf8").includes("start report");
        } catch {
          return false;
        }
      }, "the second turn's tool in flight");
    } finally {
      child.kill("SIGKILL");
    }
    await new Promise((resolve) => child.once("exit", resolve));

    const store: RunStore = openChildStore(target);
    try {
      const weather = tool(async ({ city }) => `Sunny in ${city}.`, { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
      const report = tool(async () => "Report written.", { name: "report", description: "Writes the report.", schema: z.object({}) });
      const executor = toolCallingExecutor(reasoningModel(provider, url), [weather, report], { store, leaseMs: 400 });
      let output: { output: string } | undefined;
      await until(async () => {
        try {
          output = (await lastValueFrom(executor.resume(runId))) as { output: string };
          return true;
        } catch (error) {
          if (RunBusyError.isInstance(error)) return false; // the dead process's lease has not expired yet
          throw error;
        }
      }, "the lease of the killed process to expire");

      expect(server.rejections).toEqual([]);
      expect(output?.output).toBe(ANSWER);
      const requests = server.requests();
      expect(requests).toHaveLength(3); // no model call was repeated
      expect(server.reasoningSent(requests[2])).toEqual(expected[provider]);
    } finally {
      await (store as { close?: () => Promise<void> }).close?.();
    }
  }, 90_000);
});
