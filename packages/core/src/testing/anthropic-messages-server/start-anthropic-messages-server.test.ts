import { afterEach, describe, expect, it } from "vitest";
import { type AnthropicMessagesServer, startAnthropicMessagesServer } from "./start-anthropic-messages-server";

let server: AnthropicMessagesServer | undefined;
afterEach(async () => server?.close());

const THINKING = { type: "enabled", budget_tokens: 1024 };

async function post(body: Record<string, unknown>) {
  const response = await fetch(`${server?.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 2048, ...body }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** A first turn with thinking and two tool calls, then what the next request should send back. */
async function firstTurn() {
  server = await startAnthropicMessagesServer({
    responses: [{ thinking: "Two cities.", toolCalls: [{ name: "weather", input: { city: "Paris" } }, { name: "weather", input: { city: "Rome" } }] }, "Sunny."],
  });
  const first = await post({ thinking: THINKING, messages: [{ role: "user", content: "Weather?" }] });
  const assistant = { role: "assistant", content: first.body.content };
  const results = first.body.content
    .filter((block: { type: string }) => block.type === "tool_use")
    .map((block: { id: string }) => ({ type: "tool_result", tool_use_id: block.id, content: "Sunny." }));
  return { assistant, results, messages: (assistant: unknown, user: unknown) => [{ role: "user", content: "Weather?" }, assistant, user] };
}

describe("startAnthropicMessagesServer", () => {
  it("answers with a signed thinking block first, and takes it back unchanged", async () => {
    const { assistant, results, messages } = await firstTurn();
    expect(assistant.content.map((block: { type: string }) => block.type)).toEqual(["thinking", "tool_use", "tool_use"]);
    const next = await post({ thinking: THINKING, messages: messages(assistant, { role: "user", content: results }) });
    expect(next.status).toBe(200);
    expect(server?.rejections).toEqual([]);
  });

  it("gives the messages it answered with, streamed ones whole, refused requests left out", async () => {
    const { assistant, results, messages } = await firstTurn();
    await post({ thinking: THINKING, messages: [{ role: "user", content: "Weather?" }, { role: "assistant", content: assistant.content.slice(1) }, { role: "user", content: results }] });
    const streamed = await fetch(`${server?.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 2048, stream: true, thinking: THINKING, messages: messages(assistant, { role: "user", content: results }) }),
    });
    await streamed.text();
    const replies = server?.replies() ?? [];
    expect(server?.rejections).toHaveLength(1);
    expect(replies).toHaveLength(2);
    expect(replies[0].content).toEqual(assistant.content);
    expect(replies[1]).toMatchObject({ role: "assistant", content: [{ type: "text", text: "Sunny." }] });
    replies[0].content.length = 0; // a copy: the server's own list is unchanged
    expect(server?.replies()[0].content).toEqual(assistant.content);
  });

  it("refuses thinking dropped, edited or re-signed, with Anthropic's text", async () => {
    const { assistant, results, messages } = await firstTurn();
    const user = { role: "user", content: results };
    const dropped = await post({ thinking: THINKING, messages: messages({ ...assistant, content: assistant.content.slice(1) }, user) });
    expect(dropped).toMatchObject({ status: 400, body: { type: "error", error: { type: "invalid_request_error" } } });
    expect(dropped.body.error.message).toMatch(/^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`/);
    const edited = [{ ...assistant.content[0], thinking: "Something else." }, ...assistant.content.slice(1)];
    expect((await post({ thinking: THINKING, messages: messages({ ...assistant, content: edited }, user) })).body.error.message).toBe(
      "messages.1.content.0: Invalid `signature` in `thinking` block",
    );
    const moved = [...assistant.content.slice(1), assistant.content[0]];
    expect((await post({ thinking: THINKING, messages: messages({ ...assistant, content: moved }, user) })).status).toBe(400);
    expect(server?.rejections).toHaveLength(3);
  });

  it("refuses tool calls without results, and results for no call", async () => {
    const { assistant, results, messages } = await firstTurn();
    const missing = await post({ messages: messages(assistant, { role: "user", content: results.slice(0, 1) }) });
    expect(missing.body.error.message).toMatch(/^messages\.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_loopback_0_1\./);
    const stray = await post({ messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "?" }] }] });
    expect(stray.body.error.message).toMatch(/^messages\.0\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x\./);
  });

  it("checks thinking budgets, image blocks and cache_control breakpoints", async () => {
    server = await startAnthropicMessagesServer({ responses: ["ok"] });
    expect((await post({ max_tokens: 1000, thinking: THINKING, messages: [{ role: "user", content: "x" }] })).body.error.message).toMatch(
      /^`max_tokens` must be greater than `thinking.budget_tokens`/,
    );
    const image = { type: "image", source: { type: "base64", media_type: "image/bmp", data: "AAAA" } };
    expect((await post({ messages: [{ role: "user", content: [image] }] })).body.error.message).toBe(
      "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
    );
    const cached = Array.from({ length: 5 }, (_, i) => ({ type: "text", text: `part ${i}`, cache_control: { type: "ephemeral" } }));
    expect((await post({ messages: [{ role: "user", content: cached }] })).body.error.message).toBe("A maximum of 4 blocks with cache_control may be provided. Found 5.");
  });

  it("reports cache writes, then reads of a stable prefix", async () => {
    server = await startAnthropicMessagesServer({ responses: ["a", "b"] });
    const system = [{ type: "text", text: "You are helpful. ".repeat(200), cache_control: { type: "ephemeral" } }];
    await post({ system, messages: [{ role: "user", content: "one" }] });
    await post({ system, messages: [{ role: "user", content: "two" }] });
    const [first, second] = server.usages;
    expect(first?.cache_creation_input_tokens).toBeGreaterThan(500);
    expect(first?.cache_read_input_tokens).toBe(0);
    expect(second?.cache_read_input_tokens).toBe(first?.cache_creation_input_tokens);
    expect(second?.cache_creation_input_tokens).toBe(0);
  });

  it("streams the message as Anthropic's server-sent events", async () => {
    server = await startAnthropicMessagesServer({ responses: [{ thinking: "Hmm.", text: "Hello there." }] });
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", max_tokens: 2048, stream: true, thinking: THINKING, messages: [{ role: "user", content: "hi" }] }),
    });
    const names = (await response.text()).split("\n").filter((line) => line.startsWith("event: ")).map((line) => line.slice(7));
    expect(names[0]).toBe("message_start");
    expect(names.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(names.filter((name) => name === "content_block_start")).toHaveLength(2);
  });
});
