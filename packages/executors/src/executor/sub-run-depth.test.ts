import { createToolCallingAgent } from "@agentrx/agents";
import { AbortError, InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, handoff } from "@agentrx/executors";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { collect } from "./test-helpers";

const prompt = ChatPromptTemplate.fromMessages([new MessagesPlaceholder({ variableName: "chat_history", optional: true }), ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** An executor that stands for `get()` once it is made (two agents that hand off to each other need each other's tool first). */
function later(get: () => AgentExecutor): AgentExecutor {
  return { stream: (inputs: never, config: never) => get().stream(inputs, config), resume: (runId: string, options: never) => get().resume(runId, options) } as unknown as AgentExecutor;
}

/** A model that calls `tool`, or answers once a tool result says the tree is too deep (or is such an answer). */
function pingPongModel(tool: string, args: Record<string, unknown> = {}) {
  return new ScriptedChatModel({
    onExhausted: "repeat-last",
    responses: [(messages: BaseMessage[]) => (messages.at(-1)?.getType() === "tool" && /maxDepth|too deep/.test(messages.at(-1)?.text ?? "") ? "too deep: I answer myself" : { toolCalls: [{ name: tool, args }] })],
  });
}

/** Agents A and B that hand off (or, `asTool`, delegate) to each other for ever, as their models ask. */
function pingPong(kind: "handoff" | "asTool", options: { maxDepth?: number; maxIterations?: number; models?: [ScriptedChatModel, ScriptedChatModel] } = {}) {
  let a: AgentExecutor | undefined;
  let b: AgentExecutor | undefined;
  const depth = options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth };
  const toolOf = (target: () => AgentExecutor, name: string): StructuredToolInterface =>
    kind === "handoff" ? handoff(later(target), { name, description: "Hands off.", ...depth }) : asToolOf(target, name, depth);
  const toB = toolOf(() => b as AgentExecutor, "to_b");
  const toA = toolOf(() => a as AgentExecutor, "to_a");
  const args = kind === "asTool" ? { input: "go on" } : {};
  const [modelA, modelB] = options.models ?? [pingPongModel("to_b", args), pingPongModel("to_a", args)];
  const limits = options.maxIterations === undefined ? {} : { maxIterations: options.maxIterations };
  a = new AgentExecutor({ agent: createToolCallingAgent({ llm: modelA, tools: [toB], prompt }), tools: [toB], ...limits });
  b = new AgentExecutor({ agent: createToolCallingAgent({ llm: modelB, tools: [toA], prompt }), tools: [toA], ...limits });
  return a;
}

/** `asTool` of an executor made later: a tool made of a stand-in whose `asTool` is the real executor's, bound at call time. */
function asToolOf(target: () => AgentExecutor, name: string, depth: { maxDepth?: number }): StructuredToolInterface {
  // asTool is a method of the executor: borrow it on the stand-in, so the tool runs the real one when called.
  return AgentExecutor.prototype.asTool.call(later(target), { name, description: "Delegates.", ...depth });
}

describe("nested sub-runs are bounded in depth", () => {
  it("two agents that hand off to each other stop at maxDepth (10 by default): the deepest call fails naming the depth and the path, and its model answers", async () => {
    const events: AgentStreamEvent[] = await collect(pingPong("handoff").stream({ input: "loop" }));
    const deepest = Math.max(...events.map((event) => event.subRun?.length ?? 0));
    expect(deepest).toBe(10);
    const failed = events.find((event) => event.type === "step" && event.metadata?.["failed"] === true);
    expect(failed?.subRun).toHaveLength(10);
    const observation = failed?.type === "step" ? String(failed.step.observation) : "";
    expect(observation).toContain('handoff "to_b" would start a sub-run 11 levels deep (to_b > to_a > to_b > to_a > to_b > to_a > to_b > to_a > to_b > to_a > to_b)');
    expect(observation).toContain("maxDepth of 10");
    // The depth error goes back to the model (it does not become the answer): it answers, and that answer comes up the chain.
    const output = events.at(-1);
    expect(output).toMatchObject({ type: "output", output: "too deep: I answer myself", stopReason: "return_direct" });
  });

  it("asTool calls count alike, and maxDepth on the tool sets the bound", async () => {
    const events: AgentStreamEvent[] = await collect(pingPong("asTool", { maxDepth: 3 }).stream({ input: "loop" }));
    expect(Math.max(...events.map((event) => event.subRun?.length ?? 0))).toBe(3);
    const failed = events.find((event) => event.type === "step" && event.metadata?.["failed"] === true);
    expect(failed?.type === "step" && String(failed.step.observation)).toMatch(/asTool "to_a" would start a sub-run 4 levels deep \(to_b > to_a > to_b > to_a\), deeper than its maxDepth of 3/);
  });

  it("refuses a maxDepth that is not a whole number of at least 1, naming it", () => {
    const executor = pingPong("handoff");
    expect(() => handoff(executor, { name: "x", description: "x", maxDepth: 0 })).toThrow(/handoff: `maxDepth` must be a whole number of at least 1, got 0/);
    expect(() => executor.asTool({ name: "x", description: "x", maxDepth: 2.5 })).toThrow(/asTool: `maxDepth` must be a whole number of at least 1, got 2.5/);
  });

  it("refuses a maxDepth that JSON cannot write (a BigInt, a cycle) with the same error naming it, not a TypeError", () => {
    const executor = pingPong("handoff");
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    expect(() => executor.asTool({ name: "x", description: "x", maxDepth: 10n as never })).toThrow(/^asTool: `maxDepth` must be a whole number of at least 1, got 10n: /);
    expect(() => handoff(executor, { name: "x", description: "x", maxDepth: cyclic as never })).toThrow(/^handoff: `maxDepth` must be a whole number of at least 1, got an object: /);
    expect(() => handoff(executor, { name: "x", description: "x", maxDepth: cyclic as never })).toThrow(InvalidArgumentError);
  });

  it("a chain of zero-latency sub-runs yields to the event loop as each starts, so the caller's abort timer fires", async () => {
    // Models that never give up: without the bound's error helping, only the abort ends the run.
    const never = (tool: string) => new ScriptedChatModel({ onExhausted: "repeat-last", responses: [{ toolCalls: [{ name: tool, args: {} }] }] });
    const executor = pingPong("handoff", { models: [never("to_b"), never("to_a")] });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 30);
    const started = Date.now();
    const error = await executor.invoke({ input: "loop" }, { signal: controller.signal }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    clearTimeout(timer);
    expect(AbortError.isInstance(error)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
