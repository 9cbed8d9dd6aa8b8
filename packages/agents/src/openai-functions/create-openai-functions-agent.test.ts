import { FORCE_FINAL_ANSWER_INSTRUCTION, markFinalAnswerTool, type AgentAction } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { UnsupportedModelError } from "../errors/unsupported-model-error";
import { textOnlyModel } from "../test-utils/text-only-model";
import { createOpenAIFunctionsAgent } from "./create-openai-functions-agent";

const search = tool(async ({ query }: { query: string }) => `Results for ${query}`, {
  name: "search",
  description: "Search the web.",
  schema: z.object({ query: z.string() }),
});
const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);

describe("createOpenAIFunctionsAgent", () => {
  it("binds the tools and returns one action per turn", async () => {
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "search", args: { query: "a" } }, { name: "search", args: { query: "b" } }] }] });
    const agent = createOpenAIFunctionsAgent({ llm, tools: [search], prompt });
    const action = (await agent.invoke({ input: "x", steps: [] })) as AgentAction;
    expect(Array.isArray(action)).toBe(false);
    expect(action).toMatchObject({ tool: "search", toolInput: { query: "a" } });
    expect(llm.calls[0]?.toolNames).toEqual(["search"]);
  });

  it("calls the model without tools on forceFinalAnswer", async () => {
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "search", args: { query: "a" } }] }, "Final"] });
    const agent = createOpenAIFunctionsAgent({ llm, tools: [search], prompt });
    const action = (await agent.invoke({ input: "x", steps: [] })) as AgentAction;
    const output = await agent.invoke({ input: "x", steps: [{ action, observation: "found" }], forceFinalAnswer: true });
    expect(output).toEqual({ returnValues: { output: "Final" }, log: "Final" });
    expect(llm.calls[1]?.tools).toEqual([]);
    expect(llm.calls[1]?.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "human"]);
    expect(llm.calls[1]?.messages.at(-1)?.text).toBe(FORCE_FINAL_ANSWER_INSTRUCTION);
  });

  it("binds only the final-answer tool (finalAnswerTool of @agentrx/executors), forced, on forceFinalAnswer when it is one of the tools", async () => {
    const answer = markFinalAnswerTool(tool(async (input) => JSON.stringify(input), { name: "final_answer", description: "The answer.", schema: z.object({ city: z.string() }) }));
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "final_answer", args: { city: "Oslo" } }] }] });
    const agent = createOpenAIFunctionsAgent({ llm, tools: [search, answer], prompt });
    const action = (await agent.invoke({ input: "x", steps: [], forceFinalAnswer: true })) as AgentAction;
    expect(llm.calls[0]?.toolNames).toEqual(["final_answer"]);
    expect(llm.calls[0]?.toolChoice).toBe("final_answer");
    expect(action).toMatchObject({ tool: "final_answer", toolInput: { city: "Oslo" } });
  });

  it('binds tool_choice "none" on forceFinalAnswer with forceFinalAnswerMode "tool-choice-none"', async () => {
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "search", args: { query: "a" } }] }, "Final"] });
    const agent = createOpenAIFunctionsAgent({ llm, tools: [search], prompt, forceFinalAnswerMode: "tool-choice-none" });
    const action = (await agent.invoke({ input: "x", steps: [] })) as AgentAction;
    expect(llm.calls[0]?.toolChoice).toBeUndefined();
    const output = await agent.invoke({ input: "x", steps: [{ action, observation: "found" }], forceFinalAnswer: true });
    expect(output).toEqual({ returnValues: { output: "Final" }, log: "Final" });
    expect(llm.calls[1]?.toolNames).toEqual(["search"]);
    expect(llm.calls[1]?.toolChoice).toBe("none");
    expect(llm.calls[1]?.messages.at(-1)?.text).toBe(FORCE_FINAL_ANSWER_INSTRUCTION);
    expect(() =>
      createOpenAIFunctionsAgent({ llm, tools: [search], prompt, forceFinalAnswerMode: "never" as "without-tools" }),
    ).toThrow(/forceFinalAnswerMode/);
  });

  it("requires bindTools and a messages placeholder", () => {
    expect(() => createOpenAIFunctionsAgent({ llm: textOnlyModel({ responses: [] }), tools: [search], prompt })).toThrow(UnsupportedModelError);
    const llm = new ScriptedChatModel({ responses: [] });
    expect(() => createOpenAIFunctionsAgent({ llm, tools: [search], prompt: ChatPromptTemplate.fromMessages([["human", "{input}"]]) })).toThrow(
      /"agent_scratchpad"/,
    );
  });
});
