// A run of a reasoning model (@langchain/anthropic with extended thinking, @langchain/openai on the
// Responses API, @langchain/google-genai with thinking, OpenAIChatModel on DeepSeek's thinking mode
// behind Chat Completions), killed with SIGKILL mid-turn in one process and resumed from its store
// (SQLite, PostgreSQL) in this one: every call is valid for the provider (its loopback server says
// so), with the reasoning of both turns sent back exactly as the model sent it.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startAnthropicMessagesServer, startGoogleGenAIServer, startOpenAICompatibleServer, startOpenAIResponsesServer } from "@agentrx/core/testing";
import { RunBusyError, type RunStore } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChildStoreTarget } from "../../packages/runs/src/recording/child-store";
import { openChildStore } from "../../packages/runs/src/recording/child-store";
import { postgresTestDatabase } from "../../packages/runs/src/testing/postgres-test-database";
import { anthropicThinking, chatReasoning, geminiThinking, responsesReasoning } from "./models";
import { cleanupAfterEach, toolCallingExecutor, until } from "./support";

const CHILD = fileURLToPath(new URL("./fixtures/crash-child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ANSWER = "Sunny in both; report written.";

/** Each provider's server playing the same run, and what its last request must carry back. */
const providers = {
  anthropic: {
    llm: (url: string) => anthropicThinking(url),
    async start() {
      const server = await startAnthropicMessagesServer({
        responses: [
          { thinking: "Both cities at once.", toolCalls: [{ name: "weather", input: { city: "Paris" } }, { name: "weather", input: { city: "Rome" } }] },
          { thinking: "Now the report.", toolCalls: [{ name: "report", input: {} }] },
          { thinking: "All done.", text: ANSWER },
        ],
      });
      return {
        url: server.url,
        server,
        requests: () => server.messageRequests(),
        // The thinking blocks of both turns, first in their messages.
        reasoningSent: (request: any) =>
          request.messages.filter((message: { role: string }) => message.role === "assistant").map((message: { content: { thinking?: string }[] }) => message.content[0]?.thinking),
        expected: ["Both cities at once.", "Now the report."],
      };
    },
  },
  responses: {
    llm: (url: string) => responsesReasoning(`${url}/v1`),
    async start() {
      const server = await startOpenAIResponsesServer({
        responses: [
          { reasoning: "Both cities at once.", toolCalls: [{ name: "weather", arguments: { city: "Paris" } }, { name: "weather", arguments: { city: "Rome" } }] },
          { reasoning: "Now the report.", toolCalls: [{ name: "report", arguments: {} }] },
          { reasoning: "All done.", text: ANSWER },
        ],
      });
      return {
        url: server.url,
        server,
        requests: () => server.responseRequests(),
        // The reasoning items of both turns, each before its calls.
        reasoningSent: (request: any) => request.input.filter((item: { type?: string }) => item.type === "reasoning").map((item: { id: string }) => item.id),
        expected: ["rs_loopback_0", "rs_loopback_1"],
      };
    },
  },
  gemini: {
    llm: (url: string) => geminiThinking(url),
    async start() {
      const server = await startGoogleGenAIServer({
        responses: [
          { thinking: "Both cities at once.", toolCalls: [{ name: "weather", args: { city: "Paris" } }, { name: "weather", args: { city: "Rome" } }] },
          { thinking: "Now the report.", toolCalls: [{ name: "report", args: {} }] },
          { thinking: "All done.", text: ANSWER },
        ],
      });
      return {
        url: server.url,
        server,
        requests: () => server.contentRequests(),
        // Each model turn's thought, and whether its first call carries a signature (the server
        // refuses a forged one).
        reasoningSent: (request: any) =>
          request.contents
            .filter((content: { role: string }) => content.role === "model")
            .map((content: { parts: { text?: string; thought?: boolean; thoughtSignature?: string }[] }) => `${content.parts[0]?.thought ? content.parts[0].text : "-"}${content.parts[1]?.thoughtSignature ? " (signed)" : ""}`),
        expected: ["Both cities at once. (signed)", "Now the report. (signed)"],
      };
    },
  },
  chat: {
    llm: (url: string) => chatReasoning(`${url}/v1`),
    async start() {
      const server = await startOpenAICompatibleServer({
        requireReasoningBack: true,
        responses: [
          { reasoning: "Both cities at once.", toolCalls: [{ name: "weather", arguments: { city: "Paris" } }, { name: "weather", arguments: { city: "Rome" } }] },
          { reasoning: "Now the report.", toolCalls: [{ name: "report", arguments: {} }] },
          { reasoning: "All done.", content: ANSWER },
        ],
      });
      return {
        url: server.url,
        server,
        requests: () => server.chatRequests(),
        // The reasoning_content of both tool-call turns.
        reasoningSent: (request: any) =>
          request.messages.filter((message: { role: string }) => message.role === "assistant").map((message: { reasoning_content?: string }) => message.reasoning_content),
        expected: ["Both cities at once.", "Now the report."],
      };
    },
  },
};

const { track, tempDir } = cleanupAfterEach();
const database = await postgresTestDatabase("provider crash and resume on PostgresRunStore");
afterAll(() => database.drop());

const stores: [string, boolean, (dir: string) => ChildStoreTarget][] = [
  ["SQLite", false, (dir) => ({ kind: "sqlite", path: join(dir, "runs.db") })],
  ["PostgreSQL", database.skip, () => ({ kind: "postgres", connectionString: database.connectionString, schema: database.schema })],
];
const cases = (Object.keys(providers) as (keyof typeof providers)[]).flatMap((provider) => stores.map(([name, skip, target]) => [provider, name, skip, target] as const));

describe.each(cases)("%s: a crash and a resume from %s", (provider, name, skip, targetIn) => {
  it.skipIf(skip)("resumes a run killed mid-turn in another process, every call valid, the reasoning intact", async () => {
    if (name === "PostgreSQL") database.assertReachable();
    const { server, url, requests: requestsOf, reasoningSent, expected } = await providers[provider].start();
    track(server);
    const dir = tempDir(`agentrx-${provider}-crash-`);
    const effects = join(dir, "effects.log");
    const target = targetIn(dir);
    const runId = `crash-${provider}-${name}`;
    const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", CHILD, JSON.stringify({ provider, url, store: target, runId, effects })], { cwd: ROOT, stdio: "ignore" });
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
      const executor = toolCallingExecutor(providers[provider].llm(url), [weather, report], { store, leaseMs: 400 });
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
      const requests = requestsOf();
      expect(requests).toHaveLength(3); // no model call was repeated
      expect(reasoningSent(requests[2])).toEqual(expected);
    } finally {
      await (store as { close?: () => Promise<void> }).close?.();
    }
  }, 90_000);
});
