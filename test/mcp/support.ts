// What the MCP tests share: the fixture server over stdio (a child process) and its event log,
// an agent on a scripted model, and a way to wait for the server to report something.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolCallingAgent } from "@agentrx/agents";
import type { Observation } from "@agentrx/core";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type AgentExecutorOptions, type AgentStreamEvent } from "@agentrx/executors";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { lastValueFrom, toArray, type Observable } from "rxjs";
import type { FixtureEvent } from "./fixtures/fixture-server";

/** The repository's root: the stdio server runs with it as its working directory. */
export const root = join(__dirname, "..", "..");

/** The fixture server over stdio, a child process, with its event log. */
export interface StdioFixture {
  readonly client: MultiServerMCPClient;
  readonly tools: StructuredToolInterface[];
  /** The tool named `name` (fails the test if the server does not list it). */
  tool(name: string): StructuredToolInterface;
  /** What the server recorded so far. */
  events(): (FixtureEvent & { pid: number })[];
  /** Closes the client (which ends the child process) and removes the event log. */
  close(): Promise<void>;
}

/** Starts `node --import tsx test/mcp/fixtures/stdio-server.ts` and loads its tools. */
export async function startStdioFixture({ extraTools = 0 }: { extraTools?: number } = {}): Promise<StdioFixture> {
  const dir = mkdtempSync(join(tmpdir(), "agentrx-mcp-"));
  const eventsFile = join(dir, "events.jsonl");
  writeFileSync(eventsFile, "");
  const client = new MultiServerMCPClient({
    mcpServers: {
      fixture: {
        transport: "stdio",
        command: process.execPath,
        args: ["--import", "tsx", join("test", "mcp", "fixtures", "stdio-server.ts")],
        cwd: root,
        env: { MCP_FIXTURE_EVENTS: eventsFile, MCP_FIXTURE_EXTRA_TOOLS: String(extraTools) },
        stderr: "inherit",
      },
    },
  });
  let tools: StructuredToolInterface[];
  try {
    tools = await client.getTools();
  } catch (error) {
    await client.close(); // never leave the child process behind
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    client,
    tools,
    tool: (name) => byName(tools, name),
    events: () =>
      readFileSync(eventsFile, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as FixtureEvent & { pid: number }),
    close: async () => {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The tool named `name` among `tools`. */
export function byName(tools: readonly StructuredToolInterface[], name: string): StructuredToolInterface {
  const found = tools.find((tool) => tool.name === name);
  if (!found) throw new Error(`No tool "${name}" among ${tools.map((tool) => tool.name).join(", ")}`);
  return found;
}

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a helpful assistant. Use the tools."],
  ["human", "{input}"],
  new MessagesPlaceholder("agent_scratchpad"),
]);

/** An executor whose tool-calling agent plays `responses` on a scripted model (returned too, for its `calls`). */
export function scriptedExecutor(
  responses: ScriptedResponse[],
  tools: StructuredToolInterface[],
  options: Omit<AgentExecutorOptions, "agent" | "tools"> = {},
): { executor: AgentExecutor; model: ScriptedChatModel } {
  const model = new ScriptedChatModel({ responses });
  const agent = createToolCallingAgent({ llm: model, tools, prompt });
  return { executor: new AgentExecutor({ agent, tools, ...options }), model };
}

/** Every event of a run. */
export function allEvents(run: Observable<AgentStreamEvent>): Promise<AgentStreamEvent[]> {
  return lastValueFrom(run.pipe(toArray()));
}

/** The observations of a run's `step` events, by tool name, in order of completion. */
export function observations(events: readonly AgentStreamEvent[]): { tool: string; observation: Observation }[] {
  return events.flatMap((event) => (event.type === "step" ? [{ tool: event.step.action.tool, observation: event.step.observation }] : []));
}

/** Resolves with what `find` returns once it is not undefined; polls every 10 ms for `timeoutMs`. */
export async function waitFor<T>(find: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`waitFor: nothing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Whether a process with this id is running. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
