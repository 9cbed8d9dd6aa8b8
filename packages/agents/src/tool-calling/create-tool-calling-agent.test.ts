import { AGENT_MODEL_KEY, FORCE_FINAL_ANSWER_INSTRUCTION, InvalidArgumentError, markFinalAnswerTool, type AgentStep, type ToolAgentAction } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { OutputParserException } from "@langchain/core/output_parsers";
import { ChatPromptTemplate, MessagesPlaceholder, PromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidPromptError } from "../errors/invalid-prompt-error";
import { UnsupportedModelError } from "../errors/unsupported-model-error";
import { textOnlyModel } from "../test-utils/text-only-model";
import { createOpenAIToolsAgent, createToolCallingAgent } from "./create-tool-calling-agent";

const search = tool(async ({ query }: { query: string }) => `Results for ${query}`, {
  name: "search",
  description: "Search the web.",
  schema: z.object({ query: z.string() }),
});
const calc = tool(async ({ expression }: { expression: string }) => expression, {
  name: "calc",
  description: "Evaluate arithmetic.",
  schema: z.object({ expression: z.string() }),
});
const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are helpful."],
  ["human", "{input}"],
  new MessagesPlaceholder("agent_scratchpad"),
]);

describe("createToolCallingAgent", () => {
  it("turns the tool calls of one message into several actions sharing the message", async () => {
    const llm = new ScriptedChatModel({
      responses: [
        {
          content: "Let me check.",
          toolCalls: [
            { name: "search", args: { query: "Paris" }, id: "a" },
            { name: "calc", args: { expression: "1+1" }, id: "b" },
          ],
        },
      ],
    });
    const agent = createToolCallingAgent({ llm, tools: [search, calc], prompt });
    const output = (await agent.invoke({ input: "hi", steps: [] })) as ToolAgentAction[];
    expect(output.map((action) => [action.tool, action.toolInput, action.toolCallId])).toEqual([
      ["search", { query: "Paris" }, "a"],
      ["calc", { expression: "1+1" }, "b"],
    ]);
    expect(output[0]?.log).toBe('Invoking "search" with {"query":"Paris"}\nLet me check.');
    expect(AIMessage.isInstance(output[0]?.messageLog[0])).toBe(true);
    expect(output[1]?.messageLog[0]).toBe(output[0]?.messageLog[0]);
    expect(llm.calls[0]?.toolNames).toEqual(["search", "calc"]);
  });

  it("finishes with the message text when there are no tool calls (content blocks too)", async () => {
    const llm = new ScriptedChatModel({
      responses: [{ content: [{ type: "text", text: "Paris " }, { type: "text", text: "is sunny." }] }],
    });
    const agent = createToolCallingAgent({ llm, tools: [search], prompt });
    const output = await agent.invoke({ input: "hi", steps: [] });
    expect(output).toEqual({ returnValues: { output: "Paris is sunny." }, log: "Paris is sunny." });
  });

  it("sends the steps back as the AI message once, then one tool message per call", async () => {
    const llm = new ScriptedChatModel({
      responses: [
        { toolCalls: [{ name: "search", args: { query: "a" } }, { name: "calc", args: { expression: "2" } }] },
        "done",
      ],
    });
    const agent = createToolCallingAgent({ llm, tools: [search, calc], prompt });
    const actions = (await agent.invoke({ input: "hi", steps: [] })) as ToolAgentAction[];
    const steps: AgentStep[] = actions.map((action, index) => ({ action, observation: `obs ${index}` }));
    await agent.invoke({ input: "hi", steps });
    const messages = llm.calls[1]?.messages ?? [];
    expect(messages.map((message) => message.getType())).toEqual(["system", "human", "ai", "tool", "tool"]);
    expect((messages[3] as ToolMessage).tool_call_id).toBe("call_0_0");
    expect((messages[4] as ToolMessage).content).toBe("obs 1");
  });

  it("raises OutputParserException naming the tool when arguments are not JSON", async () => {
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "search", args: "not json" }] }] });
    const agent = createToolCallingAgent({ llm, tools: [search], prompt });
    const error = await agent.invoke({ input: "hi", steps: [] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutputParserException);
    const exception = error as OutputParserException;
    expect(exception.message).toContain('tool "search"');
    expect(exception.message).toContain("invalid JSON");
    expect(exception.sendToLLM).toBe(true);
    expect(exception.observation).toContain('tool "search"');
    expect(exception.llmOutput).toContain("not json");
  });

  it("raises OutputParserException when the arguments are JSON but not an object", async () => {
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "calc", args: "[1,2]" }] }] });
    const agent = createToolCallingAgent({ llm, tools: [calc], prompt });
    await expect(agent.invoke({ input: "hi", steps: [] })).rejects.toThrow(/tool "calc".*JSON object, got an array/);
  });

  it("calls the plain model without tools on forceFinalAnswer, ending the scratchpad with the instruction", async () => {
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "search", args: { query: "a" } }] }, "Final."] });
    const agent = createToolCallingAgent({ llm, tools: [search], prompt });
    const actions = (await agent.invoke({ input: "hi", steps: [] })) as ToolAgentAction[];
    const steps = actions.map((action) => ({ action, observation: "sunny" }));
    const output = await agent.invoke({ input: "hi", steps, forceFinalAnswer: true });
    expect(output).toEqual({ returnValues: { output: "Final." }, log: "Final." });
    const call = llm.calls[1];
    expect(call?.tools).toEqual([]);
    expect(call?.toolChoice).toBeUndefined();
    const last = call?.messages.at(-1);
    expect(HumanMessage.isInstance(last)).toBe(true);
    expect(last?.text).toBe(FORCE_FINAL_ANSWER_INSTRUCTION);
  });

  it('binds tool_choice "none" on forceFinalAnswer with forceFinalAnswerMode "tool-choice-none"', async () => {
    const llm = new ScriptedChatModel({ responses: ["Final."] });
    const agent = createToolCallingAgent({ llm, tools: [search], prompt, forceFinalAnswerMode: "tool-choice-none" });
    await agent.invoke({ input: "hi", steps: [], forceFinalAnswer: true });
    expect(llm.calls[0]?.toolNames).toEqual(["search"]);
    expect(llm.calls[0]?.toolChoice).toBe("none");
  });

  describe("with the final-answer tool (finalAnswerTool of @agentrx/executors) among its tools", () => {
    const answerTool = () =>
      markFinalAnswerTool(tool(async (input) => JSON.stringify(input), { name: "final_answer", description: "The answer.", schema: z.object({ city: z.string() }) }));

    it.each(["without-tools", "tool-choice-none"] as const)("binds that tool alone, forced, on forceFinalAnswer (forceFinalAnswerMode %s)", async (forceFinalAnswerMode) => {
      const llm = new ScriptedChatModel({
        responses: [{ toolCalls: [{ name: "search", args: { query: "a" } }] }, { toolCalls: [{ name: "final_answer", args: { city: "Oslo" } }] }],
      });
      const agent = createToolCallingAgent({ llm, tools: [search, answerTool(), calc], prompt, forceFinalAnswerMode });
      const actions = (await agent.invoke({ input: "hi", steps: [] })) as ToolAgentAction[];
      expect(llm.calls[0]?.toolNames).toEqual(["search", "final_answer", "calc"]);
      expect(llm.calls[0]?.toolChoice).toBeUndefined();
      const steps = actions.map((action) => ({ action, observation: "sunny" }));
      const output = (await agent.invoke({ input: "hi", steps, forceFinalAnswer: true })) as ToolAgentAction[];
      expect(llm.calls[1]?.toolNames).toEqual(["final_answer"]);
      expect(llm.calls[1]?.toolChoice).toBe("final_answer");
      expect(llm.calls[1]?.messages.at(-1)?.text).toBe(FORCE_FINAL_ANSWER_INSTRUCTION);
      expect(output.map((action) => [action.tool, action.toolInput])).toEqual([["final_answer", { city: "Oslo" }]]);
    });

    it("does so for a model swapped in for the call too", async () => {
      const own = new ScriptedChatModel({ responses: [] });
      const other = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "final_answer", args: { city: "Oslo" } }] }] });
      const agent = createToolCallingAgent({ llm: own, tools: [search, answerTool()], prompt });
      await agent.invoke({ input: "hi", steps: [], forceFinalAnswer: true }, { configurable: { [AGENT_MODEL_KEY]: other } });
      expect(other.calls[0]?.toolNames).toEqual(["final_answer"]);
      expect(other.calls[0]?.toolChoice).toBe("final_answer");
    });

    it("offers it unforced to a model with extended thinking on (Anthropic refuses a forced tool choice then)", async () => {
      const llm = Object.assign(new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "final_answer", args: { city: "Oslo" } }] }] }), { thinking: { type: "enabled", budget_tokens: 1024 } });
      const agent = createToolCallingAgent({ llm, tools: [search, answerTool()], prompt });
      await agent.invoke({ input: "hi", steps: [], forceFinalAnswer: true });
      expect(llm.calls[0]?.toolNames).toEqual(["final_answer"]);
      expect(llm.calls[0]?.toolChoice).toBeUndefined();
    });

    it("treats a tool of the user's named final_answer (not made by finalAnswerTool) as any other tool", async () => {
      const mine = tool(async () => "sent", { name: "final_answer", description: "Mails the answer.", schema: z.object({}) });
      const llm = new ScriptedChatModel({ responses: ["Final."] });
      const agent = createToolCallingAgent({ llm, tools: [search, mine], prompt });
      await agent.invoke({ input: "hi", steps: [], forceFinalAnswer: true });
      expect(llm.calls[0]?.tools).toEqual([]);
      expect(llm.calls[0]?.toolChoice).toBeUndefined();
    });
  });

  it("calls the model inside the runnable so the caller's callbacks stream its tokens", async () => {
    const tokens: string[] = [];
    class Collector extends BaseCallbackHandler {
      name = "collector";
      lc_prefer_streaming = true;
      override handleLLMNewToken(token: string) {
        if (token) tokens.push(token);
      }
    }
    const llm = new ScriptedChatModel({ responses: ["It is sunny."] });
    const agent = createToolCallingAgent({ llm, tools: [search], prompt });
    const output = await agent.invoke({ input: "hi", steps: [] }, { callbacks: [new Collector()] });
    expect(tokens).toEqual(["It ", "is ", "sunny."]);
    expect(llm.calls[0]?.streamed).toBe(true);
    expect(output).toEqual({ returnValues: { output: "It is sunny." }, log: "It is sunny." });
  });

  it("is also exported as createOpenAIToolsAgent", async () => {
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "search", args: { query: "x" } }] }] });
    const agent = createOpenAIToolsAgent({ llm, tools: [search], prompt });
    const output = (await agent.invoke({ input: "hi", steps: [] })) as ToolAgentAction[];
    expect(output[0]?.tool).toBe("search");
  });

  describe("validation", () => {
    const llm = new ScriptedChatModel({ responses: [] });

    it("requires an agent_scratchpad messages placeholder, naming it", () => {
      const bad = ChatPromptTemplate.fromMessages([["human", "{input}"]]);
      expect(() => createToolCallingAgent({ llm, tools: [search], prompt: bad })).toThrow(InvalidPromptError);
      expect(() => createToolCallingAgent({ llm, tools: [search], prompt: bad })).toThrow(/"agent_scratchpad"/);
      const asString = ChatPromptTemplate.fromMessages([["human", "{input} {agent_scratchpad}"]]);
      expect(() => createToolCallingAgent({ llm, tools: [search], prompt: asString })).toThrow(/must be a MessagesPlaceholder/);
      const text = PromptTemplate.fromTemplate("{input} {agent_scratchpad}");
      expect(() => createToolCallingAgent({ llm, tools: [search], prompt: text })).toThrow(InvalidPromptError);
    });

    it("requires a model with bindTools", () => {
      const noTools = textOnlyModel({ responses: [] });
      const error = (() => {
        try {
          createToolCallingAgent({ llm: noTools, tools: [search], prompt });
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(UnsupportedModelError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("bindTools");
    });

    it("requires unique tool names and a valid mode", () => {
      expect(() => createToolCallingAgent({ llm, tools: [search, search], prompt })).toThrow(
        'createToolCallingAgent: `tools[0]` and `tools[1]` are both named "search"; tool names must be unique. Rename one of them.',
      );
      expect(() =>
        createToolCallingAgent({ llm, tools: [search], prompt, forceFinalAnswerMode: "nope" as "without-tools" }),
      ).toThrow(InvalidArgumentError);
    });

    it("rejects inputs that are not objects", async () => {
      const agent = createToolCallingAgent({ llm, tools: [search], prompt });
      await expect(agent.invoke("hi" as never)).rejects.toThrow(/must be an object/);
    });
  });
});
