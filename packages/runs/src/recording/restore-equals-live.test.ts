// The differential test of docs/runs.md's promise that "a restored run equals the live one by
// construction": each scenario runs a recorded executor, takes the LIVE run's final RunState (through
// the executor's internal `executorRunProbe` seam), folds the record with `restoreRunState` (what
// `resume` and `fork` do) and asserts the two states are deeply equal. Paused runs are compared at
// the pause and again when the resume ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolCallingAgent } from "@agentrx/agents";
import type { AgentStep } from "@agentrx/core";
import { ScriptedChatModel, type ScriptedResponse, deferred } from "@agentrx/core/testing";
import {
  AgentExecutor,
  type AgentExecutorOptions,
  type AgentStreamEvent,
  type Decision,
  type RunState,
  type RunStore,
  compactSteps,
  detectRepeatedCalls,
  finalAnswerTool,
  guardrail,
  restoreRunState,
  stopRun,
  tokenBudget,
  toolCallBudget,
} from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { type BaseMessage, isBaseMessage } from "@langchain/core/messages";
import { OutputParserException } from "@langchain/core/output_parsers";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { type Observable, lastValueFrom, toArray } from "rxjs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ExecutorRun, executorRunProbe } from "../../../executors/src/executor/executor-run";
// The store an executor makes for itself (approvals without a store); not exported by the package.
import { InProcessRunStore } from "../../../executors/src/runs/in-process-run-store";
import { MemoryRunStore } from "../memory/index";
import { replayRun } from "../replay/replay-run";
import { SqliteRunStore } from "../sqlite/index";
import { ThreadMemory } from "../thread-memory/index";
import { durableFixture } from "./durable-test-fixtures";

const dir = mkdtempSync(join(tmpdir(), "agentrx-restore-live-"));
/** Every run the executor made in this file, in order (a resume makes a run of its own). */
const made: ExecutorRun[] = [];
const opened: RunStore[] = [];
beforeAll(() => {
  executorRunProbe.made = (run) => void made.push(run);
});
afterEach(async () => {
  made.length = 0;
  await Promise.all(opened.splice(0).map((store) => store.close?.()));
});
afterAll(() => {
  executorRunProbe.made = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const stores: Record<"memory" | "in-process" | "sqlite", () => RunStore> = {
  memory: () => new MemoryRunStore(),
  "in-process": () => new InProcessRunStore(),
  sqlite: () => new SqliteRunStore({ path: join(dir, `runs-${Math.random().toString(36).slice(2)}.db`) }),
};

const collect = <T>(source: Observable<T>) => lastValueFrom(source.pipe(toArray()));
const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/**
 * What is legitimately different between the live state and the restored one (everything else
 * must be equal):
 * - `elapsedMs`: wall-clock time. The live state holds the earlier segments' time only (the current
 *   segment's is counted from `startedAt`); the restored one takes the last checkpoint's, which
 *   includes the recorded segment. Checked separately: the restored value is never less.
 * - `turn.keys`: a restored turn carries the idempotency key recorded with each action; a live turn
 *   makes its keys as its calls start (RunTurn.keys, docs/runs.md). Checked separately: each
 *   recorded key is the key the live run gives that action.
 * - messages (an action's `messageLog`): the record keeps them in @langchain/core's stored-message
 *   form, which does not tell a streamed `AIMessageChunk` from an `AIMessage` (and drops the
 *   chunk-only `tool_call_chunks`). Compared by their type and every field the record keeps.
 */
function normalise(state: RunState): unknown {
  const { elapsedMs: _elapsed, turn, ...rest } = state;
  if (turn === undefined) return plain({ ...rest, turn });
  const { keys: _keys, ...liveTurn } = turn;
  return plain({ ...rest, turn: liveTurn });
}

/** `value` with each message replaced by its type and recorded fields. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== "object") return value;
  if (isBaseMessage(value)) return messageFields(value);
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, plain(field)]));
}

function messageFields(message: BaseMessage): Record<string, unknown> {
  const ai = message as BaseMessage & { tool_calls?: unknown; usage_metadata?: unknown; invalid_tool_calls?: unknown; tool_call_id?: unknown };
  return {
    type: message.getType(),
    content: message.content,
    id: message.id,
    name: message.name,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    tool_calls: ai.tool_calls,
    invalid_tool_calls: ai.invalid_tool_calls,
    usage_metadata: ai.usage_metadata,
    tool_call_id: ai.tool_call_id,
  };
}

interface Context {
  store: RunStore;
  /**
   * Asserts the record of `runId` restores to the live state of its latest segment; returns the
   * restored state. `ended`: the live run ended without an output (cancelled or failed).
   */
  check(runId: string, ended?: "cancelled" | "failed"): Promise<RunState>;
}

async function checkRun(store: RunStore, runId: string, ended?: "cancelled" | "failed"): Promise<RunState> {
  const run = made.filter((candidate) => candidate.state.runId === runId).at(-1);
  if (run === undefined) throw new Error(`no live run "${runId}" was made`);
  let live = run.state;
  const info = await store.getRun(runId);
  if (info === undefined) throw new Error(`run "${runId}" is not in the store`);
  const restored = restoreRunState(info, await store.readEvents(runId)).state;
  if (ended !== undefined) {
    // A run that ended without an output (cancelled, failed) is restored as one that goes on
    // (`resume` continues it, docs/runs.md): its phase is where it stopped, not its end.
    expect(live.phase).toBe(ended);
    live = { ...live, phase: live.turn === undefined ? "agent" : "tools" };
  }
  expect(normalise(restored)).toEqual(normalise(live));
  expect(restored.elapsedMs).toBeGreaterThanOrEqual(live.elapsedMs);
  const turn = restored.turn;
  if (turn !== undefined) {
    expect(turn.keys).toEqual(turn.actions.map((action, index) => run.idempotencyKey(action, index)));
  }
  return restored;
}

/** An executor over `createToolCallingAgent` on a ScriptedChatModel (which reports usage on every call). */
function scripted(responses: ScriptedResponse[], tools: AgentExecutorOptions["tools"], store: RunStore, options: Partial<AgentExecutorOptions> = {}, timing: { tokenDelayMs?: number } = {}) {
  const llm = new ScriptedChatModel({ streaming: true, responses, ...timing });
  const agentTools = options.outputSchema ? [...tools, finalAnswerTool(options.outputSchema)] : [...tools];
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: agentTools, prompt }), tools, store, returnIntermediateSteps: true, ...options });
}

const search = tool(async ({ query }: { query: string }) => `Sunny in ${query}`, { name: "search", description: "Searches the web.", schema: z.object({ query: z.string() }) });
const call = (query: string): ScriptedResponse => ({ toolCalls: [{ name: "search", args: { query } }], usage: { inputTokens: 12, outputTokens: 7 } });
const answer = (content: string): ScriptedResponse => ({ content, usage: { inputTokens: 20, outputTokens: 5 } });

/** A tool that waits `ms` (or until its call is aborted). */
const slow = (ms: number) =>
  tool(
    async ({ query }: { query: string }, config) => {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        config?.signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("aborted"));
        });
      });
      return `slow ${query}`;
    },
    { name: "search", description: "Searches slowly.", schema: z.object({ query: z.string() }) },
  );

const failing = tool(
  async ({ query }: { query: string }) => {
    if (query === "bad") throw new Error(`no results for ${query}`);
    return `found ${query}`;
  },
  { name: "search", description: "Searches, failing on bad queries.", schema: z.object({ query: z.string() }) },
);

/** An agent that fails to parse its first `bad` answers, then finishes. */
function unparsable(bad: number) {
  let calls = 0;
  return RunnableLambda.from(async () => {
    calls++;
    if (calls <= bad) throw new OutputParserException(`bad answer ${calls}`, `raw ${calls}`);
    return { returnValues: { output: "parsed at last" }, log: "" };
  });
}

async function outputOf(events: Promise<AgentStreamEvent[]> | AgentStreamEvent[]) {
  const last = (await events).at(-1);
  if (last?.type !== "output") throw new Error(`the run did not end with an output (last: ${last?.type})`);
  return last;
}

/** Pauses on an approval, checks the pause, resumes with `decision`, checks the end. */
async function approvalScenario({ store, check }: Context, decision: Decision, expected: { output: string; stopReason: string }, returnDirect = false) {
  const ran: string[] = [];
  const send = withApproval(
    tool(
      async ({ to }: { to: string }) => {
        ran.push(to);
        return `sent to ${to}`;
      },
      { name: "send", description: "Sends an email.", schema: z.object({ to: z.string() }), returnDirect },
    ),
  );
  const executor = scripted(
    [{ toolCalls: [{ name: "search", args: { query: "ana" } }, { name: "send", args: { to: "ana" } }] }, (messages) => ({ content: `done: ${messages.at(-1)?.text}` })],
    [search, send],
    store,
  );
  const paused = await outputOf(collect(executor.stream({ input: "mail ana" }, { runId: "approval" })));
  expect(paused.stopReason).toBe("interrupted");
  const atPause = await check("approval");
  expect(atPause.phase).toBe("interrupted");
  expect(atPause.interrupts).toHaveLength(1);
  const [interrupt] = atPause.interrupts;
  const done = await outputOf(collect(executor.resume("approval", { decisions: { [interrupt!.id]: decision } })));
  expect(done).toMatchObject(expected);
  const end = await check("approval");
  expect(end.phase).toBe("done");
  return { ran, end };
}

interface Scenario {
  name: string;
  /** Also run on SQLite (a subset: each SQLite store is a file). */
  sqlite?: boolean;
  run(context: Context): Promise<void>;
}

const scenarios: Scenario[] = [
  {
    name: "finish after a tool call, with usage from the scripted model",
    sqlite: true,
    async run({ store, check }) {
      const executor = scripted([call("Paris"), answer("Paris is sunny.")], [search], store);
      expect(await outputOf(collect(executor.stream({ input: "weather?" }, { runId: "r" })))).toMatchObject({ stopReason: "finish", output: "Paris is sunny." });
      const state = await check("r");
      expect(state.usage).toMatchObject({ input_tokens: 32, output_tokens: 12 });
    },
  },
  {
    name: "maxIterations with earlyStoppingMethod force",
    async run({ store, check }) {
      const executor = scripted([call("a"), call("b"), call("c")], [search], store, { maxIterations: 2 });
      expect(await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })))).toMatchObject({ stopReason: "max_iterations" });
      expect((await check("r")).steps).toHaveLength(2);
    },
  },
  {
    name: "maxIterations with earlyStoppingMethod generate",
    sqlite: true,
    async run({ store, check }) {
      const executor = scripted([call("a"), call("b"), answer("Made up from two steps.")], [search], store, { maxIterations: 2, earlyStoppingMethod: "generate" });
      expect(await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })))).toMatchObject({ stopReason: "max_iterations", output: "Made up from two steps." });
      const state = await check("r");
      expect(state.iteration).toBe(3);
    },
  },
  {
    name: "maxExecutionTime halts a tool call in flight",
    async run({ store, check }) {
      const executor = scripted([call("a"), call("b"), answer("never")], [slow(2_000)], store, { maxExecutionTime: 150 });
      expect(await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })))).toMatchObject({ stopReason: "max_execution_time" });
      await check("r");
    },
  },
  {
    name: "a returnDirect tool",
    async run({ store, check }) {
      const direct = tool(async () => "the direct answer", { name: "direct", description: "Answers directly.", schema: z.object({}), returnDirect: true });
      const executor = scripted([{ toolCalls: [{ name: "direct", args: {} }] }, answer("never")], [direct], store);
      expect(await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })))).toMatchObject({ stopReason: "return_direct", output: "the direct answer" });
      await check("r");
    },
  },
  ...(
    [
      ["true", true],
      ["a string", "Answer in the expected format."],
      ["a function", (error: OutputParserException) => `could not parse: ${error.message}`],
    ] as const
  ).map(
    ([label, handleParsingErrors], i): Scenario => ({
      name: `handleParsingErrors: ${label}`,
      sqlite: i === 2,
      async run({ store, check }) {
        const executor = new AgentExecutor({ agent: unparsable(2), tools: [], store, handleParsingErrors, returnIntermediateSteps: true });
        expect(await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })))).toMatchObject({ stopReason: "finish", output: "parsed at last" });
        const state = await check("r");
        expect(state.steps).toHaveLength(2);
        expect(state.iteration).toBe(3);
      },
    }),
  ),
  {
    name: "trimIntermediateSteps",
    async run({ store, check }) {
      const executor = scripted([call("a"), call("b"), call("c"), answer("done")], [search], store, { trimIntermediateSteps: 1 });
      await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })));
      expect((await check("r")).steps).toHaveLength(3);
    },
  },
  {
    name: "multi-action parallel turns",
    sqlite: true,
    async run({ store, check }) {
      const { agent, tools } = durableFixture({ turns: 3, width: 3 });
      const executor = new AgentExecutor({ agent, tools, store, returnIntermediateSteps: true });
      await outputOf(collect(executor.stream({ input: "go" }, { runId: "run" })));
      expect((await check("run")).steps).toHaveLength(9);
    },
  },
  {
    name: "parallel tool calls from the scripted model, one failing as an observation (handleToolRuntimeErrors: true)",
    async run({ store, check }) {
      const executor = scripted(
        [{ toolCalls: [{ name: "search", args: { query: "good" } }, { name: "search", args: { query: "bad" } }] }, answer("one worked")],
        [failing],
        store,
        { handleToolRuntimeErrors: true },
      );
      await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })));
      const state = await check("r");
      expect(state.steps.map((step) => step.observation)).toEqual(["found good", expect.stringContaining("no results for bad")]);
    },
  },
  {
    name: "tool errors as observations (handleToolRuntimeErrors: a function)",
    async run({ store, check }) {
      const executor = scripted([call("bad"), answer("gave up")], [failing], store, { handleToolRuntimeErrors: (error, action) => `${action.tool} failed: ${error.message}` });
      await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })));
      expect((await check("r")).steps[0]?.observation).toBe("search failed: no results for bad");
    },
  },
  {
    name: "approval: pause, then approve",
    sqlite: true,
    async run(context) {
      const { ran } = await approvalScenario(context, "approve", { stopReason: "finish", output: "done: sent to ana" });
      expect(ran).toEqual(["ana"]);
    },
  },
  {
    name: "approval: pause, then reject (of a returnDirect tool: the turn goes back to the model)",
    async run(context) {
      const { ran, end } = await approvalScenario(context, { type: "reject", message: "not now" }, { stopReason: "finish", output: "done: not now" }, true);
      expect(ran).toEqual([]);
      expect(end.rejectedIn).toBe(0);
    },
  },
  {
    name: "approval: pause, then edit the input",
    async run(context) {
      const { ran } = await approvalScenario(context, { type: "edit", toolInput: { to: "bo" } }, { stopReason: "finish", output: "done: sent to bo" });
      expect(ran).toEqual(["bo"]);
    },
  },
  {
    name: "approval: pause, then a result given by a person",
    async run(context) {
      const { ran } = await approvalScenario(context, { type: "result", observation: "sent by hand" }, { stopReason: "finish", output: "done: sent by hand" });
      expect(ran).toEqual([]);
    },
  },
  {
    name: "eagerTools: calls start while the model streams",
    sqlite: true,
    async run({ store, check }) {
      const executor = scripted(
        [{ toolCalls: [{ name: "search", args: { query: "a" } }, { name: "search", args: { query: "b" } }, { name: "search", args: { query: "c" } }] }, answer("All done.")],
        [slow(20)],
        store,
        { eagerTools: true },
        { tokenDelayMs: 15 },
      );
      const events = await collect(executor.stream({ input: "go" }, { runId: "r" }));
      expect(events.filter((event) => event.type === "action").every((event) => (event as { early?: boolean }).early === true)).toBe(true);
      expect((await check("r")).steps).toHaveLength(3);
    },
  },
  {
    name: "eagerTools: a toolCallBudget halts the stream; the early calls that ran are a partial turn",
    sqlite: true,
    async run({ store, check }) {
      const ran: string[] = [];
      const quick = tool(
        async ({ query }: { query: string }) => {
          ran.push(query);
          return `found ${query}`;
        },
        { name: "search", description: "Searches.", schema: z.object({ query: z.string() }) },
      );
      const executor = scripted(
        [{ toolCalls: ["a", "b", "c", "d"].map((query) => ({ name: "search", args: { query } })) }, answer("From two steps.")],
        [quick],
        store,
        { eagerTools: true, earlyStoppingMethod: "generate", stopWhen: toolCallBudget(2) },
        { tokenDelayMs: 30 },
      );
      expect(await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })))).toMatchObject({ stopReason: "budget", output: "From two steps." });
      expect(ran).toEqual(["a", "b"]);
      const state = await check("r");
      expect(state.steps.map((step) => step.observation)).toEqual(["found a", "found b"]);
      const recorded = (await store.readEvents("r")).map((event) => event.type).filter((type) => type === "tool_intent" || type === "action" || type === "step");
      expect(recorded).toEqual(["tool_intent", "tool_intent", "action", "action", "step", "step"]);
      // Replayed, the run shows the partial turn and the same output.
      const replayed = await collect(replayRun(store, "r"));
      expect(replayed.filter((event) => event.type === "step")).toHaveLength(2);
      expect(replayed.at(-1)).toMatchObject({ type: "output", output: "From two steps." });
    },
  },
  {
    name: "toolCallBudget (a stop condition) with earlyStoppingMethod generate",
    async run({ store, check }) {
      const executor = scripted([call("a"), call("b"), answer("From one step.")], [search], store, { earlyStoppingMethod: "generate", stopWhen: toolCallBudget(1) });
      expect(await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })))).toMatchObject({ stopReason: "budget", output: "From one step." });
      expect((await check("r")).stoppedBy).toMatchObject({ budget: "tool_calls", limit: 1 });
    },
  },
  {
    name: "tokenBudget (a stop condition), forced",
    async run({ store, check }) {
      const executor = scripted([call("a"), call("b"), call("c"), answer("never")], [search], store, { stopWhen: tokenBudget(30) });
      expect(await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })))).toMatchObject({ stopReason: "budget" });
      expect((await check("r")).stoppedBy).toMatchObject({ budget: "tokens" });
    },
  },
  {
    name: "a middleware that stops the run (stoppedBy), then a failed generate call (generateError)",
    async run({ store, check }) {
      const { agent, tools } = durableFixture({ turns: 5, width: 1 });
      let turns = 0;
      const stopper = { name: "stopper", afterTurn: () => void (++turns === 2 && stopRun({ reason: "budget", message: "two turns", details: { turns } })) };
      const final = RunnableLambda.from(async (input: { steps: AgentStep[]; forceFinalAnswer?: boolean }, options) => {
        if (input.forceFinalAnswer === true) throw new Error("the final answer could not be written");
        return agent.invoke(input as never, options);
      });
      const executor = new AgentExecutor({ agent: final, tools, store, middleware: [stopper], earlyStoppingMethod: "generate" });
      await outputOf(collect(executor.stream({ input: "x" }, { runId: "run" })));
      const state = await check("run");
      expect([state.stoppedBy, state.generateError]).toEqual([expect.objectContaining({ message: "two turns" }), expect.any(String)]);
    },
  },
  {
    name: "steering: a message sent with executor.send joins at the turn boundary",
    sqlite: true,
    async run({ store, check }) {
      const started = deferred<void>();
      const gate = deferred<void>();
      const held = tool(
        async ({ query }: { query: string }) => {
          started.resolve();
          await gate.promise;
          return `found ${query}`;
        },
        { name: "search", description: "Searches.", schema: z.object({ query: z.string() }) },
      );
      const executor = scripted([call("a"), (messages) => ({ content: `saw: ${messages.at(-1)?.text}` })], [held], store);
      const events = collect(executor.stream({ input: "go" }, { runId: "r" }));
      await started.promise;
      await executor.send("r", "Also check Rome.");
      gate.resolve();
      await outputOf(events);
      const state = await check("r");
      expect(state.steps.map((step) => step.action.tool)).toEqual(["search", "_Message"]);
    },
  },
  {
    name: "compaction middleware (compactSteps)",
    async run({ store, check }) {
      const read = tool(async ({ page }: { page: number }) => `Page ${page}: ${"word ".repeat(80)}`, { name: "read", description: "Reads a page.", schema: z.object({ page: z.number() }) });
      const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
        const next = input.steps.filter((step) => step.action.tool === "read").length;
        return next >= 4 ? { returnValues: { output: `read ${next} pages` }, log: "" } : { tool: "read", toolInput: { page: next }, log: "" };
      });
      const summarizer = new ScriptedChatModel({ responses: ["Pages 0 and 1: filler words."], onExhausted: "repeat-last" });
      const executor = new AgentExecutor({ agent, tools: [read], store, middleware: [compactSteps({ model: summarizer, maxTokens: 260, keep: 1 })] });
      await outputOf(collect(executor.stream({ input: "read" }, { runId: "r" })));
      expect((await check("r")).compaction).toMatchObject({ summary: "Pages 0 and 1: filler words." });
    },
  },
  {
    name: "a sub-run (an executor as a tool) in the record",
    sqlite: true,
    async run({ store, check }) {
      const researcher = scripted([call("tides"), answer("Tides follow the moon.")], [search], store);
      const research = researcher.asTool({ name: "researcher", description: "Researches a topic." });
      const executor = scripted([{ toolCalls: [{ name: "researcher", args: { input: "tides" } }] }, (messages) => ({ content: `Summary: ${messages.at(-1)?.text}` })], [research], store);
      const events = await collect(executor.stream({ input: "Explain tides" }, { runId: "r" }));
      expect(events.some((event) => event.subRun !== undefined)).toBe(true);
      const state = await check("r");
      // The caller's usage holds the sub-run's two model calls.
      expect(state.usage?.input_tokens).toBeGreaterThan(32);
    },
  },
  {
    name: "structured output (outputSchema), with an answer that fails the schema first",
    async run({ store, check }) {
      const Weather = z.object({ city: z.string(), celsius: z.number() });
      const executor = scripted(
        [call("Paris"), { toolCalls: [{ name: "final_answer", args: { city: "Paris", celsius: "warm" } }] }, { toolCalls: [{ name: "final_answer", args: { city: "Paris", celsius: 21 } }] }],
        [search],
        store,
        { outputSchema: Weather },
      );
      expect(await outputOf(collect(executor.stream({ input: "weather?" }, { runId: "r" })))).toMatchObject({ stopReason: "finish", structuredOutput: { city: "Paris", celsius: 21 } });
      expect((await check("r")).steps).toHaveLength(2);
    },
  },
  {
    name: "a guardrail that trips on a tool result",
    async run({ store, check }) {
      const lookup = tool(async () => "card on file: 4111 1111 1111 1111", { name: "lookup", description: "Looks up.", schema: z.object({ id: z.string() }) });
      const executor = scripted([{ toolCalls: [{ name: "lookup", args: { id: "c-1" } }] }, answer("leaked")], [lookup], store, {
        middleware: [guardrail({ name: "no-cards", on: "tool", check: ({ text }) => /\b(?:\d[ -]?){13,16}\b/.test(text) && "a card number" })],
      });
      expect(await outputOf(collect(executor.stream({ input: "customer?" }, { runId: "r" })))).toMatchObject({ stopReason: "guardrail" });
      expect((await check("r")).stoppedBy).toMatchObject({ guardrail: "no-cards" });
    },
  },
  {
    name: "detectRepeatedCalls stops the run (repeated_call)",
    async run({ store, check }) {
      const executor = scripted([call("rome"), call("rome"), call("rome"), answer("never")], [search], store, { middleware: [detectRepeatedCalls({ max: 2 })] });
      expect(await outputOf(collect(executor.stream({ input: "go" }, { runId: "r" })))).toMatchObject({ stopReason: "repeated_call" });
      await check("r");
    },
  },
  {
    name: "conversation memory: the thread's history joins the inputs",
    sqlite: true,
    async run({ store, check }) {
      // (The thread lives in a store of its own: the executor's in-process store keeps no threads.)
      const memory = new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 2_000 });
      const historyPrompt = ChatPromptTemplate.fromMessages([["placeholder", "{chat_history}"], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
      const llm = new ScriptedChatModel({ responses: [answer("Hello Ada."), call("Ada"), answer("Found Ada.")] });
      const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [search], prompt: historyPrompt }), tools: [search], store, memory: { memory } });
      await executor.invoke({ input: "I am Ada." }, { threadId: "t", runId: "first" });
      await executor.invoke({ input: "Search me." }, { threadId: "t", runId: "second" });
      const state = await check("second");
      expect(Object.keys(state.inputs)).toEqual(expect.arrayContaining(["input", "chat_history"]));
      expect((state.inputs["chat_history"] as unknown[]).length).toBe(2);
    },
  },
  {
    name: "a run that fails (a tool error, with handleToolRuntimeErrors: false)",
    async run({ store, check }) {
      const executor = scripted([call("a"), call("bad"), answer("never")], [failing], store, { handleToolRuntimeErrors: false });
      await expect(executor.invoke({ input: "go" }, { runId: "r" })).rejects.toThrow(/no results for bad/);
      await expect.poll(async () => (await store.getRun("r"))?.status).toBe("failed");
      expect((await check("r", "failed")).steps).toHaveLength(1);
    },
  },
  ...(["retry", "interrupt"] as const).map(
    (inDoubt): Scenario => ({
      name: `a call in doubt (cancelled mid-tool), then resumed with inDoubt "${inDoubt}"`,
      sqlite: inDoubt === "interrupt",
      async run({ store, check }) {
        const started = deferred<void>();
        let calls = 0;
        const charge = tool(
          async (_input: { cents: number }, config) => {
            calls++;
            started.resolve();
            if (calls === 1) await new Promise<void>((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
            return "charged";
          },
          { name: "charge", description: "Charges.", schema: z.object({ cents: z.number() }) },
        );
        const executor = scripted(
          [{ toolCalls: [{ name: "charge", args: { cents: 5 } }] }, (messages) => ({ content: `then: ${messages.at(-1)?.text}` })],
          [charge],
          store,
          { inDoubt },
        );
        const subscription = executor.stream({ input: "pay" }, { runId: "pay" }).subscribe({ error: () => undefined });
        await started.promise;
        subscription.unsubscribe();
        await expect.poll(async () => (await store.getRun("pay"))?.status).toBe("cancelled");
        const cancelled = await check("pay", "cancelled");
        expect(cancelled.turn?.results).toEqual([undefined]);
        if (inDoubt === "retry") {
          expect(await outputOf(collect(executor.resume("pay")))).toMatchObject({ stopReason: "finish", output: "then: charged" });
          expect(calls).toBe(2);
        } else {
          expect(await outputOf(collect(executor.resume("pay")))).toMatchObject({ stopReason: "interrupted" });
          const paused = await check("pay");
          expect(paused.interrupts).toMatchObject([{ reason: "in_doubt" }]);
          const done = await outputOf(collect(executor.resume("pay", { decisions: { [paused.interrupts[0]!.id]: { type: "result", observation: "already charged" } } })));
          expect(done).toMatchObject({ stopReason: "finish", output: "then: already charged" });
          expect(calls).toBe(1);
        }
        expect((await check("pay")).phase).toBe("done");
      },
    }),
  ),
  {
    name: "eagerTools: cancelled while an early call runs (the early call is in doubt), then resumed",
    async run({ store, check }) {
      const started = deferred<void>();
      let calls = 0;
      const held = tool(
        async ({ query }: { query: string }, config) => {
          calls++;
          started.resolve();
          if (calls === 1) await new Promise<void>((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
          return `found ${query}`;
        },
        { name: "search", description: "Searches.", schema: z.object({ query: z.string() }) },
      );
      const executor = scripted(
        [{ toolCalls: [{ name: "search", args: { query: "a" } }, { name: "search", args: { query: "b" } }], content: "word ".repeat(40) }, answer("done")],
        [held],
        store,
        { eagerTools: true },
        { tokenDelayMs: 10 },
      );
      const subscription = executor.stream({ input: "go" }, { runId: "r" }).subscribe({ error: () => undefined });
      await started.promise;
      subscription.unsubscribe();
      await expect.poll(async () => (await store.getRun("r"))?.status).toBe("cancelled");
      const cancelled = await check("r", "cancelled");
      expect(cancelled.earlyCalls?.actions).toHaveLength(1);
      expect(await outputOf(collect(executor.resume("r")))).toMatchObject({ stopReason: "finish" });
      await check("r");
    },
  },
];
describe("a run restored from its record equals the live run (docs/runs.md)", () => {
  for (const kind of ["memory", "in-process", "sqlite"] as const) {
    describe(kind, () => {
      for (const scenario of scenarios) {
        if (kind === "sqlite" && scenario.sqlite !== true) continue;
        it(scenario.name, async () => {
          const store = stores[kind]();
          opened.push(store);
          await scenario.run({ store, check: (runId, ended) => checkRun(store, runId, ended) });
        });
      }
    });
  }
});

