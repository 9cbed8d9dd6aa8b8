import { AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
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
