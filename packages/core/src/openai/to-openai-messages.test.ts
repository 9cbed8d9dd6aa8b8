import { AIMessage, ChatMessage, FunctionMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { failure, setup } from "./test-helpers";

describe("OpenAIChatModel message conversion (what goes over the wire)", () => {
  it("converts every message type, tool-call history with null content, and multimodal blocks", async () => {
    const { server, model } = await setup({ responses: ["ok"] });
    await model.invoke([
      new SystemMessage("Be brief."),
      new HumanMessage({
        content: [
          { type: "text", text: "What is in" },
          { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
          { type: "image_url", image_url: "https://example.com/b.png" },
          { type: "image", source_type: "base64", data: "AAAA", mime_type: "image/jpeg" },
        ],
      }),
      new AIMessage({
        content: "",
        tool_calls: [
          { name: "look", args: { at: "a" }, id: "call_a" },
          { name: "look", args: { at: "b" }, id: "call_b" },
        ],
      }),
      new ToolMessage({ content: [{ type: "text", text: "a cat" }, { type: "text", text: " on a mat" }], tool_call_id: "call_a" }),
      new ToolMessage({ content: "a dog", tool_call_id: "call_b" }),
      new ChatMessage({ role: "assistant", content: "Two animals." }),
    ]);
    expect(server.chatRequests()[0].messages).toEqual([
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is in" },
          { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
          { type: "image_url", image_url: { url: "https://example.com/b.png" } },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "look", arguments: '{"at":"a"}' } },
          { id: "call_b", type: "function", function: { name: "look", arguments: '{"at":"b"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "a cat on a mat" },
      { role: "tool", tool_call_id: "call_b", content: "a dog" },
      { role: "assistant", content: "Two animals." },
    ]);
  });

  it("sends Anthropic-style image blocks (base64 or URL source) as image_url parts, and refuses an image it cannot send", async () => {
    const { server, model } = await setup({ responses: ["ok"] });
    await model.invoke([
      new HumanMessage({
        content: [
          { type: "text", text: "Compare", cache_control: { type: "ephemeral" } },
          { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "AAAA" } },
          { type: "image", source: { type: "url", url: "https://example.com/c.png" } },
        ],
      }),
    ]);
    expect(server.chatRequests()[0].messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Compare" },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } },
          { type: "image_url", image_url: { url: "https://example.com/c.png" } },
        ],
      },
    ]);
    const error = await failure(model.invoke([new HumanMessage("Hi"), new HumanMessage({ content: [{ type: "image", source: { type: "file", file_id: "file_1" } }] })]));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/messages\[1\].*image/);
    expect(server.chatRequests()).toHaveLength(1);
  });

  it("keeps participants' names", async () => {
    const { server, model } = await setup({ responses: ["ok"] });
    await model.invoke([
      new SystemMessage({ content: "Referee.", name: "rules" }),
      new HumanMessage({ content: "Hi", name: "alice" }),
      new AIMessage({ content: "Hello Alice.", name: "bot" }),
      new HumanMessage({ content: "Hi", name: "bob" }),
    ]);
    expect(server.chatRequests()[0].messages).toEqual([
      { role: "system", content: "Referee.", name: "rules" },
      { role: "user", content: "Hi", name: "alice" },
      { role: "assistant", content: "Hello Alice.", name: "bot" },
      { role: "user", content: "Hi", name: "bob" },
    ]);
  });

  it("fails clearly, before sending anything, on a tool message without tool_call_id", async () => {
    const { server, model } = await setup({ responses: ["never"] });
    const orphan = new ToolMessage({ content: "sunny", tool_call_id: "" });
    const error = await failure(
      model.invoke([new HumanMessage("weather?"), new AIMessage({ content: "", tool_calls: [{ name: "w", args: {}, id: "c1" }] }), orphan]),
    );
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "messages[2]" });
    expect(error.message).toContain("`tool_call_id`");
    expect(server.requests).toHaveLength(0);
  });

  it("fails clearly on an AI message whose tool call has no id", async () => {
    const { server, model } = await setup({ responses: ["never"] });
    const message = new AIMessage({ content: "", tool_calls: [{ name: "weather", args: {} }] });
    const error = await failure(model.invoke([new HumanMessage("weather?"), message]));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/messages\[1\].*"weather".*`id`/);
    expect(server.requests).toHaveLength(0);
  });

  it("sends the developer role when asked, and to reasoning models, with max_completion_tokens", async () => {
    const developer = new SystemMessage({ content: "Dev.", additional_kwargs: { __openai_role__: "developer" } });
    const { server, model } = await setup({ responses: ["a", "b", "c"] }, { maxTokens: 64 });
    await model.invoke([developer, new HumanMessage("x")]);
    const reasoning = await setup({ responses: ["a", "b"] }, { model: "o3-mini", maxTokens: 64 });
    await reasoning.model.invoke([new SystemMessage("Sys."), new HumanMessage("x")]);
    const chat = await setup({ responses: ["a"] }, { model: "gpt-5-chat-latest", maxTokens: 64 });
    await chat.model.invoke([new SystemMessage("Sys."), new HumanMessage("x")]);

    expect(server.chatRequests()[0]).toMatchObject({ max_tokens: 64, messages: [{ role: "developer", content: "Dev." }, {}] });
    const [body] = reasoning.server.chatRequests();
    expect(body.max_completion_tokens).toBe(64);
    expect(body.max_tokens).toBeUndefined();
    expect(body.messages[0]).toEqual({ role: "developer", content: "Sys." });
    expect(chat.server.chatRequests()[0]).toMatchObject({ max_tokens: 64, messages: [{ role: "system" }, {}] });
  });

  it("sends a tool-call turn's reasoning back as it came, and leaves it off other turns", async () => {
    const { server, model } = await setup({ responses: ["ok"] });
    const reasoned = new AIMessage({ content: "", tool_calls: [{ name: "look", args: {}, id: "call_a" }], additional_kwargs: { reasoning_content: "Look first." } });
    const answer = new AIMessage({ content: "A cat.", additional_kwargs: { reasoning_content: "Seen." } });
    await model.invoke([new HumanMessage("x"), reasoned, new ToolMessage({ content: "a cat", tool_call_id: "call_a" }), answer, new HumanMessage("y")]);
    const [, sentTurn, , sentAnswer] = server.chatRequests()[0].messages;
    expect(sentTurn).toMatchObject({ role: "assistant", reasoning_content: "Look first." });
    expect(sentAnswer).toEqual({ role: "assistant", content: "A cat." });
  });
});

describe("OpenAIChatModel content blocks in system, developer, assistant, tool and function messages", () => {
  const notes = btoa("Refunds within 30 days.");

  it("sends a plain-text document (text-plain, or a text file block) as its decoded text, in order with the text around it", async () => {
    const { server, model } = await setup({ responses: ["ok"] });
    await model.invoke([
      new SystemMessage({ content: [{ type: "text", text: "Policy:" }, { type: "text-plain", mimeType: "text/plain", data: notes }] }),
      new SystemMessage({ content: [{ type: "file", mimeType: "text/plain", data: notes }], additional_kwargs: { __openai_role__: "developer" } }),
      new HumanMessage("Can I get a refund?"),
      new AIMessage({ content: [{ type: "text-plain", text: "Quoted." }, { type: "text", text: "Yes" }, { type: "text", text: "." }], tool_calls: [{ name: "look", args: {}, id: "call_a" }] }),
      new ToolMessage({ content: [{ type: "text", text: "Order:" }, { type: "file", source_type: "base64", mime_type: "text/csv", data: btoa("id,total\n7,12") }], tool_call_id: "call_a" }),
      new ChatMessage({ role: "system", content: [{ type: "file", url: `data:text/plain;base64,${notes}` }] as never }),
      new FunctionMessage({ name: "policy", content: [{ type: "text-plain", mimeType: "text/plain", data: new TextEncoder().encode("Köln") }] as never }),
    ]);
    expect(server.rejections).toEqual([]);
    const messages = server.chatRequests()[0].messages;
    expect(messages[0]).toEqual({ role: "system", content: "Policy:\nRefunds within 30 days." });
    expect(messages[1]).toEqual({ role: "developer", content: "Refunds within 30 days." });
    expect(messages[3]).toMatchObject({ role: "assistant", content: "Quoted.\nYes." });
    expect(messages[4]).toEqual({ role: "tool", tool_call_id: "call_a", content: "Order:\nid,total\n7,12" });
    expect(messages[5]).toEqual({ role: "system", content: "Refunds within 30 days." });
    expect(messages[6]).toEqual({ role: "function", name: "policy", content: "Köln" });
  });

  it("keeps a tool result's images as notes beside a plain-text document", async () => {
    const { server, model } = await setup({ responses: ["ok"] });
    const result = new ToolMessage({
      content: [{ type: "text-plain", mimeType: "text/plain", data: btoa("Chart data.") }, { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }],
      tool_call_id: "call_a",
    });
    await model.invoke([new HumanMessage("x"), new AIMessage({ content: "", tool_calls: [{ name: "chart", args: {}, id: "call_a" }] }), result]);
    expect(server.chatRequests()[0].messages[2]).toEqual({ role: "tool", tool_call_id: "call_a", content: "Chart data.\n[image: image/png, 8 B; this agent reads text only]" });
  });

  it("leaves out blocks that are not content (reasoning, tool calls), as before", async () => {
    const { server, model } = await setup({ responses: ["ok"] });
    const turn = new AIMessage({ content: [{ type: "thinking", thinking: "Hmm." }, { type: "text", text: "Hi." }] as never });
    await model.invoke([new HumanMessage("x"), turn, new HumanMessage("y")]);
    expect(server.chatRequests()[0].messages[1]).toEqual({ role: "assistant", content: "Hi." });
  });

  const call = new AIMessage({ content: "", tool_calls: [{ name: "fetch", args: {}, id: "call_a" }] });
  const refusal = async (message: SystemMessage | AIMessage | ToolMessage) => {
    const { server, model } = await setup({ responses: ["never"] });
    const error = await failure(model.invoke([new HumanMessage("Hi"), call, message]));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "messages[2]" });
    expect(server.requests).toHaveLength(0);
    return error.message;
  };

  it.each([
    ["an image in a system message", new SystemMessage({ content: [{ type: "text", text: "Logo:" }, { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }] }), "system", 'an "image" block', "put images in a user message"],
    ["an image in an assistant message", new AIMessage({ content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }), "assistant", 'an "image_url" block', "put images in a user message"],
    ["audio in a system message", new SystemMessage({ content: [{ type: "audio", mimeType: "audio/wav", data: "UklGRg==" }] }), "system", 'an "audio" block', "put audio in a user message"],
    ["video in a tool message", new ToolMessage({ content: [{ type: "video", mimeType: "video/mp4", data: "AAAAIGZ0eXA=" }], tool_call_id: "call_a" }), "tool", 'a "video" block', "takes no video in any message"],
    ["a PDF in a tool message", new ToolMessage({ content: [{ type: "file", mimeType: "application/pdf", data: "JVBERi0=" }], tool_call_id: "call_a" }), "tool", 'a "file" block', "put files in a user message"],
    ["a text file known by id in a tool message", new ToolMessage({ content: [{ type: "text-plain", fileId: "file-txt" }], tool_call_id: "call_a" }), "tool", "a plain-text file known only by its id", "give the block its `text`"],
  ])("refuses %s before sending, naming the role, the block and the fix", async (_label, message, role, what, fix) => {
    const text = await refusal(message);
    expect(text).toContain(`messages[2] (${message.getType()}) has ${what}`);
    expect(text).toContain(`A ${role} message`);
    expect(text).toContain(fix);
  });

  it("reads Anthropic's document blocks as the standard blocks of the same content: text as text, a PDF refused by name (it was dropped)", async () => {
    const { server, model } = await setup({ responses: ["ok"] });
    await model.invoke([
      new SystemMessage({ content: [{ type: "text", text: "Policy:" }, { type: "document", source: { type: "text", media_type: "text/plain", data: "Refunds within 30 days." } }] as never }),
      new HumanMessage("x"),
      call,
      new ToolMessage({ content: [{ type: "document", source: { type: "content", content: [{ type: "text", text: "id,total" }, { type: "text", text: "7,12" }] } }] as never, tool_call_id: "call_a" }),
      new SystemMessage({ content: [{ type: "document", source: { type: "base64", media_type: "text/csv", data: btoa("a,b") } }] as never }),
    ]);
    const messages = server.chatRequests()[0].messages;
    expect(messages[0]).toEqual({ role: "system", content: "Policy:\nRefunds within 30 days." });
    expect(messages[3]).toEqual({ role: "tool", tool_call_id: "call_a", content: "id,total\n7,12" });
    expect(messages[4]).toEqual({ role: "system", content: "a,b" });
    const text = await refusal(new ToolMessage({ content: [{ type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } }] as never, tool_call_id: "call_a" }));
    expect(text).toContain('messages[2] (tool) has a "document" block');
    expect(text).toContain("put files in a user message");
  });

  it("sends Anthropic's document blocks in a user message as a file part (a PDF) or a text part (text), and refuses one by URL", async () => {
    const { server, model } = await setup({ responses: ["ok"] });
    const pdf = { type: "document", title: "q3.pdf", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" } };
    await model.invoke([
      new HumanMessage({ content: [pdf, { type: "document", source: { type: "text", media_type: "text/plain", data: "Notes." } }, { type: "document", source: { type: "file", file_id: "file-9" } }] as never }),
    ]);
    expect(server.chatRequests()[0].messages[0]).toEqual({
      role: "user",
      content: [{ type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "q3.pdf" } }, { type: "text", text: "Notes." }, { type: "file", file: { file_id: "file-9" } }],
    });
    const error = await failure(model.invoke([new HumanMessage({ content: [{ type: "document", source: { type: "url", url: "https://example.com/a.pdf" } }] as never })]));
    expect(InvalidArgumentError.isInstance(error) && error.message).toMatch(/messages\[0\] \(human\) has a file block without base64 data or a file id/);
  });

  it("refuses a plain-text document it cannot read, as in a user message", async () => {
    const text = await refusal(new SystemMessage({ content: [{ type: "text-plain", url: "https://example.com/a.txt" }] }));
    expect(text).toContain("messages[2] (system) has a text-plain block without its text");
    expect(text).toContain("download it");
  });
});
