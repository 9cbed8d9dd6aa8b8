import { FORCE_FINAL_ANSWER_INSTRUCTION, type AgentAction } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { ChatPromptTemplate, MessagesPlaceholder, PromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidPromptError } from "../errors/invalid-prompt-error";
import { textOnlyModel } from "../test-utils/text-only-model";
import { createReactAgent } from "./create-react-agent";
import { createReactPrompt } from "./react-prompt";

const search = tool(async ({ query }: { query: string }) => `Results for ${query}`, {
  name: "search",
  description: "Search the web.",
  schema: z.object({ query: z.string() }),
});

describe("createReactAgent", () => {
  it("fills tools and tool_names, stops at \\nObservation: and parses the action", async () => {
    const llm = textOnlyModel({ responses: ["Thought: look\nAction: search\nAction Input: Paris\nObservation: made up"] });
    const agent = createReactAgent({ llm, tools: [search], prompt: createReactPrompt() });
    const action = (await agent.invoke({ input: "Weather?", steps: [] })) as AgentAction;
    expect(action).toEqual({ tool: "search", toolInput: "Paris", log: "Thought: look\nAction: search\nAction Input: Paris" });
    const call = llm.calls[0];
    expect(call?.stop).toEqual(["\nObservation:"]);
    const prompt = call?.messages[0]?.text ?? "";
    expect(prompt).toContain("search: Search the web.");
    expect(prompt).toContain("one of [search]");
    expect(prompt).toContain("Question: Weather?");
  });

  it("sends the steps as text and ends the scratchpad with the instruction on forceFinalAnswer", async () => {
    const llm = new ScriptedChatModel({ responses: ["Final Answer: Sunny", "Final Answer: Sunny"] });
    const agent = createReactAgent({ llm, tools: [search], prompt: createReactPrompt() });
    const action: AgentAction = { tool: "search", toolInput: "Paris", log: "Action: search\nAction Input: Paris" };
    await agent.invoke({ input: "Weather?", steps: [{ action, observation: "18C" }] });
    expect(llm.calls[0]?.messages[0]?.text).toMatch(/Action Input: Paris\nObservation: 18C\nThought: $/);
    const output = await agent.invoke({ input: "Weather?", steps: [{ action, observation: "18C" }], forceFinalAnswer: true });
    expect(output).toEqual({ returnValues: { output: "Sunny" }, log: "Final Answer: Sunny" });
    expect(llm.calls[1]?.messages[0]?.text.endsWith(FORCE_FINAL_ANSWER_INSTRUCTION)).toBe(true);
    expect(llm.calls[1]?.tools).toEqual([]);
  });

  it("names every missing prompt variable", () => {
    const llm = textOnlyModel({ responses: [] });
    const prompt = PromptTemplate.fromTemplate("{input} {tools}");
    let error: unknown;
    try {
      createReactAgent({ llm, tools: [search], prompt });
    } catch (caught) {
      error = caught;
    }
    expect(InvalidPromptError.isInstance(error)).toBe(true);
    expect((error as InvalidPromptError).missingVariables).toEqual(["tool_names", "agent_scratchpad"]);
    expect((error as Error).message).toContain('"tool_names", "agent_scratchpad"');
  });

  it("accepts partial variables and rejects a messages placeholder scratchpad", async () => {
    const llm = textOnlyModel({ responses: ["Final Answer: ok"] });
    const partial = new PromptTemplate({
      template: "{tools} {tool_names} {input} {agent_scratchpad}",
      inputVariables: ["input", "agent_scratchpad", "tool_names"],
      partialVariables: { tools: "custom tools" },
    });
    const agent = createReactAgent({ llm, tools: [search], prompt: partial });
    expect(await agent.invoke({ input: "x", steps: [] })).toMatchObject({ returnValues: { output: "ok" } });
    // The prompt's own value is sent, not the tools' description.
    expect(llm.calls[0]?.messages[0]?.text).toMatch(/^custom tools search x/);
    const chatPartial = await ChatPromptTemplate.fromMessages([["human", "{tools} {tool_names} {input} {agent_scratchpad}"]]).partial({
      tool_names: "my names",
    });
    const chatLlm = textOnlyModel({ responses: ["Final Answer: ok"] });
    await createReactAgent({ llm: chatLlm, tools: [search], prompt: chatPartial }).invoke({ input: "x", steps: [] });
    expect(chatLlm.calls[0]?.messages[0]?.text).toMatch(/^search: .* my names x/s);
    const chatMissing = await ChatPromptTemplate.fromMessages([["human", "{tools} {input}"]]).partial({ tools: "T" });
    expect(() => createReactAgent({ llm, tools: [search], prompt: chatMissing })).toThrow(/missing the input variables "tool_names", "agent_scratchpad"/);
    const chat = ChatPromptTemplate.fromMessages([["human", "{tools} {tool_names} {input}"], new MessagesPlaceholder("agent_scratchpad")]);
    expect(() => createReactAgent({ llm, tools: [search], prompt: chat })).toThrow(/fills "agent_scratchpad" with text/);
  });

  it("validates stop and tools", () => {
    const llm = textOnlyModel({ responses: [] });
    expect(() => createReactAgent({ llm, tools: [search], prompt: createReactPrompt(), stop: [""] })).toThrow(
      /^createReactAgent: `stop` must be an array of non-empty strings \(or \[\] for none\), got \[""\]\.$/,
    );
    expect(() => createReactAgent({ llm, tools: [search], prompt: createReactPrompt(), stop: ["\n"] })).not.toThrow();
    expect(() => createReactAgent({ llm, tools: [search, search], prompt: createReactPrompt() })).toThrow(/unique/);
    expect(() => createReactAgent({ llm: {} as never, tools: [search], prompt: createReactPrompt() })).toThrow(/`llm`/);
  });
});
