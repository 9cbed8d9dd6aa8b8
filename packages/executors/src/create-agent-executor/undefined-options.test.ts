import { createReactAgent, createToolCallingAgent } from "@agentrx/agents";
import { InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { describe, expect, it } from "vitest";
import { AgentExecutor } from "../executor/agent-executor";
import { createAgentExecutor } from "./create-agent-executor";

// The option types accept `undefined` for every optional option (for projects compiled with
// `exactOptionalPropertyTypes`): an option set to `undefined` must do what leaving it out does,
// and a key that is not an option is refused whatever its value.
describe("options set to undefined", () => {
  it("createAgentExecutor and its calls take their defaults", async () => {
    const model = new ScriptedChatModel({ responses: ["Hi!"] });
    const executor = createAgentExecutor({
      model,
      tools: [],
      system: undefined,
      toolCalling: undefined,
      maxIterations: undefined,
      returnIntermediateSteps: undefined,
      memory: undefined,
      outputSchema: undefined,
      earlyStoppingMethod: undefined,
      verbose: undefined,
    });
    const config = { threadId: undefined, signal: undefined, store: undefined, stopWhen: undefined, maxConcurrency: undefined, runId: undefined };
    const result = await executor.invoke({ input: "Hello" }, config);
    expect(result).toMatchObject({ output: "Hi!", stopReason: "finish" });
    expect(result).not.toHaveProperty("intermediateSteps");
    // The default system message, as without `system`.
    expect(model.calls[0]!.messages[0]!.text).toBe("You are a helpful assistant. Use the tools when they help you answer.");
  });

  it("a misspelt option is refused even when it is undefined", () => {
    const model = new ScriptedChatModel({ responses: ["Hi!"] });
    expect(() => createAgentExecutor({ model, tools: [], maxIteration: undefined } as never)).toThrow(InvalidArgumentError);
    expect(() => createAgentExecutor({ model, tools: [], maxIteration: undefined } as never)).toThrow(/maxIteration.*maxIterations/);
  });

  it("the agents' options take their defaults", async () => {
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const llm = new ScriptedChatModel({ responses: ["Hi!"] });
    const agent = createToolCallingAgent({ llm, tools: [], prompt, forceFinalAnswerMode: undefined, toolImages: undefined });
    const executor = new AgentExecutor({ agent, tools: [], maxIterations: undefined, store: undefined, middleware: undefined });
    expect((await executor.invoke({ input: "Hello" }, { signal: undefined })).output).toBe("Hi!");

    const reactPrompt = ChatPromptTemplate.fromTemplate("{tools}\n{tool_names}\n{input}\n{agent_scratchpad}");
    const text = new ScriptedChatModel({ responses: ["Final Answer: Hi!"] });
    const react = createReactAgent({ llm: text, tools: [], prompt: reactPrompt, stop: undefined });
    expect(await new AgentExecutor({ agent: react, tools: [] }).invoke({ input: "Hello" })).toMatchObject({ output: "Hi!" });
    // The default stop sequence is bound, as without `stop`.
    expect(text.calls[0]!.stop).toEqual(["\nObservation:"]);
  });
});
