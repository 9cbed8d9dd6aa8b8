// A tool that returns an image, on OpenAI's two APIs: Chat Completions takes text only in a tool
// message (an image there is a 400, which the loopback server answers as OpenAI does), so the
// tool-calling agent sends the images in a user message after the turn's tool results; the
// Responses API takes them in the function call's output, as `input_image` items.
import { createToolCallingAgent, type ToolImages } from "@agentrx/agents";
import { OpenAIChatModel } from "@agentrx/core/openai";
import { ScriptedChatModel, startOpenAICompatibleServer, startOpenAIResponsesServer } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { prompt } from "./agent-setup";
import { cleanupAfterEach } from "./support";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const DATA_URL = `data:image/png;base64,${PNG}`;
const chart = tool(async ({ month }) => [{ type: "text", text: `Sales in ${month}:` }, { type: "image", mimeType: "image/png", data: PNG }], {
  name: "chart",
  description: "Draws the sales chart of a month.",
  schema: z.object({ month: z.string() }),
});

const { track } = cleanupAfterEach();

function executor(llm: BaseChatModel, toolImages?: ToolImages) {
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [chart], prompt, ...(toolImages ? { toolImages } : {}) }), tools: [chart] });
}

async function chatCompletionsRun(model: (baseURL: string) => BaseChatModel, toolImages?: ToolImages) {
  const server = track(
    await startOpenAICompatibleServer({
      responses: [{ toolCalls: ["May", "June"].map((month) => ({ name: "chart", arguments: { month }, id: `call_${month}` })) }, "Sales grow."],
    }),
  );
  const result = await lastValueFrom(executor(model(server.baseURL), toolImages).invoke({ input: "Show May and June." }));
  return { server, result, sent: server.chatRequests()[1]?.["messages"] as Record<string, unknown>[] };
}

const chatOpenAI = (baseURL: string) => new ChatOpenAI({ model: "gpt-4o", apiKey: "test", configuration: { baseURL }, maxRetries: 0 });
const openAIChatModel = (baseURL: string) => new OpenAIChatModel({ model: "gpt-4o", apiKey: "test", baseURL, maxRetries: 0 });

describe("a tool's images on OpenAI", () => {
  for (const [name, model] of [
    ["ChatOpenAI", chatOpenAI],
    ["OpenAIChatModel", openAIChatModel],
  ] as const) {
    it(`${name} on Chat Completions: the tool results say where the images went, and one user message after them carries both`, async () => {
      const { server, result, sent } = await chatCompletionsRun(model);
      expect(server.rejections).toEqual([]);
      expect(result.output).toBe("Sales grow.");
      expect(sent.map((message) => message["role"])).toEqual(["system", "user", "assistant", "tool", "tool", "user"]);
      expect(sent[3]).toMatchObject({ role: "tool", tool_call_id: "call_May" });
      expect(JSON.stringify(sent[3]?.["content"])).toContain("Sales in May:\\n[image 1: in the user message after the tool results]");
      expect(JSON.stringify(sent[4]?.["content"])).toContain("Sales in June:\\n[image 2: in the user message after the tool results]");
      expect(sent[5]?.["content"]).toEqual([
        { type: "text", text: "The images the tools above returned:" },
        { type: "text", text: "Image 1 (from chart, call call_May):" },
        { type: "image_url", image_url: { url: DATA_URL } },
        { type: "text", text: "Image 2 (from chart, call call_June):" },
        { type: "image_url", image_url: { url: DATA_URL } },
      ]);
    });
  }

  it("the images in the tool message itself are what OpenAI refuses (the server answers its 400)", async () => {
    const server = track(await startOpenAICompatibleServer({ responses: ["unused"] }));
    const llm = chatOpenAI(server.baseURL);
    const history = [
      new HumanMessage("Show May."),
      new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "chart", args: { month: "May" } }] }),
      new ToolMessage({ tool_call_id: "call_1", content: [{ type: "text", text: "Sales in May:" }, { type: "image_url", image_url: { url: DATA_URL } }] }),
    ];
    await expect(llm.invoke(history)).rejects.toThrow(/Image URLs are only allowed for messages with role 'user'/);
    expect(server.rejections).toHaveLength(1);
  });

  it('toolImages: "text" sends a note in place of each image', async () => {
    const { server, sent } = await chatCompletionsRun(chatOpenAI, "text");
    expect(server.rejections).toEqual([]);
    expect(sent.map((message) => message["role"])).toEqual(["system", "user", "assistant", "tool", "tool"]);
    expect(JSON.stringify(sent[3]?.["content"])).toContain("Sales in May:\\n[image: image/png, 70 B; this agent reads text only]");
  });

  it("a tool result with images in the history (a thread's memory) goes to Chat Completions the same way", async () => {
    const server = track(await startOpenAICompatibleServer({ responses: ["It grew in May."] }));
    const chat_history = [
      new HumanMessage("Show May."),
      new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "chart", args: { month: "May" } }] }),
      new ToolMessage({ tool_call_id: "call_1", name: "chart", content: [{ type: "text", text: "Sales in May:" }, { type: "image", mimeType: "image/png", data: PNG }] }),
      new AIMessage("Here is May."),
    ];
    const result = await lastValueFrom(executor(chatOpenAI(server.baseURL)).invoke({ input: "Did it grow?", chat_history }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("It grew in May.");
    const sent = server.chatRequests()[0]?.["messages"] as Record<string, unknown>[];
    expect(sent.map((message) => message["role"])).toEqual(["system", "user", "assistant", "tool", "user", "assistant", "user"]);
    expect(sent[4]?.["content"]).toContainEqual({ type: "image_url", image_url: { url: DATA_URL } });
  });

  it("ChatOpenAI on the Responses API: the function call's output carries the image as an input_image", async () => {
    const server = track(
      await startOpenAIResponsesServer({ responses: [{ toolCalls: [{ name: "chart", arguments: { month: "May" } }] }, { text: "Sales grow." }] }),
    );
    const llm = new ChatOpenAI({ model: "gpt-4.1", apiKey: "test", configuration: { baseURL: server.baseURL }, useResponsesApi: true, maxRetries: 0 });
    const result = await lastValueFrom(executor(llm).invoke({ input: "Show May." }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("Sales grow.");
    const input = server.responseRequests()[1]?.["input"] as Record<string, unknown>[];
    expect(input.find((item) => item["type"] === "function_call_output")?.["output"]).toEqual([
      { type: "input_text", text: "Sales in May:" },
      { type: "input_image", image_url: DATA_URL, detail: "auto" },
    ]);
  });

  it("a model swapped in for a call (prepareStep) gets the placement its API takes", async () => {
    const server = track(await startOpenAICompatibleServer({ responses: ["Sales grow."] }));
    const scripted = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "chart", args: { month: "May" } }] }] });
    const agent = createToolCallingAgent({ llm: scripted, tools: [chart], prompt });
    const swap = chatOpenAI(server.baseURL);
    const middleware = [{ name: "swap", prepareStep: ({ iteration }: { iteration: number }) => (iteration === 1 ? { model: swap } : undefined) }];
    const result = await lastValueFrom(new AgentExecutor({ agent, tools: [chart], middleware }).invoke({ input: "Show May." }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("Sales grow.");
    const sent = server.chatRequests()[0]?.["messages"] as Record<string, unknown>[];
    expect(sent.map((message) => message["role"])).toEqual(["system", "user", "assistant", "tool", "user"]);
  });
});
