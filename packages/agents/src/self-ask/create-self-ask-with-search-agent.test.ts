import { FORCE_FINAL_ANSWER_INSTRUCTION, InvalidArgumentError, type AgentAction } from "@agentrx/core";
import { PromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { textOnlyModel } from "../test-utils/text-only-model";
import { createSelfAskWithSearchAgent } from "./create-self-ask-with-search-agent";
import { createSelfAskPrompt } from "./self-ask-prompt";

const intermediate = tool(async (query: string) => `Answer to ${query}`, {
  name: "Intermediate Answer",
  description: "Search the web.",
  schema: z.string(),
});

describe("createSelfAskWithSearchAgent", () => {
  it("stops at \\nIntermediate answer: and asks the follow-up question", async () => {
    const llm = textOnlyModel({ responses: [" Yes.\nFollow up: Who composed it?\nIntermediate answer: made up"] });
    const agent = createSelfAskWithSearchAgent({ llm, tools: [intermediate], prompt: createSelfAskPrompt() });
    expect(await agent.invoke({ input: "Who?", steps: [] })).toMatchObject({ tool: "Intermediate Answer", toolInput: "Who composed it?" });
    expect(llm.calls[0]?.stop).toEqual(["\nIntermediate answer:"]);
  });

  it("formats the steps with Intermediate answer: and ends with the instruction on forceFinalAnswer", async () => {
    const llm = textOnlyModel({ responses: ["So the final answer is: Bach"] });
    const agent = createSelfAskWithSearchAgent({ llm, tools: [intermediate], prompt: createSelfAskPrompt() });
    const action: AgentAction = { tool: "Intermediate Answer", toolInput: "Who?", log: " Yes.\nFollow up: Who?" };
    const output = await agent.invoke({ input: "Who?", steps: [{ action, observation: "Bach" }], forceFinalAnswer: true });
    expect(output).toMatchObject({ returnValues: { output: "Bach" } });
    const text = llm.calls[0]?.messages[0]?.text ?? "";
    expect(text).toContain("Follow up: Who?\n\nIntermediate answer: Bach\n");
    expect(text.endsWith(FORCE_FINAL_ANSWER_INSTRUCTION)).toBe(true);
  });

  it("requires exactly one tool named Intermediate Answer, and agent_scratchpad", () => {
    const llm = textOnlyModel({ responses: [] });
    const other = tool(async () => "", { name: "search", description: "", schema: z.string() });
    expect(() => createSelfAskWithSearchAgent({ llm, tools: [other], prompt: createSelfAskPrompt() })).toThrow(InvalidArgumentError);
    expect(() => createSelfAskWithSearchAgent({ llm, tools: [other], prompt: createSelfAskPrompt() })).toThrow(/named "Intermediate Answer"/);
    expect(() => createSelfAskWithSearchAgent({ llm, tools: [], prompt: createSelfAskPrompt() })).toThrow(/exactly one tool/);
    expect(() => createSelfAskWithSearchAgent({ llm, tools: [intermediate], prompt: PromptTemplate.fromTemplate("{input}") })).toThrow(
      /"agent_scratchpad"/,
    );
  });
});
