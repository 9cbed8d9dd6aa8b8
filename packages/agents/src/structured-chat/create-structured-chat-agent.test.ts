import { FORCE_FINAL_ANSWER_INSTRUCTION, type AgentAction } from "@agentrx/core";
import { tool } from "@langchain/core/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { textOnlyModel } from "../test-utils/text-only-model";
import { createStructuredChatAgent } from "./create-structured-chat-agent";
import { createStructuredChatPrompt } from "./structured-chat-prompt";

const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
  name: "add",
  description: "Add two numbers.",
  schema: z.object({ a: z.number(), b: z.number() }),
});

describe("createStructuredChatAgent", () => {
  it("describes multi-argument tools, stops at \\nObservation and parses the blob", async () => {
    const llm = textOnlyModel({ responses: ['Action:\n```json\n{"action": "add", "action_input": {"a": 2, "b": 3}}\n```\nObservation: 5'] });
    const agent = createStructuredChatAgent({ llm, tools: [add], prompt: createStructuredChatPrompt() });
    expect(await agent.invoke({ input: "2+3?", steps: [] })).toMatchObject({ tool: "add", toolInput: { a: 2, b: 3 } });
    const call = llm.calls[0];
    expect(call?.stop).toEqual(["\nObservation"]);
    expect(call?.messages[0]?.text).toContain('add: Add two numbers., args: {"a":{"type":"number"},"b":{"type":"number"}}');
    expect(call?.messages[0]?.text).toContain('"Final Answer" or one of: add');
  });

  it("ends the scratchpad with the instruction on forceFinalAnswer", async () => {
    const llm = textOnlyModel({ responses: ['```json\n{"action": "Final Answer", "action_input": "5"}\n```'] });
    const agent = createStructuredChatAgent({ llm, tools: [add], prompt: createStructuredChatPrompt() });
    const action: AgentAction = { tool: "add", toolInput: { a: 2, b: 3 }, log: "blob" };
    const output = await agent.invoke({ input: "2+3?", steps: [{ action, observation: "5" }], forceFinalAnswer: true });
    expect(output).toMatchObject({ returnValues: { output: "5" } });
    const human = llm.calls[0]?.messages[1]?.text ?? "";
    expect(human).toContain(`blob\nObservation: 5\nThought: \n\n${FORCE_FINAL_ANSWER_INSTRUCTION}`);
  });

  it("names the missing prompt variables", () => {
    const llm = textOnlyModel({ responses: [] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input} {agent_scratchpad}"]]);
    expect(() => createStructuredChatAgent({ llm, tools: [add], prompt })).toThrow(/"tools", "tool_names"/);
  });
});
