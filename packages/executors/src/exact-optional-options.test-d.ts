// Options built from values that may be `undefined` (`req.threadId`, `config.maxIterations`), as a
// project with `exactOptionalPropertyTypes: true` writes them. exact-optional-options.test.ts
// checks this file under that setting (the repository's own tsconfig leaves it off); every call
// here must compile there, because the runtime treats an option set to `undefined` as absent.
import type { AgentStep } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import {
  createAgentForModel,
  createJsonChatAgent,
  createOpenAIFunctionsAgent,
  createReactAgent,
  createToolCallingAgent,
  selectAgentType,
  toolCallingAgentType,
  type ForceFinalAnswerMode,
  type ToolImages,
} from "@agentrx/agents";
import {
  AgentExecutor,
  createAgentExecutor,
  RunLeaseLostError,
  type Decision,
  type ExecutorMemoryOptions,
  type FollowUp,
  type JsonObject,
  type RunStatus,
  type RunStore,
  type RunUsage,
  type StopCondition,
} from "@agentrx/executors";
import { MemoryRunStore, PostgresRunStore, SqliteRunStore, type SqliteDriver } from "@agentrx/runs";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";

/** What a request handler has: every field may be missing. */
declare const req: {
  text?: string;
  number?: number;
  flag?: boolean;
  signal?: AbortSignal;
  store?: RunStore;
  stopWhen?: StopCondition;
  memory?: ExecutorMemoryOptions;
  followUp?: FollowUp;
  decisions?: Record<string, Decision>;
  inputs?: Record<string, unknown>;
  metadata?: JsonObject;
  status?: RunStatus;
  usage?: RunUsage;
  driver?: SqliteDriver;
  mode?: ForceFinalAnswerMode;
  toolImages?: ToolImages;
  stop?: string[];
  trim?: (steps: AgentStep[]) => AgentStep[];
};

const multiply = tool(async ({ a, b }) => String(a * b), {
  name: "multiply",
  description: "Multiplies two numbers.",
  schema: z.object({ a: z.number(), b: z.number() }),
});
const model = new ScriptedChatModel({ responses: ["Hi!"] });
const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

describe("options given values that may be undefined (exactOptionalPropertyTypes)", () => {
  it("createAgentExecutor and AgentExecutor", () => {
    createAgentExecutor({
      model,
      tools: [multiply],
      system: req.text,
      toolCalling: req.flag,
      maxIterations: req.number,
      maxExecutionTime: req.number,
      returnIntermediateSteps: req.flag,
      memory: req.memory,
      store: req.store,
      leaseMs: req.number,
      storeTimeoutMs: req.number,
      stopWhen: req.stopWhen,
      recordPrompts: req.flag,
      verbose: req.flag,
      followUp: req.followUp,
      trimIntermediateSteps: req.trim,
      outputSchema: undefined,
      middleware: undefined,
      telemetry: undefined,
    });
    const agent = createToolCallingAgent({ llm: model, tools: [multiply], prompt });
    new AgentExecutor({ agent, tools: [multiply], maxIterations: req.number, returnIntermediateSteps: req.flag, store: req.store, earlyStopOutput: req.text, memory: req.memory });
  });

  it("the config of invoke, stream, resume and fork", async () => {
    const executor = createAgentExecutor({ model, tools: [multiply] });
    await executor.invoke({ input: "hi" }, { threadId: req.text, signal: req.signal, store: req.store, stopWhen: req.stopWhen, maxConcurrency: req.number, runName: req.text, runId: req.text, timeout: req.number });
    executor.stream({ input: "hi" }, { threadId: req.text, signal: req.signal, tags: req.stop, metadata: req.metadata, callbacks: undefined, configurable: undefined, recursionLimit: req.number });
    executor.resume("run-1", { decisions: req.decisions, store: req.store, stopWhen: req.stopWhen, signal: req.signal });
    executor.fork("run-1", { at: req.number, inputs: req.inputs, edit: { observation: req.text }, runId: req.text, store: req.store, signal: req.signal });
  });

  it("the run stores' options", () => {
    new SqliteRunStore({ path: req.text, busyTimeoutMs: req.number, driver: req.driver });
    new PostgresRunStore({ connectionString: "postgres://localhost/agentrx", schema: req.text, statementTimeoutMs: req.number, connectionTimeoutMs: req.number });
  });

  it("the arguments of RunStore methods", async () => {
    const store: RunStore = new MemoryRunStore();
    await store.createRun({ runId: "r1", threadId: req.text, inputs: {}, status: "running", owner: "a", leaseMs: 1000, metadata: req.metadata, forkOf: undefined, at: 0 });
    await store.write("r1", {
      owner: "a",
      leaseMs: 1000,
      epoch: req.number,
      events: [],
      update: { status: req.status, stopReason: req.text, usage: req.usage, error: req.text, checkpoint: undefined, release: req.flag, closeInbox: req.number },
      at: 1,
    });
    await store.readEvents("r1", { after: req.number, limit: req.number });
    await store.listRuns({ threadId: req.text, status: req.status, since: req.number, before: req.number, limit: req.number, search: req.text, hasError: req.flag, cursor: req.text, sort: undefined, order: undefined });
    await store.appendThreadMessages("t", [{ message: {}, tokens: 1, runId: req.text, at: 2 }]);
    await store.readThreadMessages("t", { after: req.number, before: req.number, limit: req.number, newestFirst: req.flag });
  });

  it("readEvents on each store's own class, not only through RunStore", async () => {
    const read = { after: req.number, limit: req.number };
    await new MemoryRunStore().readEvents("r1", read);
    await new SqliteRunStore({ path: ":memory:" }).readEvents("r1", read);
    await new PostgresRunStore({ connectionString: "postgres://localhost/agentrx" }).readEvents("r1", read);
  });

  it("a write after claimRun passes the claim's epoch (docs/runs.md)", async () => {
    const store = new MemoryRunStore();
    await store.createRun({ runId: "r1", inputs: {}, status: "queued", at: 0 });
    const first = await store.claimRun("r1", { owner: "worker-a", leaseMs: 1000, at: 1 });
    expectTypeOf(first.epoch).toEqualTypeOf<number | undefined>();
    const late = await store
      .write("r1", { owner: "worker-a", epoch: first.epoch, leaseMs: 1000, events: [{ seq: 1, type: "start", at: 5001, data: {} }], at: 5001 })
      .catch((error: unknown) => error);
    RunLeaseLostError.isInstance(late);
  });

  it("the agents' options", () => {
    createToolCallingAgent({ llm: model, tools: [multiply], prompt, forceFinalAnswerMode: req.mode, toolImages: req.toolImages });
    createOpenAIFunctionsAgent({ llm: model, tools: [multiply], prompt, forceFinalAnswerMode: req.mode });
    createReactAgent({ llm: model, tools: [multiply], prompt, stop: req.stop });
    createJsonChatAgent({ llm: model, tools: [multiply], prompt, stop: req.stop, toolsRenderer: undefined });
    selectAgentType({ llm: model, toolCalling: req.flag });
    createAgentForModel({ llm: model, tools: [multiply], prompts: { toolCalling: undefined, react: undefined }, toolCalling: req.flag });
    createAgentForModel({ llm: model, tools: [multiply], prompts: undefined });
    toolCallingAgentType.create({ llm: model, tools: [multiply], prompt: undefined, toolImages: req.toolImages });
  });
});
