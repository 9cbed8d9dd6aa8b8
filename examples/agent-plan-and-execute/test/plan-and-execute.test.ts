// Runs the published package, by its name, with the AgentExecutor.
import { planAndExecuteAgentType, createPlanAndExecuteAgent, createExecutorPrompt, PLAN_METADATA_KEY } from "@agentrx-community/plan-and-execute";
import { createAgentTypeRegistry, InvalidPromptError, UnsupportedModelError } from "@agentrx/agents";
import { FORCE_FINAL_ANSWER_INSTRUCTION, InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, finalAnswerTool } from "@agentrx/executors";
import { AIMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const weather = tool(async ({ city }: { city: string }) => `18C in ${city}`, {
  name: "weather",
  description: "Current weather of a city.",
  schema: z.object({ city: z.string() }),
});

describe("@agentrx-community/plan-and-execute", () => {
  it("registers under its name and runs through the AgentExecutor: plan, tool calls, answer", async () => {
    const registry = createAgentTypeRegistry().register(planAndExecuteAgentType);
    const llm = new ScriptedChatModel({
      responses: [
        "1. Get the weather in Paris and Rome.\n2. Compare them.",
        { toolCalls: [{ name: "weather", args: { city: "Paris" } }, { name: "weather", args: { city: "Rome" } }] },
        "Both are at 18C.",
      ],
    });
    const agent = registry.get("agentrx-community/plan-and-execute").create({ llm, tools: [weather] });
    const executor = new AgentExecutor({ agent, tools: [weather], returnIntermediateSteps: true });
    const result = await lastValueFrom(executor.invoke({ input: "Is Paris warmer than Rome?" }));

    expect(result.output).toBe("Both are at 18C.");
    expect(result.intermediateSteps?.map((step) => step.observation)).toEqual(["18C in Paris", "18C in Rome"]);
    expect(llm.calls.map((call) => call.toolNames)).toEqual([[], ["weather"], ["weather"]]);
    expect(llm.calls[0]?.messages[0]?.text).toContain("weather: Current weather of a city.");
    // The plan heads the scratchpad on every executing turn, once.
    const last = llm.calls[2]?.messages ?? [];
    expect(last.map((message) => message.getType())).toEqual(["system", "human", "ai", "ai", "tool", "tool"]);
    expect(last[2]?.text).toBe("Plan:\n1. Get the weather in Paris and Rome.\n2. Compare them.");
    expect((last[2] as AIMessage).response_metadata[PLAN_METADATA_KEY]).toBe(true);
  });

  it('honours forceFinalAnswer ("generate" early stopping) without planning again', async () => {
    const llm = new ScriptedChatModel({
      responses: ["1. Get the weather.", { toolCalls: [{ name: "weather", args: { city: "Paris" } }] }, "It is 18C."],
    });
    const agent = createPlanAndExecuteAgent({ llm, tools: [weather], prompt: createExecutorPrompt() });
    const executor = new AgentExecutor({ agent, tools: [weather], maxIterations: 1, earlyStoppingMethod: "generate" });
    const result = await lastValueFrom(executor.invoke({ input: "Weather in Paris?" }));
    expect(result.output).toBe("It is 18C.");
    expect(llm.calls).toHaveLength(3);
    expect(llm.calls[2]?.tools).toEqual([]);
    expect(llm.calls[2]?.messages.at(-1)?.text).toBe(FORCE_FINAL_ANSWER_INSTRUCTION);
  });

  it('offers only the final-answer tool, forced, on the "generate" call of an executor with outputSchema', async () => {
    const llm = new ScriptedChatModel({
      responses: [
        "1. Get the weather.",
        { toolCalls: [{ name: "weather", args: { city: "Paris" } }] },
        { toolCalls: [{ name: "final_answer", args: { city: "Paris", celsius: 18 } }] },
      ],
    });
    const schema = z.object({ city: z.string(), celsius: z.number() });
    const tools = [weather, finalAnswerTool(schema)];
    const agent = createPlanAndExecuteAgent({ llm, tools, prompt: createExecutorPrompt() });
    const executor = new AgentExecutor({ agent, tools: [weather], outputSchema: schema, maxIterations: 1, earlyStoppingMethod: "generate" });
    const result = await lastValueFrom(executor.invoke({ input: "Weather in Paris?" }));
    expect(result.structuredOutput).toEqual({ city: "Paris", celsius: 18 });
    expect(llm.calls[2]?.toolNames).toEqual(["final_answer"]);
    expect(llm.calls[2]?.toolChoice).toBe("final_answer");
  });

  it("validates its model and prompts", () => {
    const llm = new ScriptedChatModel({ responses: [] });
    const noTools = new ScriptedChatModel({ responses: [] });
    Object.defineProperty(noTools, "bindTools", { value: undefined });
    expect(() => createPlanAndExecuteAgent({ llm: noTools, tools: [], prompt: createExecutorPrompt() })).toThrow(UnsupportedModelError);
    expect(() => createPlanAndExecuteAgent({ llm, tools: [], prompt: ChatPromptTemplate.fromMessages([["human", "{input}"]]) })).toThrow(
      InvalidPromptError,
    );
    expect(() => createPlanAndExecuteAgent({ llm, tools: [], prompt: createExecutorPrompt(), maxPlanSteps: 0 })).toThrow(/maxPlanSteps/);
  });

  it("says how to get a prompt when none is given", () => {
    const llm = new ScriptedChatModel({ responses: [] });
    const options = { llm, tools: [] } as unknown as Parameters<typeof createPlanAndExecuteAgent>[0];
    expect(() => createPlanAndExecuteAgent(options)).toThrow(InvalidArgumentError);
    expect(() => createPlanAndExecuteAgent(options)).toThrow(/`prompt` is required: pass createExecutorPrompt\(\)/);
  });
});
