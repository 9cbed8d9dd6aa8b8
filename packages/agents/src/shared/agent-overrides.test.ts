import { createReactAgent, createToolCallingAgent } from "@agentrx/agents";
import { AGENT_MODEL_KEY, AGENT_OVERRIDES, AGENT_TOOLS_KEY, acceptsOverrides, getAgentOverrides } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { ChatPromptTemplate, MessagesPlaceholder, PromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const search = tool(async () => "found", { name: "search", description: "Searches the web.", schema: z.object({ q: z.string() }) });
const calc = tool(async () => "4", { name: "calculator", description: "Does arithmetic.", schema: z.object({ expression: z.string() }) });

describe("agent overrides (a middleware's model and tools for one call)", () => {
  it("a tool-calling agent calls the swapped model with its tools bound, and offers only the tools given", async () => {
    const own = new ScriptedChatModel({ responses: ["own", "own again"] });
    const other = new ScriptedChatModel({ responses: ["other", "other final"] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
    const agent = createToolCallingAgent({ llm: own, tools: [search, calc], prompt });
    expect(acceptsOverrides(agent)).toBe(true);
    expect(await agent.invoke({ input: "x", steps: [] }, { configurable: { [AGENT_MODEL_KEY]: other } })).toMatchObject({ returnValues: { output: "other" } });
    expect(other.calls[0]?.toolNames).toEqual(["search", "calculator"]);
    await agent.invoke({ input: "x", steps: [] }, { configurable: { [AGENT_TOOLS_KEY]: [calc] } });
    expect(own.calls[0]?.toolNames).toEqual(["calculator"]);
    // The final-answer turn of a swapped model has no tools, as the agent's own.
    await agent.invoke({ input: "x", steps: [], forceFinalAnswer: true }, { configurable: { [AGENT_MODEL_KEY]: other } });
    expect(other.calls[1]?.toolNames).toEqual([]);
    // Without overrides nothing changes.
    await agent.invoke({ input: "x", steps: [] });
    expect(own.calls[1]?.toolNames).toEqual(["search", "calculator"]);
  });

  it("a ReAct agent renders the tools given into its prompt and parser, and keeps its stop sequences on a swapped model", async () => {
    const prompt = PromptTemplate.fromTemplate("Tools:\n{tools}\nNames: {tool_names}\nQuestion: {input}\n{agent_scratchpad}");
    const own = new ScriptedChatModel({ responses: [] });
    const other = new ScriptedChatModel({ responses: ["Thought: easy\nFinal Answer: 4"] });
    const agent = createReactAgent({ llm: own, tools: [search, calc], prompt });
    const output = await agent.invoke({ input: "2 + 2?", steps: [] }, { configurable: { [AGENT_MODEL_KEY]: other, [AGENT_TOOLS_KEY]: [calc] } });
    expect(output).toMatchObject({ returnValues: { output: "4" } });
    const text = String(other.calls[0]?.messages[0]?.content);
    expect(text).toContain("Names: calculator\n");
    expect(text).not.toContain("search");
    expect(other.calls[0]?.stop).toEqual(["\nObservation:"]);
  });

  it("reads nothing from a config without overrides, and a custom agent opts in with AGENT_OVERRIDES", () => {
    expect(getAgentOverrides({ configurable: { thread_id: "t" } })).toEqual({});
    expect(acceptsOverrides(RunnableLambda.from(() => 1))).toBe(false);
    expect(acceptsOverrides(Object.assign(RunnableLambda.from(() => 1), { [AGENT_OVERRIDES]: true }))).toBe(true);
  });
});
