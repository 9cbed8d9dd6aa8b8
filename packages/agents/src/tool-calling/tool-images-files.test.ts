// A tool that returns a file (a PDF) or audio, for a model on OpenAI's Chat Completions: the API
// takes them in a user message only, so `toolImages` moves them there as it moves images
// (see docs/models.md#images).
import { InvalidArgumentError } from "@agentrx/core";
import { OpenAIChatModel } from "@agentrx/core/openai";
import { startAnthropicMessagesServer, startOpenAICompatibleServer, type OpenAICompatibleServer } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import type { AgentStep } from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOpenAI } from "@langchain/openai";
import { createToolCallingAgent } from "./create-tool-calling-agent";
import { modelOf } from "./test-models";
import { toolImagesFor } from "./tool-images";

const pdf = { type: "file", mimeType: "application/pdf", data: "JVBERi0xLjQ=" };
const wav = { type: "audio", mimeType: "audio/wav", data: "UklGRg==" };
const image = { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" };
const video = { type: "video", mimeType: "video/mp4", data: "AAAAGGZ0eXA=" };
const textDocument = { type: "text-plain", mimeType: "text/plain", data: btoa("a,b\n1,2") };
/** The Chat Completions parts `pdf` and `wav` go in, in a user message. */
const pdfPart = { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0xLjQ=", filename: "file.pdf" } };
const wavPart = { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } };
const call = (...ids: string[]) => new AIMessage({ content: "", tool_calls: ids.map((id) => ({ id, name: "report", args: {} })) });
const result = (id: string, content: ToolMessage["content"]) => new ToolMessage({ tool_call_id: id, name: "report", content, status: "success" });

function prepared(mode: Parameters<typeof toolImagesFor>[0], model: BaseChatModel, steps: unknown[]): ToolMessage[] {
  return (toolImagesFor(mode, model)?.({ steps }) as { steps: ToolMessage[] } | undefined)?.steps ?? (steps as ToolMessage[]);
}

describe("toolImages with files and audio", () => {
  it("user-message: a PDF and an audio clip follow the turn's results in the user message, a note in each tool message", () => {
    const sent = prepared("auto", modelOf("openai", false), [call("a", "b"), result("a", [{ type: "text", text: "Report:" }, pdf]), result("b", [wav]), new AIMessage("done")]);
    expect(sent.map((message) => message.getType())).toEqual(["ai", "tool", "tool", "human", "ai"]);
    expect(sent[1]).toMatchObject({ content: "Report:\n[file 1: in the user message after the tool results]", tool_call_id: "a", name: "report", status: "success" });
    expect(sent[2]?.content).toBe("[audio 1: in the user message after the tool results]");
    expect(sent[3]?.content).toEqual([
      { type: "text", text: "The files and audio the tools above returned:" },
      { type: "text", text: "File 1 (from report, call a):" },
      pdfPart,
      { type: "text", text: "Audio 1 (from report, call b):" },
      wavPart,
    ]);
  });

  it("user-message: Anthropic's document block with a PDF moves as a file; one with text becomes its text", () => {
    const pdfDocument = { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } };
    const textDocument = { type: "document", source: { type: "text", media_type: "text/plain", data: "Notes." } };
    const sent = prepared("user-message", modelOf("openai", false), [call("a"), result("a", [pdfDocument, textDocument] as never)]);
    expect(sent[1]?.content).toBe("[file 1: in the user message after the tool results]\nNotes.");
    expect(sent[2]?.content).toEqual([
      { type: "text", text: "The files the tools above returned:" },
      { type: "text", text: "File 1 (from report, call a):" },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "file.pdf" } },
    ]);
  });

  it("user-message: each file and clip goes as the API's own part (a file id, a file name from its metadata); one it cannot say that way stays as it is", () => {
    const named = { type: "file", mimeType: "application/pdf", data: "JVBERi0=", metadata: { filename: "q3.pdf" } };
    const byId = { type: "file", fileId: "file-7" };
    const byUrl = { type: "file", mimeType: "application/pdf", url: "https://example.com/q3.pdf" };
    const ogg = { type: "audio", mimeType: "audio/ogg", data: "T2dnUw==" };
    const mp3 = { type: "audio", url: "data:audio/mpeg;base64,SUQz" };
    const ownPart = { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } };
    const sent = prepared("user-message", modelOf("openai", false), [call("a"), result("a", [named, byId, byUrl, ogg, mp3, ownPart] as never)]);
    const parts = (sent[2]?.content as object[]).filter((_, index) => index > 0 && index % 2 === 0);
    expect(parts).toEqual([
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "q3.pdf" } },
      { type: "file", file: { file_id: "file-7" } },
      byUrl,
      ogg,
      { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } },
      ownPart,
    ]);
  });

  it("user-message: a file given as bytes or in LangChain v0's shape, and wav audio of any of its media types, go as the API's parts as OpenAIChatModel would send them", () => {
    const bytes = { type: "file", mimeType: "application/pdf", data: new Uint8Array([0x25, 0x50, 0x44, 0x46]) };
    const v0 = { type: "file", source_type: "base64", mime_type: "application/pdf", data: "JVBERi0=", metadata: { title: "q3.pdf" } };
    const wave = { type: "audio", mimeType: "audio/vnd.wave", data: "UklGRg==" };
    const sent = prepared("user-message", modelOf("openai", false), [call("a"), result("a", [bytes, v0, wave] as never)]);
    const parts = (sent[2]?.content as object[]).filter((_, index) => index > 0 && index % 2 === 0);
    expect(parts).toEqual([
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERg==", filename: "file.pdf" } },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "q3.pdf" } },
      { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
    ]);
  });

  it("user-message: images and files of one result are numbered by kind; the images alone keep their heading", () => {
    const sent = prepared("user-message", modelOf("anthropic"), [call("a"), result("a", [image, pdf, image])]);
    expect(sent[1]?.content).toBe(
      [
        "[image 1: in the user message after the tool results]",
        "[file 1: in the user message after the tool results]",
        "[image 2: in the user message after the tool results]",
      ].join("\n"),
    );
    expect((sent[2]?.content as { text?: string }[]).filter((block) => block.text !== undefined).map((block) => block.text)).toEqual([
      "The images and files the tools above returned:",
      "Image 1 (from report, call a):",
      "File 1 (from report, call a):",
      "Image 2 (from report, call a):",
    ]);
  });

  it("user-message: a plain-text document becomes its text in the tool message (ChatOpenAI sends a text-plain block as it is, answered 400); a video stays", () => {
    const csv = { type: "file", mimeType: "text/csv", data: btoa("x\n1") };
    const steps = [call("a", "b"), result("a", [{ type: "text", text: "Table:" }, textDocument, csv]), result("b", [{ type: "text", text: "Clip and notes:" }, video, pdf, textDocument])];
    const sent = prepared("auto", modelOf("azure_openai", false), steps);
    expect(sent[1]).toMatchObject({ content: "Table:\na,b\n1,2\nx\n1", tool_call_id: "a" });
    expect(sent[2]?.content).toEqual([{ type: "text", text: "Clip and notes:" }, video, { type: "text", text: "[file 1: in the user message after the tool results]\na,b\n1,2" }]);
    expect(sent[3]?.content).toEqual([{ type: "text", text: "The files the tools above returned:" }, { type: "text", text: "File 1 (from report, call b):" }, pdfPart]);
  });

  it("text: a note with the type and size of each file, audio clip and video; a plain-text document as its text", () => {
    const sent = prepared("text", modelOf("anthropic"), [call("a", "b"), result("a", [{ type: "text", text: "Report:" }, pdf, wav, video]), result("b", [textDocument, pdf])]);
    expect(sent[1]?.content).toBe(
      [
        "Report:",
        "[file: application/pdf, 8 B; this agent reads text only]",
        "[audio: audio/wav, 4 B; this agent reads text only]",
        "[video: video/mp4, 8 B; this agent reads text only]",
      ].join("\n"),
    );
    expect(sent[2]?.content).toBe("a,b\n1,2\n[file: application/pdf, 8 B; this agent reads text only]");
  });

  it("tool-result: a plain-text document goes as its text block to any model, and to Anthropic audio and video as a note (@langchain/anthropic drops them)", () => {
    const steps = [call("a"), result("a", [{ type: "text", text: "Report:" }, textDocument, pdf, image, wav, video])];
    expect(prepared("tool-result", modelOf("anthropic"), steps)[1]?.content).toEqual([
      { type: "text", text: "Report:" },
      { type: "text", text: "a,b\n1,2" },
      pdf,
      image,
      { type: "text", text: "[audio: audio/wav, 4 B; Anthropic's API takes no audio in a tool result]" },
      { type: "text", text: "[video: video/mp4, 8 B; Anthropic's API takes no video in a tool result]" },
    ]);
    expect(prepared("auto", modelOf("google_genai"), steps)[1]?.content).toEqual([{ type: "text", text: "Report:" }, { type: "text", text: "a,b\n1,2" }, pdf, image, wav, video]);
  });

  it("tool-result: a file stays in the tool's result for Anthropic; on OpenAI's Responses API it becomes an input_file item of the output", () => {
    const steps = [call("a"), result("a", [{ type: "text", text: "Report:" }, pdf, textDocument, wav])];
    const anthropic = { steps: [call("a"), result("a", [{ type: "text", text: "Report:" }, pdf])] };
    expect(toolImagesFor("tool-result", modelOf("anthropic"))?.(anthropic)).toBe(anthropic);
    const sent = prepared("auto", modelOf("openai", true), steps);
    expect(sent[1]).toMatchObject({ tool_call_id: "a", name: "report" });
    // @langchain/openai sends a tool message of input_text, input_image and input_file items as the output's items (anything else as JSON text).
    expect(sent[1]?.content).toEqual([
      { type: "input_text", text: "Report:" },
      { type: "input_file", file_data: "data:application/pdf;base64,JVBERi0xLjQ=", filename: "file.pdf" },
      { type: "input_text", text: "a,b\n1,2" },
      { type: "input_text", text: "[audio: audio/wav, 4 B; this agent reads text only]" },
    ]);
  });
});

describe("a tool's PDF or audio, sent to OpenAIChatModel by the tool-calling agent", () => {
  let server: OpenAICompatibleServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
  const report = tool(async () => "", { name: "report", description: "Writes the report.", schema: z.object({}) });
  /** One run of a tool-calling agent on `llm` with the one tool `only`. */
  const runOnce = (llm: BaseChatModel, only: StructuredToolInterface, input: string) =>
    new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [only], prompt }), tools: [only] }).invoke({ input });
  const stepOf = (id: string, observation: AgentStep["observation"]): AgentStep => ({
    action: { tool: "report", toolInput: {}, log: "", toolCallId: id, messageLog: [call("call_1", "call_2")] } as AgentStep["action"],
    observation,
  });

  it("goes in a user message after the tool messages: the request carries a file part and an input_audio part", async () => {
    server = await startOpenAICompatibleServer({ responses: ["Read."] });
    const llm = new OpenAIChatModel({ model: "gpt-4o", baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
    const agent = createToolCallingAgent({ llm, tools: [report], prompt }); // toolImages: "auto"
    const steps = [stepOf("call_1", [{ type: "text", text: "Report:" }, pdf]), stepOf("call_2", [wav])];
    const output = await agent.invoke({ input: "Read the report.", steps });
    expect(output).toMatchObject({ returnValues: { output: "Read." } });
    expect(server.rejections).toEqual([]);
    const messages = server.chatRequests()[0]?.["messages"] as { role: string; content: unknown }[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "tool", "user"]);
    expect(messages[2]?.content).toBe("Report:\n[file 1: in the user message after the tool results]");
    expect(messages[3]?.content).toBe("[audio 1: in the user message after the tool results]");
    expect(messages[4]?.content).toEqual([
      { type: "text", text: "The files and audio the tools above returned:" },
      { type: "text", text: "File 1 (from report, call call_1):" },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0xLjQ=", filename: "file.pdf" } },
      { type: "text", text: "Audio 1 (from report, call call_2):" },
      { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
    ]);
  });

  it("a run whose tool returns a chart with its PDF finishes, the PDF next to the image", async () => {
    const chart = tool(async () => [{ type: "text", text: "Sales:" }, image, pdf], { name: "chart", description: "Draws the chart.", schema: z.object({}) });
    server = await startOpenAICompatibleServer({ responses: [{ toolCalls: [{ name: "chart", arguments: {}, id: "call_1" }] }, "Sales grow."] });
    const llm = new OpenAIChatModel({ model: "gpt-4o", baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
    const result = await runOnce(llm, chart, "Show the sales.");
    expect(result.output).toBe("Sales grow.");
    expect(server.rejections).toEqual([]);
    const messages = server.chatRequests()[1]?.["messages"] as { role: string; content: { type: string }[] }[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(messages[3]?.content.map((part) => part.type)).toEqual(["text", "text", "image_url", "text", "file"]);
  });

  it("a run whose tool returns only a PDF finishes, the PDF in the user message and not as JSON in the tool message", async () => {
    const read = tool(async () => [pdf], { name: "read", description: "Reads the report.", schema: z.object({}) });
    server = await startOpenAICompatibleServer({ responses: [{ toolCalls: [{ name: "read", arguments: {}, id: "call_1" }] }, "Read."] });
    const llm = new OpenAIChatModel({ model: "gpt-4o", baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
    const result = await runOnce(llm, read, "Read it.");
    expect(result.output).toBe("Read.");
    const messages = server.chatRequests()[1]?.["messages"] as { role: string; content: unknown }[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(messages[2]?.content).toBe("[file 1: in the user message after the tool results]");
    expect(messages[3]?.content).toEqual([
      { type: "text", text: "The files the tools above returned:" },
      { type: "text", text: "File 1 (from read, call call_1):" },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0xLjQ=", filename: "file.pdf" } },
    ]);
  });

  it("ChatOpenAI (@langchain/openai) sends them too: the request carries the API's own file and input_audio parts, and is accepted", async () => {
    const read = tool(async () => [pdf, wav], { name: "read", description: "Reads the report.", schema: z.object({}) });
    server = await startOpenAICompatibleServer({ responses: [{ toolCalls: [{ name: "read", arguments: {}, id: "call_1" }] }, "Read."] });
    const llm = new ChatOpenAI({ model: "gpt-4o", apiKey: "test", configuration: { baseURL: server.baseURL }, maxRetries: 0 });
    const result = await runOnce(llm, read, "Read it.");
    expect(result.output).toBe("Read.");
    expect(server.rejections).toEqual([]);
    const messages = server.chatRequests()[1]?.["messages"] as { role: string; content: unknown }[];
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(messages[3]?.content).toEqual([
      { type: "text", text: "The files and audio the tools above returned:" },
      { type: "text", text: "File 1 (from read, call call_1):" },
      pdfPart,
      { type: "text", text: "Audio 1 (from read, call call_1):" },
      wavPart,
    ]);
  });

  it("ChatOpenAI: a tool's plain-text document reaches the model as text in the tool message", async () => {
    const table = tool(async () => [{ type: "text", text: "Table:" }, textDocument], { name: "table", description: "Reads the table.", schema: z.object({}) });
    server = await startOpenAICompatibleServer({ responses: [{ toolCalls: [{ name: "table", arguments: {}, id: "call_1" }] }, "Read."] });
    const llm = new ChatOpenAI({ model: "gpt-4o", apiKey: "test", configuration: { baseURL: server.baseURL }, maxRetries: 0 });
    const result = await runOnce(llm, table, "Read it.");
    expect(result.output).toBe("Read.");
    expect(server.rejections).toEqual([]);
    const messages = server.chatRequests()[1]?.["messages"] as { role: string; content: unknown }[];
    expect(messages.map((message) => [message.role, message.content])).toEqual([
      ["user", "Read it."],
      ["assistant", ""],
      ["tool", "Table:\na,b\n1,2"],
    ]);
  });

  it("ChatAnthropic (@langchain/anthropic): a tool's plain-text document and audio reach the model as text, not dropped", async () => {
    const read = tool(async () => [{ type: "text", text: "Table:" }, textDocument, wav], { name: "read", description: "Reads the table.", schema: z.object({}) });
    const anthropic = await startAnthropicMessagesServer({ responses: [{ toolCalls: [{ name: "read", input: {}, id: "toolu_1" }] }, "Read."] });
    try {
      const llm = new ChatAnthropic({ model: "claude-sonnet-4-5", apiKey: "test", anthropicApiUrl: anthropic.url, maxRetries: 0 });
      const result = await runOnce(llm, read, "Read it.");
      expect(result.output).toBe("Read.");
      expect(anthropic.rejections).toEqual([]);
      const messages = anthropic.messageRequests()[1]?.["messages"] as { role: string; content: unknown }[];
      expect(messages.at(-1)?.content).toEqual([
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [
            { type: "text", text: "Table:" },
            { type: "text", text: "a,b\n1,2" },
            { type: "text", text: "[audio: audio/wav, 4 B; Anthropic's API takes no audio in a tool result]" },
          ],
        },
      ]);
    } finally {
      await anthropic.close();
    }
  });

  it("a video stays in the tool message, which the OpenAI conversion refuses by name", async () => {
    server = await startOpenAICompatibleServer({ responses: ["Watched."] });
    const llm = new OpenAIChatModel({ model: "gpt-4o", baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
    const agent = createToolCallingAgent({ llm, tools: [report], prompt });
    const error = await agent.invoke({ input: "Watch it.", steps: [stepOf("call_1", [image, video])] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toMatch(/\(tool\) has a "video" block.*takes no video/);
    expect(server.chatRequests()).toEqual([]);
  });
});
