// A run of @langchain/anthropic with extended thinking, killed with SIGKILL mid-turn in one
// process and resumed from SQLite in this one: every call is valid for Anthropic (the loopback
// server says so), with the thinking blocks of both turns sent back exactly as the model sent them.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createToolCallingAgent } from "@agentrx/agents";
import { type AnthropicLoopbackTurn, startAnthropicMessagesServer } from "@agentrx/core/testing";
import { AgentExecutor, RunBusyError } from "@agentrx/executors";
import { SqliteRunStore } from "@agentrx/runs";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const CHILD = fileURLToPath(new URL("./fixtures/anthropic-crash-child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCRIPT: AnthropicLoopbackTurn[] = [
  { thinking: "Both cities at once.", toolCalls: [{ name: "weather", input: { city: "Paris" } }, { name: "weather", input: { city: "Rome" } }] },
  { thinking: "Now the report.", toolCalls: [{ name: "report", input: {} }] },
  { thinking: "All done.", text: "Sunny in both; report written." },
];

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("@langchain/anthropic with extended thinking: a crash and a resume from SQLite", () => {
  it("resumes a run killed mid-turn in another process, every call valid, the thinking intact", async () => {
    const server = await startAnthropicMessagesServer({ responses: SCRIPT });
    const dir = mkdtempSync(join(tmpdir(), "agentrx-anthropic-crash-"));
    const path = join(dir, "runs.db");
    const effects = join(dir, "effects.log");
    const store = new SqliteRunStore({ path });
    try {
      const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", CHILD, JSON.stringify({ url: server.url, path, runId: "crash-a", effects })], { cwd: ROOT, stdio: "ignore" });
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

      const weather = tool(async ({ city }) => `Sunny in ${city}.`, { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) });
      const report = tool(async () => "Report written.", { name: "report", description: "Writes the report.", schema: z.object({}) });
      const llm = new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test", anthropicApiUrl: server.url, maxTokens: 4096, thinking: { type: "enabled", budget_tokens: 2048 }, maxRetries: 0 });
      const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
      const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [weather, report], prompt }), tools: [weather, report], store, leaseMs: 400 });
      let output: { output: string } | undefined;
      await until(async () => {
        try {
          output = (await lastValueFrom(executor.resume("crash-a"))) as { output: string };
          return true;
        } catch (error) {
          if (RunBusyError.isInstance(error)) return false; // the dead process's lease has not expired yet
          throw error;
        }
      }, "the lease of the killed process to expire");

      expect(server.rejections).toEqual([]);
      expect(output?.output).toBe("Sunny in both; report written.");
      const requests = server.messageRequests();
      expect(requests).toHaveLength(3); // no model call was repeated
      const thinking = requests[2].messages
        .filter((message: { role: string }) => message.role === "assistant")
        .map((message: { content: { type: string; thinking?: string }[] }) => message.content[0]);
      expect(thinking).toMatchObject([
        { type: "thinking", thinking: SCRIPT[0]?.thinking },
        { type: "thinking", thinking: SCRIPT[1]?.thinking },
      ]);
    } finally {
      await store.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
