// A reasoning model behind a Chat Completions API (DeepSeek's thinking mode) whose tool call the
// parser has to rebuild (arguments with raw newlines, or a call without an id): the message sent
// back still carries its reasoning, which DeepSeek refuses the next call without.
import { OpenAIChatModel } from "@agentrx/core/openai";
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { AIMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createToolCallingAgent } from "./create-tool-calling-agent";
import { ToolCallingAgentOutputParser } from "./tool-calling-agent-output-parser";

const note = tool(async ({ text }) => `Saved ${text.length} characters.`, {
  name: "note",
  description: "Save a note.",
  schema: z.object({ text: z.string() }),
});
const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
const THOUGHT = "Save it as a two-line note.";

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the tool-calling agent keeps a turn's reasoning when it rebuilds the turn's message", () => {
  for (const streaming of [false, true]) {
    it(`sends reasoning_content back with a call whose arguments hold a raw newline (${streaming ? "streaming" : "not streaming"})`, async () => {
      server = await startOpenAICompatibleServer({
        requireReasoningBack: true,
        responses: [
          // A raw newline inside a JSON string: not valid JSON, accepted as LangChain Python accepts it.
          { reasoning: THOUGHT, toolCalls: [{ name: "note", arguments: '{"text": "line one\nline two"}' }] },
          "Saved.",
        ],
      });
      const llm = new OpenAIChatModel({ model: "deepseek-reasoner", baseURL: server.baseURL, apiKey: "test", maxRetries: 0, streaming });
      const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [note], prompt }), tools: [note] });
      const result = await executor.invoke({ input: "Save two lines." });
      expect(server.rejections).toEqual([]);
      expect(result.output).toBe("Saved.");
      const assistant = server.chatRequests()[1].messages.find((message: { role: string }) => message.role === "assistant");
      expect(assistant.reasoning_content).toBe(THOUGHT);
    });
  }

  it("keeps additional_kwargs (reasoning, signatures) when a call without an id gets one", async () => {
    const message = new AIMessage({
      content: "",
      id: "msg_1",
      tool_calls: [{ name: "note", args: { text: "x" }, type: "tool_call" }],
      additional_kwargs: { reasoning_content: THOUGHT, custom: { kept: true } },
    });
    const [action] = (await new ToolCallingAgentOutputParser().invoke(message)) as { messageLog: AIMessage[]; toolCallId: string }[];
    const logged = action!.messageLog[0]!;
    expect(logged.tool_calls?.[0]?.id).toBe(action!.toolCallId);
    expect(logged.additional_kwargs).toEqual({ reasoning_content: THOUGHT, custom: { kept: true } });
  });
});
