import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { failure, setup } from "./test-helpers";
import { toChatCompletionsMediaPart } from "./to-openai-user-content";

const sent = async (content: object[]) => {
  const { server, model } = await setup({ responses: ["ok"] });
  await model.invoke([new HumanMessage({ content: content as never })]);
  expect(server.rejections).toEqual([]);
  return server.chatRequests()[0].messages[0].content;
};

describe("OpenAIChatModel user content blocks (what goes over the wire)", () => {
  it("sends an image block whose data is bytes (LangChain v1) as base64 in a data URL", async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(await sent([{ type: "image", mimeType: "image/png", data: bytes }])).toEqual([
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
    ]);
  });

  it("sends OpenAI's input_image blocks as image_url parts, keeping their detail", async () => {
    expect(
      await sent([
        { type: "input_image", image_url: "https://example.com/a.png", detail: "low" },
        { type: "input_image", image_url: "data:image/png;base64,AAAA" },
      ]),
    ).toEqual([
      { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
      { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
    ]);
  });

  it("sends LangChain's file blocks (v1 and v0, data or file id) as OpenAI's file parts", async () => {
    expect(
      await sent([
        { type: "file", mimeType: "application/pdf", data: "JVBERi0=", metadata: { filename: "report.pdf" } },
        { type: "file", mimeType: "application/pdf", data: new Uint8Array([0x25, 0x50, 0x44, 0x46]) },
        { type: "file", fileId: "file-abc" },
        { type: "file", source_type: "base64", mime_type: "application/pdf", data: "JVBERi0=", metadata: { name: "a.pdf" } },
        { type: "file", source_type: "id", id: "file-def" },
        { type: "file", url: "data:application/pdf;base64,JVBERi0=" },
        { type: "file", file: { file_id: "file-ghi" } },
      ]),
    ).toEqual([
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "report.pdf" } },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERg==", filename: "file.pdf" } },
      { type: "file", file: { file_id: "file-abc" } },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" } },
      { type: "file", file: { file_id: "file-def" } },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "file.pdf" } },
      { type: "file", file: { file_id: "file-ghi" } },
    ]);
  });

  it("sends LangChain's wav and mp3 audio blocks as input_audio parts", async () => {
    expect(
      await sent([
        { type: "audio", mimeType: "audio/wav", data: "UklGRg==" },
        { type: "audio", source_type: "base64", mime_type: "audio/mpeg", data: "SUQz" },
        { type: "audio", url: "data:audio/mp3;base64,SUQz" },
      ]),
    ).toEqual([
      { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
      { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } },
      { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } },
    ]);
  });

  it.each([
    [{ type: "audio", mimeType: "audio/ogg", data: "T2dnUw==" }, 'an audio block of type "audio/ogg"', "wav or mp3"],
    [{ type: "audio", url: "https://example.com/a.wav" }, "an audio block without base64 data", "base64 data only"],
    [{ type: "file", url: "https://example.com/a.pdf" }, "a file block without base64 data or a file id", "not by an https URL"],
  ])("refuses a block the API cannot take (%j), naming the message, sending nothing", async (block, what, fix) => {
    const { server, model } = await setup({ responses: ["never"] });
    const error = await failure(model.invoke([new HumanMessage("Hi"), new HumanMessage({ content: [block] as never })]));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "messages[1]" });
    expect(error.message).toContain(`messages[1] (human) has ${what}`);
    expect(error.message).toContain(fix);
    expect(server.requests).toHaveLength(0);
  });
});

describe("OpenAIChatModel plain-text and video blocks", () => {
  it("sends LangChain's text-plain blocks (text, base64 or byte data, a data URL) and v0 text file blocks as text parts", async () => {
    const utf8 = new TextEncoder().encode("Grüße aus Köln.");
    expect(
      await sent([
        { type: "text-plain", text: "Meeting notes.", mimeType: "text/plain", title: "notes.txt" },
        { type: "text-plain", mimeType: "text/markdown", data: btoa("# Title") },
        { type: "text-plain", mimeType: "text/plain", data: utf8 },
        { type: "text-plain", url: "data:text/plain;base64,aGVsbG8=" },
        { type: "text-plain", url: "data:text/plain,a%20b" },
        { type: "text-plain", source_type: "base64", mime_type: "text/plain", data: btoa("v0 data") },
        { type: "file", source_type: "text", mime_type: "text/plain", text: "A v0 text file." },
        { type: "text-plain", fileId: "file-txt" },
      ]),
    ).toEqual([
      { type: "text", text: "Meeting notes." },
      { type: "text", text: "# Title" },
      { type: "text", text: "Grüße aus Köln." },
      { type: "text", text: "hello" },
      { type: "text", text: "a b" },
      { type: "text", text: "v0 data" },
      { type: "text", text: "A v0 text file." },
      { type: "file", file: { file_id: "file-txt" } },
    ]);
  });

  it.each([
    [{ type: "video", mimeType: "video/mp4", data: "AAAAIGZ0eXA=" }, 'a "video" block', "no video"],
    [{ type: "video", source_type: "url", url: "https://example.com/a.mp4" }, 'a "video" block', "no video"],
    [{ type: "text-plain", url: "https://example.com/a.txt" }, "a text-plain block without its text", "download it"],
    [{ type: "text-plain", mimeType: "text/plain", data: "%%%not base64" }, "a text-plain block whose data is not valid base64", "UTF-8 bytes"],
    [{ type: "text-plain", mimeType: "text/plain", data: new Uint8Array([0xff, 0xfe, 0x00]) }, "a text-plain block whose data is not UTF-8 text", "UTF-8 bytes"],
  ])("refuses %j before sending, naming the message and the block", async (block, what, fix) => {
    const { server, model } = await setup({ responses: ["never"] });
    const error = await failure(model.invoke([new HumanMessage("Hi"), new AIMessage("Hello."), new HumanMessage({ content: [{ type: "text", text: "See:" }, block] as never })]));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "messages[2]" });
    expect(error.message).toContain(`messages[2] (human) has ${what}`);
    expect(error.message).toContain(fix);
    expect(server.requests).toHaveLength(0);
  });
});

describe("OpenAIChatModel tool calls of a streamed reply sent back", () => {
  it("sends the arguments the model produced, not those repaired from partial JSON", async () => {
    const { server, model } = await setup({ responses: [{ toolCalls: [{ name: "weather", arguments: '{"city": "Par', id: "call_1" }], finishReason: "length" }, "ok"] });
    let reply: AIMessageChunk | undefined;
    for await (const chunk of await model.stream("Weather in Paris?")) reply = reply ? reply.concat(chunk) : chunk;
    expect(reply?.tool_calls?.[0]?.args).toEqual({ city: "Par" }); // LangChain's partial-JSON repair
    await model.invoke([new HumanMessage("Weather in Paris?"), reply as AIMessageChunk, new ToolMessage({ content: "Bad arguments.", tool_call_id: "call_1" })]);
    expect(server.chatRequests()[1].messages[1].tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city": "Par' } },
    ]);
  });

  it("sends a message's own tool calls when it has no chunks", async () => {
    const { server, model } = await setup({ responses: ["ok"] });
    const turn = new AIMessage({ content: "", tool_calls: [{ name: "weather", args: { city: "Rome" }, id: "call_1" }] });
    await model.invoke([new HumanMessage("x"), turn, new ToolMessage({ content: "Sunny.", tool_call_id: "call_1" })]);
    expect(server.chatRequests()[0].messages[1].tool_calls[0].function.arguments).toBe('{"city":"Rome"}');
  });
});

describe("toChatCompletionsMediaPart", () => {
  it("gives a file block the file part OpenAIChatModel sends for it: base64 or bytes with a file name, a file id, Anthropic's document, v0's shape", async () => {
    const blocks = [
      { type: "file", mimeType: "application/pdf", data: "JVBERi0=", metadata: { filename: "q3.pdf" } },
      { type: "file", mimeType: "application/pdf", data: new Uint8Array([0x25, 0x50, 0x44, 0x46]) },
      { type: "file", fileId: "file-7" },
      { type: "document", title: "notes.pdf", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } },
      { type: "file", source_type: "base64", mime_type: "application/pdf", data: "JVBERi0=" },
    ];
    const parts = blocks.map((block) => toChatCompletionsMediaPart(block));
    expect(parts).toEqual([
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "q3.pdf" } },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERg==", filename: "file.pdf" } },
      { type: "file", file: { file_id: "file-7" } },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "notes.pdf" } },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "file.pdf" } },
    ]);
    // The same parts as a user message sends.
    expect(await sent(blocks)).toEqual(parts);
  });

  it("gives wav and mp3 audio an input_audio part, passes OpenAI's own parts, and is undefined for what the API cannot take that way", () => {
    expect(toChatCompletionsMediaPart({ type: "audio", mimeType: "audio/vnd.wave", data: "UklGRg==" })).toEqual({ type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } });
    expect(toChatCompletionsMediaPart({ type: "audio", url: "data:audio/mpeg;base64,SUQz" })).toEqual({ type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } });
    const own = { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } };
    expect(toChatCompletionsMediaPart(own)).toBe(own);
    for (const block of [
      { type: "audio", mimeType: "audio/ogg", data: "T2dnUw==" },
      { type: "file", mimeType: "application/pdf", url: "https://example.com/q3.pdf" },
      { type: "text-plain", mimeType: "text/plain", text: "notes" },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      { type: "text", text: "hello" },
      "a string",
      null,
    ]) {
      expect(toChatCompletionsMediaPart(block)).toBeUndefined();
    }
  });
});
