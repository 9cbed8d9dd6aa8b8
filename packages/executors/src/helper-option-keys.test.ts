import { InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { AgentExecutor, compactSteps, createAgentExecutor, detectRepeatedCalls, finalAnswerTokens, guardrail, handoff, timeBudget, tokenBudget, trimInSteps } from "./index";

const executor = new AgentExecutor({ agent: RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" })), tools: [] });
const model = new ScriptedChatModel({ responses: ["summary"] });

// Each of these would otherwise leave the option's default in place (or fail later, for another reason).
describe("the executor's helpers refuse an option they do not take", () => {
  it.each([
    ["handoff", () => handoff(executor, { name: "billing", description: "Billing questions.", inputfilter: () => ({}) } as never), /handoff: unknown option `inputfilter`; did you mean `inputFilter`\? Known options: name, description, inputFilter, maxDepth\./],
    ["finalAnswerTokens", () => finalAnswerTokens({ prefix: "Final Answer:" } as never), /finalAnswerTokens: unknown option `prefix`\. Known options: answerPrefix\./],
    ["tokenBudget", () => tokenBudget(100, { counts: "output" } as never), /tokenBudget: unknown option `counts`; did you mean `count`\? Known options: count\./],
    ["timeBudget", () => timeBudget(100, { schedular: undefined } as never), /timeBudget: unknown option `schedular`; did you mean `scheduler`\? Known options: scheduler\./],
    ["trimInSteps", () => trimInSteps({ keep: 2, evry: 3 } as never), /trimInSteps: unknown option `evry`; did you mean `every`\? Known options: keep, every\./],
    ["compactSteps", () => compactSteps({ model, maxTokens: 100, kept: 2 } as never), /compactSteps: unknown option `kept`\. Known options: model, maxTokens, keep, countTokens, instructions\./],
    ["detectRepeatedCalls", () => detectRepeatedCalls({ maxRepeats: 5 } as never), /detectRepeatedCalls: unknown option `maxRepeats`\. Known options: max\./],
    ["guardrail", () => guardrail({ on: "input", check: () => undefined, block: false } as never), /guardrail: unknown option `block`\. Known options: name, on, check, blocking\./],
  ])("%s", (_name, make, message) => {
    expect(make).toThrow(InvalidArgumentError);
    expect(make).toThrow(message);
  });

  it("takes the options they document", () => {
    expect(handoff(executor, { name: "billing", description: "Billing questions.", inputFilter: () => ({}) }).name).toBe("billing");
    expect(typeof finalAnswerTokens({ answerPrefix: "Final Answer:" })).toBe("function");
    expect(typeof trimInSteps({ keep: 2, every: 3 })).toBe("function");
    expect(compactSteps({ model, maxTokens: 100, keep: 2, instructions: "Summarize." }).name).toBeDefined();
    expect(guardrail({ name: "pii", on: "input", check: () => undefined, blocking: false }).name).toBe("pii");
  });
});

describe("asTool, send and createAgentExecutor refuse an option they do not take", () => {
  it("asTool names the misspelt key", () => {
    expect(() => executor.asTool({ name: "researcher", description: "Researches.", schemas: undefined } as never)).toThrow(/asTool: unknown option `schemas`; did you mean `schema`\? Known options: name, description, schema, maxDepth\./);
  });

  it("send rejects (it returns a promise) naming the misspelt key, and records nothing", async () => {
    const error = await executor.send("r1", "hi", { stores: undefined } as never).catch((caught: unknown) => caught);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/AgentExecutor\.send: unknown option `options\.stores`; did you mean `store`\? Known options: store, maxMessageChars, maxPendingMessages\./);
  });

  it("createAgentExecutor names its own options, says where a key from elsewhere goes, and does not offer `agent`", () => {
    const typo = () => createAgentExecutor({ model, tools: [], maxIteration: 3 } as never);
    expect(typo).toThrow(/^createAgentExecutor: unknown option `maxIteration`; did you mean `maxIterations`\? Known options: model, tools, system, toolCalling, outputSchema, returnIntermediateSteps, /);
    expect(typo).not.toThrow(/\bagent\b,/);
    expect(() => createAgentExecutor({ llm: model, tools: [] } as never)).toThrow(/unknown option `llm`: the model goes in `model`\./);
    expect(() => createAgentExecutor({ model, tools: [], systemPrompt: "Be brief." } as never)).toThrow(/unknown option `systemPrompt`: the system message goes in `system`\./);
    expect(() => createAgentExecutor({ model, tools: [], agent: executor } as never)).toThrow(/unknown option `agent`: createAgentExecutor builds the agent/);
    expect(createAgentExecutor({ model, tools: [], system: "Be brief.", maxIterations: 3, toolCalling: true })).toBeInstanceOf(AgentExecutor);
  });

  it("the constructor's near-miss message reads as one sentence", () => {
    expect(() => new AgentExecutor({ agent: executor as never, tools: [], maxIteration: 3 } as never)).toThrow(/unknown option `maxIteration`; did you mean `maxIterations`\? Known options: agent, tools,/);
  });
});
