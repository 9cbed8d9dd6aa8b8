import { createToolCallingAgent, formatAgentScratchpad, ToolCallingAgentOutputParser } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const prompt = ChatPromptTemplate.fromMessages([["system", "Use the tools."], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const weather = tool(async ({ city }: { city: string }) => `${city}: sunny`, { name: "get_weather", description: "Weather.", schema: z.object({ city: z.string() }) });
const time = tool(async () => "noon", { name: "get_time", description: "Time.", schema: z.object({}) });

const script = () => new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "get_weather", args: { city: "Paris" } }] }, (messages) => `done after ${messages.at(-1)?.getType()}: ${messages.at(-1)?.text}`] });

describe("an agent composed by hand", () => {
  it("the literal prompt.pipe(llm.bindTools(tools)).pipe(parser) is refused: its prompt never receives the steps", () => {
    const agent = prompt.pipe(script().bindTools([weather])).pipe(new ToolCallingAgentOutputParser());
    expect(() => new AgentExecutor({ agent, tools: [weather] })).toThrow(
      /the agent's first step is its prompt, which gets the executor's \{ \.\.\.inputs, steps \} as they are \(its `agent_scratchpad` is never filled\).*formatAgentScratchpad\(\)\.pipe\(prompt\)/,
    );
  });

  it("an executor without tools takes a plain prompt | model | parser chat agent: there are no tool results to miss", async () => {
    const chat = ChatPromptTemplate.fromMessages([["system", "Be brief."], ["human", "{input}"]]);
    const agent = chat.pipe(new ScriptedChatModel({ responses: ["Hello!"] })).pipe(new ToolCallingAgentOutputParser());
    const result = await new AgentExecutor({ agent, tools: [] }).invoke({ input: "Hi" });
    expect(result.output).toBe("Hello!");
  });

  it("with formatAgentScratchpad() first, the model sees its tool results", async () => {
    const llm = script();
    const agent = formatAgentScratchpad().pipe(prompt).pipe(llm.bindTools([weather])).pipe(new ToolCallingAgentOutputParser());
    const result = await new AgentExecutor({ agent, tools: [weather] }).invoke({ input: "Weather in Paris?" });
    expect(result.output).toBe("done after tool: Paris: sunny");
    expect(llm.calls[1]?.messages.map((message) => message.getType())).toEqual(["system", "human", "ai", "tool"]);
  });

  it("refuses an executor whose tools differ from the ones bound to the agent's model, naming the difference", () => {
    const handBuilt = formatAgentScratchpad().pipe(prompt).pipe(script().bindTools([weather, time])).pipe(new ToolCallingAgentOutputParser());
    expect(() => new AgentExecutor({ agent: handBuilt, tools: [weather] })).toThrow(/the agent's model is bound to "get_time", which the executor does not have/);
    const builtIn = createToolCallingAgent({ llm: script(), tools: [weather], prompt });
    expect(() => new AgentExecutor({ agent: builtIn, tools: [weather, time] })).toThrow(/the executor has "get_time", which the model was not given \(it can never call it\)/);
    // The same tools, in another order: fine. An agent that is a function: nothing to compare.
    expect(() => new AgentExecutor({ agent: createToolCallingAgent({ llm: script(), tools: [weather, time], prompt }), tools: [time, weather] })).not.toThrow();
    expect(() => new AgentExecutor({ agent: RunnableLambda.from(() => ({ returnValues: { output: "x" }, log: "" })), tools: [time] })).not.toThrow();
  });

  it("formatAgentScratchpad validates its options", () => {
    expect(() => formatAgentScratchpad({ format: "messages" as never })).toThrow(/`format` must be a function/);
    expect(() => formatAgentScratchpad({ key: "" })).toThrow(/`key` must be a non-empty string/);
  });
});
