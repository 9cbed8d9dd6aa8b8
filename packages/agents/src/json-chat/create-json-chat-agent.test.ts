import { FORCE_FINAL_ANSWER_INSTRUCTION, InvalidArgumentError, type AgentAction } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidPromptError } from "../errors/invalid-prompt-error";
import { textOnlyModel } from "../test-utils/text-only-model";
import { createJsonChatAgent } from "./create-json-chat-agent";
import { createJsonChatPrompt } from "./json-chat-prompt";

const search = tool(async ({ query }: { query: string }) => `Results for ${query}`, {
  name: "search",
  description: "Search the web.",
  schema: z.object({ query: z.string() }),
});
const blob = (action: string, input: unknown) => `\`\`\`json\n${JSON.stringify({ action, action_input: input })}\n\`\`\``;

describe("createJsonChatAgent", () => {
  it("fills tools and tool_names, stops at \\nObservation and parses the blob", async () => {
    const llm = textOnlyModel({ responses: [blob("search", { query: "Paris" })] });
    const agent = createJsonChatAgent({ llm, tools: [search], prompt: createJsonChatPrompt() });
    expect(await agent.invoke({ input: "Weather?", steps: [] })).toMatchObject({ tool: "search", toolInput: { query: "Paris" } });
    const call = llm.calls[0];
    expect(call?.stop).toEqual(["\nObservation"]);
    expect(call?.messages.map((m) => m.getType())).toEqual(["system", "human"]);
    expect(call?.messages[1]?.text).toContain("search: Search the web.");
    expect(call?.messages[1]?.text).toContain("must be one of: search");
    expect(call?.messages[1]?.text).toContain("Weather?");
  });

  it("sends the steps as messages (the log, then the tool response) and the chat history before the input", async () => {
    const llm = new ScriptedChatModel({ responses: ["Final Answer: Sunny"] });
    const agent = createJsonChatAgent({ llm, tools: [search], prompt: createJsonChatPrompt() });
    const action: AgentAction = { tool: "search", toolInput: { query: "Paris" }, log: blob("search", { query: "Paris" }) };
    const chat_history = [new HumanMessage("Hi, I am Bob"), new AIMessage("Hello Bob!")];
    const output = await agent.invoke({ input: "Weather?", chat_history, steps: [{ action, observation: "18C" }] });
    expect(output).toEqual({ returnValues: { output: "Sunny" }, log: "Final Answer: Sunny" });
    const messages = llm.calls[0]?.messages ?? [];
    expect(messages.map((m) => m.getType())).toEqual(["system", "human", "ai", "human", "ai", "human"]);
    expect(messages[1]?.text).toBe("Hi, I am Bob");
    expect(messages[4]?.text).toBe(action.log);
    expect(messages[5]?.text).toMatch(/^TOOL RESPONSE:\n-+\n18C\n/);
  });

  it("ends the scratchpad with the final-answer instruction on forceFinalAnswer", async () => {
    const llm = new ScriptedChatModel({ responses: [blob("Final Answer", "Sunny")] });
    const agent = createJsonChatAgent({ llm, tools: [search], prompt: createJsonChatPrompt() });
    expect(await agent.invoke({ input: "Weather?", steps: [], forceFinalAnswer: true })).toMatchObject({ returnValues: { output: "Sunny" } });
    const last = llm.calls[0]?.messages.at(-1);
    expect(last?.getType()).toBe("human");
    expect(last?.text.endsWith(FORCE_FINAL_ANSWER_INSTRUCTION)).toBe(true);
    expect(last?.text).toContain('"Final Answer" JSON blob');
  });

  it("binds no stop sequence with stop: [], and renders the tools with toolsRenderer", async () => {
    const llm = textOnlyModel({ responses: ["Final Answer: ok"] });
    const agent = createJsonChatAgent({ llm, tools: [search], prompt: createJsonChatPrompt(), stop: [], toolsRenderer: (tools) => tools.map((t) => `* ${t.name}`).join("\n") });
    await agent.invoke({ input: "x", steps: [] });
    expect(llm.calls[0]?.stop).toBeUndefined();
    expect(llm.calls[0]?.messages[1]?.text).toContain("* search");
  });

  it("is a visible pipeline: scratchpad → prompt → model → parser", () => {
    const agent = createJsonChatAgent({ llm: new ScriptedChatModel({ responses: [] }), tools: [search], prompt: createJsonChatPrompt() });
    expect(Object.values(agent.getGraph().nodes).map((node) => node.name)).toEqual([
      "FormatAgentScratchpadInput",
      "FormatAgentScratchpad",
      "ChatPromptTemplate",
      "ScriptedChatModel",
      "ReActJsonSingleInputOutputParser",
      "ReActJsonSingleInputOutputParserOutput",
    ]);
  });

  it("validates its prompt and options", () => {
    const llm = new ScriptedChatModel({ responses: [] });
    const noTools = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
    expect(() => createJsonChatAgent({ llm, tools: [search], prompt: noTools })).toThrow(InvalidPromptError);
    expect(() => createJsonChatAgent({ llm, tools: [search], prompt: noTools })).toThrow(/"tools", "tool_names"/);
    const textScratchpad = ChatPromptTemplate.fromMessages([["human", "{tools} {tool_names} {input} {agent_scratchpad}"]]);
    expect(() => createJsonChatAgent({ llm, tools: [search], prompt: textScratchpad })).toThrow(/must be a MessagesPlaceholder/);
    expect(() => createJsonChatAgent({ llm, tools: [search], prompt: createJsonChatPrompt(), stop: [""] })).toThrow(InvalidArgumentError);
    expect(() => createJsonChatAgent({ llm, tools: [search], prompt: createJsonChatPrompt(), toolsRenderer: "x" as never })).toThrow(/toolsRenderer/);
    expect(() => createJsonChatAgent(null as never)).toThrow(/pass an options object/);
  });
});
