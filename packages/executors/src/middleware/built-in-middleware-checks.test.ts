import { InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, compactSteps, detectRepeatedCalls, guardrail, modelFallback } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, echoTool, finish, scriptedAgent } from "../executor/test-helpers";
import { InProcessRunStore } from "../runs/in-process-run-store";

const model = new ScriptedChatModel({ responses: [] });

/** The `InvalidArgumentError` `build` throws (fails the test when it throws nothing or something else). */
function refusal(build: () => unknown): InvalidArgumentError {
  try {
    build();
  } catch (error) {
    if (InvalidArgumentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected an InvalidArgumentError, nothing was thrown");
}

describe("detectRepeatedCalls: what it told the model", () => {
  it("does not stop a run whose tool's own result reads like its note, below max", async () => {
    const calls: string[] = [];
    const lookup = tool(async ({ q }: { q: string }) => (calls.push(q), "Repeated call: the upstream cache says this query was seen before."), {
      name: "lookup",
      description: "l",
      schema: z.object({ q: z.string() }),
    });
    const { agent } = scriptedAgent([act("lookup", { q: "rome" }), act("lookup", { q: "rome" }), finish("done")]);
    const result = await new AgentExecutor({ agent, tools: [lookup], middleware: [detectRepeatedCalls({ max: 3 })] }).invoke({ input: "x" });
    expect(calls).toEqual(["rome", "rome"]);
    expect(result.stopReason).toBe("finish");
    expect(result.output).toBe("done");
  });

  it("still stops once it told the model, counting the calls of earlier turns", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "a" }), act("echo", { text: "a" }), act("echo", { text: "a" }), finish("never")]);
    const result = await new AgentExecutor({ agent, tools: [echoTool], middleware: [detectRepeatedCalls({ max: 2 })], returnIntermediateSteps: true }).invoke({ input: "x" });
    expect(result.intermediateSteps?.map((step) => String(step.observation).slice(0, 14))).toEqual(["a", "Repeated call:"]);
    expect(result.stopReason).toBe("repeated_call");
  });

  it("knows it told the model after a resume, from the recorded steps, with a new instance of itself", async () => {
    const store = new InProcessRunStore();
    const send = tool(async ({ to }: { to: string }) => `sent to ${to}`, { name: "send", description: "s", schema: z.object({ to: z.string() }) });
    const { agent } = scriptedAgent([act("echo", { text: "a" }), act("echo", { text: "a" }), act("send", { to: "ana" }), act("echo", { text: "a" }), finish("never")]);
    const options = { agent, tools: [echoTool, send], store, needsApproval: (action: { tool: string }) => action.tool === "send", returnIntermediateSteps: true };
    const paused = await new AgentExecutor({ ...options, middleware: [detectRepeatedCalls({ max: 2 })] }).invoke({ input: "x" }, { runId: "repeat-resume" });
    expect(paused.interrupts).toHaveLength(1);
    const resumed = await new AgentExecutor({ ...options, middleware: [detectRepeatedCalls({ max: 2 })] }).resume("repeat-resume", { decisions: { [paused.interrupts![0]!.id]: "approve" } });
    expect(resumed.stopReason).toBe("repeated_call");
    expect(resumed.intermediateSteps?.map((step) => String(step.observation).slice(0, 14))).toEqual(["a", "Repeated call:", "sent to ana"]);
  });
});

describe("compactSteps: countTokens", () => {
  for (const [label, countTokens] of [
    ["NaN", () => Number.NaN],
    ["undefined (no return)", () => undefined],
    ["a string", () => "12"],
    ["a negative number", () => -1],
    ["Infinity", () => Number.POSITIVE_INFINITY],
  ] as const) {
    it(`fails the run, naming countTokens, when it returns ${label}`, async () => {
      const summarizer = new ScriptedChatModel({ responses: ["summary"], onExhausted: "repeat-last" });
      const { agent } = scriptedAgent([act("echo", { text: "a" }), act("echo", { text: "b" }), finish("done")]);
      const middleware = [compactSteps({ model: summarizer, maxTokens: 10, keep: 0, countTokens: countTokens as never })];
      await expect(new AgentExecutor({ agent, tools: [echoTool], middleware }).invoke({ input: "x" })).rejects.toThrow(/countTokens/);
      expect(summarizer.calls).toHaveLength(0);
    });
  }
});

describe("built-in middleware: factory arguments", () => {
  it("modelFallback refuses a sparse list, naming the hole, and an unexpected second argument", () => {
    const sparse = refusal(() => modelFallback([, model] as never));
    expect(sparse.argument).toBe("models[0]");
    expect(sparse.message).toMatch(/models\[0\]/);
    const extra = refusal(() => (modelFallback as (...args: unknown[]) => unknown)([model], { retries: 2 }));
    expect(extra.message).toMatch(/modelFallback: .*one argument/);
    expect(() => modelFallback([model])).not.toThrow();
  });

  it("shows Infinity as it is, not as null", () => {
    expect(refusal(() => compactSteps({ model, maxTokens: Number.POSITIVE_INFINITY })).message).toMatch(/got Infinity\b/);
    expect(refusal(() => detectRepeatedCalls({ max: Number.POSITIVE_INFINITY })).message).toMatch(/got Infinity\b/);
    expect(refusal(() => detectRepeatedCalls({ max: Number.NaN })).message).toMatch(/got NaN\b/);
  });

  it("refuses name: null in guardrail, as keep: null and max: null are refused", () => {
    const error = refusal(() => guardrail({ name: null as never, on: "input", check: () => false }));
    expect(error.argument).toBe("name");
    expect(() => compactSteps({ model, maxTokens: 10, keep: null as never })).toThrow(InvalidArgumentError);
    expect(() => guardrail({ on: "input", check: () => false })).not.toThrow();
  });

  it("refuses blank instructions in compactSteps and in guardrail's model check", () => {
    expect(refusal(() => compactSteps({ model, maxTokens: 10, instructions: "   " })).argument).toBe("instructions");
    expect(refusal(() => guardrail({ on: "output", check: { model, instructions: " \n " } })).argument).toBe("check");
  });

  it("compactSteps refuses an array as its options, saying the options must be an object", () => {
    const error = refusal(() => compactSteps([] as never));
    expect(error.argument).toBe("options");
    expect(error.message).toMatch(/options object/);
  });
});
