// What the provider tests share (test/providers and test/e2e/openai-compatible-executor.test.ts):
// the agent setup (./agent-setup.ts), servers and directories cleaned up after each test, the
// eagerTools probe, the sub-agent run and the approval resumed from SQLite.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolCallingAgent } from "@agentrx/agents";
import { AgentExecutor } from "@agentrx/executors";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { afterEach, expect } from "vitest";
import { z } from "zod";
import { multiply, prompt, toolCallingExecutor, weather } from "./agent-setup";

export { multiply, prompt, toolCallingExecutor, weather } from "./agent-setup";

/**
 * Registers an `afterEach` that closes the servers given to `track` and removes the directories
 * made by `tempDir` during the test. Call once, at the top of a test file.
 */
export function cleanupAfterEach(): { track<T extends { close(): Promise<void> }>(server: T): T; tempDir(prefix: string): string } {
  const servers: { close(): Promise<void> }[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.allSettled(servers.splice(0).map((server) => server.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    track(server) {
      servers.push(server);
      return server;
    },
    tempDir(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
}

/** Polls `check` every 20 ms until it holds; fails naming `what` after `timeoutMs`. */
export async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Streams a run with `eagerTools` (or without) of the tool-calling agent on `llm` with a weather
 * tool that logs `start <city>`; the agent logs `agent returned` when the model's answer is
 * complete, so the log tells whether a tool started before it.
 */
export async function eagerToolsRun(llm: BaseChatModel, eagerTools = true) {
  const log: string[] = [];
  const logged = tool(
    async ({ city }) => {
      log.push(`start ${city}`);
      return `Sunny in ${city}.`;
    },
    { name: "weather", description: "Current weather in a city.", schema: z.object({ city: z.string() }) },
  );
  const inner = createToolCallingAgent({ llm, tools: [logged], prompt });
  const agent = RunnableLambda.from(async (input: Record<string, unknown>, config) => {
    const output = await inner.invoke(input as never, config);
    log.push("agent returned");
    return output;
  });
  const events = await lastValueFrom(new AgentExecutor({ agent, tools: [logged], eagerTools }).stream({ input: "Weather?" }).pipe(toArray()));
  return { log, events };
}

/**
 * Runs an agent on `llm()` whose one tool, `researcher`, is a sub-agent on `llm()` with
 * {@link weather}, and returns the outer run's output.
 */
export async function subAgentRun(llm: () => BaseChatModel): Promise<string> {
  const research = toolCallingExecutor(llm(), [weather]).asTool({ name: "researcher", description: "Researches a question." });
  const result = await lastValueFrom(toolCallingExecutor(llm(), [research]).invoke({ input: "Ask the researcher about Paris." }));
  return result.output as string;
}

/** Asserts that an {@link eagerToolsRun} started all `count` tools, the first before the model's answer was complete. */
export function expectEarlyStarts(log: string[], count: number): void {
  expect(log.indexOf("start Paris")).toBeGreaterThanOrEqual(0);
  expect(log.indexOf("start Paris")).toBeLessThan(log.indexOf("agent returned"));
  expect(log.filter((line) => line.startsWith("start"))).toHaveLength(count);
}

/**
 * Runs the tool-calling agent on `llm()` with {@link weather} and an approval-guarded
 * {@link multiply} on a SQLite store at `path` until it pauses (asserting it paused on multiply),
 * then resumes it, approved, with another executor and store on the same file.
 */
export async function approvalResumedFromSqlite(llm: () => BaseChatModel, path: string, input: string): Promise<{ output: string }> {
  const { SqliteRunStore } = await import("@agentrx/runs");
  const { withApproval } = await import("@agentrx/tools");
  const guarded = withApproval(multiply);
  const build = (store: InstanceType<typeof SqliteRunStore>) => toolCallingExecutor(llm(), [weather, guarded], { store });
  const firstStore = new SqliteRunStore({ path });
  const paused = await lastValueFrom(build(firstStore).invoke({ input }, { runId: "paused-run" }));
  expect(paused.interrupts).toMatchObject([{ tool: "multiply" }]);
  await firstStore.close();
  const secondStore = new SqliteRunStore({ path });
  try {
    const done = await lastValueFrom(build(secondStore).resume("paused-run", { decisions: { [paused.interrupts?.[0]?.id as string]: "approve" } }));
    expect(done).toMatchObject({ type: "output" });
    return { output: (done as { output: string }).output };
  } finally {
    await secondStore.close();
  }
}

/**
 * Runs the tool-calling agent on `llm` with {@link weather} twice on one thread, with a
 * `ThreadMemory` that keeps tool messages (asking about Paris, then Rome), and returns the second
 * run's output.
 */
export async function twoRunsWithMemory(llm: BaseChatModel): Promise<string> {
  const { MemoryRunStore, ThreadMemory } = await import("@agentrx/runs");
  const memory = new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 100_000, includeToolMessages: true });
  const executor = toolCallingExecutor(llm, [weather], { memory: { memory } });
  await lastValueFrom(executor.invoke({ input: "Paris?" }, { threadId: "t1" }));
  return (await lastValueFrom(executor.invoke({ input: "And Rome?" }, { threadId: "t1" }))).output as string;
}
