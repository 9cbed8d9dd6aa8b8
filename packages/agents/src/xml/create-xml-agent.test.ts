import { FORCE_FINAL_ANSWER_INSTRUCTION, messageStep, type AgentAction } from "@agentrx/core";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { textOnlyModel } from "../test-utils/text-only-model";
import { AgentExecutor } from "@agentrx/executors";
import { createXmlAgent } from "./create-xml-agent";
import { createXmlPrompt } from "./xml-prompt";

const search = tool(async (query: string) => `Results for ${query}`, {
  name: "search",
  description: "Search the web.",
  schema: z.string(),
});

describe("createXmlAgent", () => {
  it("stops at the closing tags and parses the cut-off tool input", async () => {
    const llm = textOnlyModel({ responses: ["<tool>search</tool><tool_input>Paris</tool_input>"] });
    const agent = createXmlAgent({ llm, tools: [search], prompt: createXmlPrompt() });
    expect(await agent.invoke({ input: "Weather?", steps: [] })).toMatchObject({ tool: "search", toolInput: "Paris" });
    expect(llm.calls[0]?.stop).toEqual(["</tool_input>", "</final_answer>"]);
    expect(llm.calls[0]?.messages[0]?.text).toContain("search: Search the web.");
  });

  it("formats steps as XML and ends with the instruction on forceFinalAnswer", async () => {
    const llm = textOnlyModel({ responses: ["<final_answer>Sunny</final_answer>"] });
    const agent = createXmlAgent({ llm, tools: [search], prompt: createXmlPrompt() });
    const action: AgentAction = { tool: "search", toolInput: "Paris", log: "" };
    const output = await agent.invoke({ input: "Weather?", steps: [{ action, observation: "18C" }], forceFinalAnswer: true });
    expect(output).toMatchObject({ returnValues: { output: "Sunny" } });
    const text = llm.calls[0]?.messages[0]?.text ?? "";
    expect(text).toContain("<tool>search</tool><tool_input>Paris</tool_input><observation>18C</observation>");
    expect(text.endsWith(FORCE_FINAL_ANSWER_INSTRUCTION)).toBe(true);
  });

  it("shows a message sent to the run as a tagged user message after the steps so far", async () => {
    const llm = textOnlyModel({ responses: ["<final_answer>Sunny; Rome too</final_answer>"] });
    const agent = createXmlAgent({ llm, tools: [search], prompt: createXmlPrompt() });
    const action: AgentAction = { tool: "search", toolInput: "Paris", log: "" };
    await agent.invoke({ input: "Weather?", steps: [{ action, observation: "18C" }, messageStep("Also check Rome.", 1)] });
    const text = llm.calls[0]?.messages[0]?.text ?? "";
    expect(text).toContain("<observation>18C</observation><user_message>Also check Rome.</user_message>");
    expect(text).not.toContain("<tool>_Message</tool>");
  });

  it("after a reply it could not read, shows the model its reply and the fix in the real tags (not escaped), and the fix works", async () => {
    const llm = textOnlyModel({ responses: ["I will search.", "<tool>search</tool><tool_input>Paris</tool_input>", "<final_answer>Sunny</final_answer>"] });
    const agent = createXmlAgent({ llm, tools: [search], prompt: createXmlPrompt() });
    const result = await new AgentExecutor({ agent, tools: [search], handleParsingErrors: true }).invoke({ input: "Weather?" });
    expect(result.output).toBe("Sunny");
    const scratchpad = llm.calls[1]?.messages.map((message) => message.text).join("\n") ?? "";
    expect(scratchpad).toContain("<tool>_Exception</tool><tool_input>I will search.</tool_input><observation>Invalid Format:");
    expect(scratchpad).toContain("Reply with <tool>tool name</tool><tool_input>its input</tool_input> to use a tool");
    expect(scratchpad).not.toContain("[[tool]]");
  });

  it("names the missing prompt variables", () => {
    const llm = textOnlyModel({ responses: [] });
    expect(() => createXmlAgent({ llm, tools: [search], prompt: ChatPromptTemplate.fromMessages([["human", "{input}"]]) })).toThrow(
      /"tools", "agent_scratchpad"/,
    );
  });
});
