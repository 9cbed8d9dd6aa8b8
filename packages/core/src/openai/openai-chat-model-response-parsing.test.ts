// How OpenAIChatModel reads replies that stray from OpenAI's own: tool calls without a type or an
// id, all-invalid tool calls, empty reasoning fields, incomplete usage reports.
import { AIMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it, vi } from "vitest";
import { strictToolCalls } from "../messages/strict-tool-calls";
import { setup, streamAll } from "./test-helpers";

const base = { id: "chatcmpl-1", created: 0, model: "m" };
const completion = (message: object, extra: object = {}) => ({
  raw: JSON.stringify({
    ...base,
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
    ...extra,
  }),
});
const sse = (chunks: object[]) => ({
  raw: `${chunks.map((chunk) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", ...chunk })}\n\n`).join("")}data: [DONE]\n\n`,
  contentType: "text/event-stream",
});
const choice = (delta: object, finishReason: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason: finishReason }] });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("OpenAIChatModel reads tool calls", () => {
  it("takes a tool call without a type as a function call", async () => {
    const { model } = await setup({ responses: [completion({ content: null, tool_calls: [{ id: "c1", function: { name: "w", arguments: '{"a":1}' } }] })] });
    const message = await model.invoke("go");
    expect(message.tool_calls).toEqual([{ id: "c1", name: "w", args: { a: 1 }, type: "tool_call" }]);
    expect(message.invalid_tool_calls).toEqual([]);
  });

  it("reports a tool call of another type (a custom tool) as an invalid tool call that says why", async () => {
    const { model } = await setup({
      responses: [completion({ content: null, tool_calls: [{ id: "c1", type: "custom", custom: { name: "grammar", input: "x = 1" } }] })],
    });
    const message = await model.invoke("go");
    expect(message.tool_calls).toEqual([]);
    expect(message.invalid_tool_calls).toEqual([
      { id: "c1", name: "grammar", args: "x = 1", error: expect.stringContaining('type "custom"'), type: "invalid_tool_call" },
    ]);
  });

  it("gives a tool call the server sent without an id a stable one, streamed or not", async () => {
    const calls = [
      { function: { name: "w", arguments: '{"a":1}' } },
      { id: "", type: "function", function: { name: "w", arguments: '{"a":2}' } },
    ];
    const streamed = () =>
      sse([
        choice({ role: "assistant", tool_calls: [{ index: 0, type: "function", function: { name: "w", arguments: '{"a"' } }] }),
        choice({ tool_calls: [{ index: 0, function: { arguments: ":1}" } }] }),
        choice({ tool_calls: [{ index: 1, type: "function", function: { name: "w", arguments: '{"a":2}' } }] }),
        choice({}, "tool_calls"),
      ]);
    const { model } = await setup({ responses: [completion({ content: null, tool_calls: calls }), streamed(), streamed()] });
    const expected = [
      { id: "call_chatcmpl-1_0", name: "w", args: { a: 1 }, type: "tool_call" },
      { id: "call_chatcmpl-1_1", name: "w", args: { a: 2 }, type: "tool_call" },
    ];
    expect((await model.invoke("go")).tool_calls).toEqual(expected);
    const chunks = await streamAll(model, "go");
    const merged = chunks.reduce((all, chunk) => all.concat(chunk));
    expect(merged.tool_calls).toEqual(expected);
    expect(chunks.flatMap((chunk) => chunk.tool_call_chunks ?? []).filter((part) => part.id).map((part) => part.id)).toEqual([
      "call_chatcmpl-1_0",
      "call_chatcmpl-1_1",
    ]);
    const streamedModel = (await setup({ responses: [streamed()] }, { streaming: true })).model;
    expect((await streamedModel.invoke("go")).tool_calls).toEqual(expected);
  });

  it("makes up ids that differ from one message to the next when the server sends no message id either", async () => {
    const reply = () => ({ raw: JSON.stringify({ object: "chat.completion", model: "m", choices: [{ index: 0, message: { role: "assistant", tool_calls: [{ function: { name: "w", arguments: "{}" } }] }, finish_reason: "tool_calls" }] }) });
    const { model } = await setup({ responses: [reply(), reply()] });
    const first = (await model.invoke("go")).tool_calls?.[0]?.id;
    const second = (await model.invoke("go")).tool_calls?.[0]?.id;
    expect(first).toMatch(/^call_.+_0$/);
    expect(second).toMatch(/^call_.+_0$/);
    expect(first).not.toBe(second);
  });

  it("does not print LangChain's upgrade warning for a reply whose tool calls are all invalid, and keeps their text", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const reply = { toolCalls: [{ name: "w", arguments: "{bad" }] };
    const { model } = await setup({ responses: [reply, reply] });
    const { model: streamingModel } = await setup({ responses: [reply] }, { streaming: true });
    const messages = [await model.invoke("go"), (await streamAll(model, "go")).reduce((all, chunk) => all.concat(chunk)), await streamingModel.invoke("go")];
    for (const message of messages) {
      expect(message.tool_calls).toEqual([]);
      expect(message.invalid_tool_calls).toMatchObject([{ name: "w", args: "{bad" }]);
      // Rebuilding the message (as a store or a copy does) does not warn either.
      new AIMessage({ content: message.content, tool_calls: message.tool_calls ?? [], additional_kwargs: message.additional_kwargs });
    }
    expect(warn).not.toHaveBeenCalled();
  });

  it("still keeps the raw tool calls in additional_kwargs when at least one call is valid", async () => {
    const { model } = await setup({ responses: [{ toolCalls: [{ name: "w", arguments: "{bad", id: "c1" }, { name: "w", arguments: "{}", id: "c2" }] }] });
    const message = await model.invoke("go");
    expect(message.additional_kwargs.tool_calls?.map((call) => call.id)).toEqual(["c1", "c2"]);
  });
});

describe("OpenAIChatModel reads tool-call arguments that are not a string", () => {
  const calls = [
    { id: "c1", type: "function", function: { name: "w", arguments: { city: "Paris" } } },
    { id: "c2", type: "function", function: { name: "w", arguments: 42 } },
    { id: "c3", type: "function", function: { name: "w", arguments: null } },
    { id: "c4", type: "function", function: { name: "w", arguments: ["Paris"] } },
  ];
  const valid = [{ id: "c1", name: "w", args: { city: "Paris" }, type: "tool_call" }];
  const invalid = [
    { id: "c2", name: "w", args: "42", error: expect.stringContaining("must be a JSON object"), type: "invalid_tool_call" },
    { id: "c3", name: "w", args: "null", error: expect.stringContaining("must be a JSON object"), type: "invalid_tool_call" },
    { id: "c4", name: "w", args: '["Paris"]', error: expect.stringContaining("must be a JSON object"), type: "invalid_tool_call" },
  ];

  it("takes an object (as Ollama-compatible servers send it) as its JSON, and anything else as an invalid call", async () => {
    const { model } = await setup({ responses: [completion({ content: null, tool_calls: calls })] });
    const message = await model.invoke("go");
    expect(message.tool_calls).toEqual(valid);
    expect(message.invalid_tool_calls).toEqual(invalid);
    expect(message.additional_kwargs.tool_calls?.map((call) => call.function.arguments)).toEqual(['{"city":"Paris"}', "42", "null", '["Paris"]']);
  });

  it("does the same in a stream, and in a whole completion sent for a streamed request", async () => {
    // (A null in a streamed delta is no text: see the next test.)
    const notNull = calls.filter((call) => call.function.arguments !== null);
    const invalidNotNull = invalid.filter((call) => call.args !== "null");
    const deltas = notNull.map((call, index) => choice({ tool_calls: [{ index, ...call }] }));
    const stream = sse([choice({ role: "assistant" }), ...deltas, choice({}, "tool_calls")]);
    const whole = completion({ content: null, tool_calls: calls });
    const { model } = await setup({ responses: [stream, whole, stream] });
    for (const expected of [invalidNotNull, invalid]) {
      const merged = (await streamAll(model, "go")).reduce((all, chunk) => all.concat(chunk));
      const { toolCalls, invalidToolCalls } = strictToolCalls(merged);
      expect(toolCalls).toEqual(valid);
      expect(invalidToolCalls).toEqual(expected);
    }
    const streamed = (await setup({ responses: [stream] }, { streaming: true })).model;
    const message = await streamed.invoke("go");
    expect(message.tool_calls).toEqual(valid);
    expect(message.invalid_tool_calls).toEqual(invalidNotNull);
  });

  it("takes null arguments in a streamed delta as no text, as compatible servers send them beside a call's name", async () => {
    const stream = sse([
      choice({ role: "assistant", tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "w", arguments: null } }] }),
      choice({ tool_calls: [{ index: 0, function: { name: null, arguments: '{"city":' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      choice({}, "tool_calls"),
    ]);
    const { model } = await setup({ responses: [stream] }, { streaming: true });
    expect((await model.invoke("go")).tool_calls).toEqual(valid);
  });
});

describe("OpenAIChatModel reads reasoning", () => {
  it("takes the first non-empty reasoning field, streamed or not", async () => {
    const { model } = await setup({
      responses: [
        completion({ content: "4", reasoning_content: "", reasoning: "Two and two." }),
        sse([choice({ role: "assistant", reasoning_content: "", reasoning: "Two and two." }), choice({ content: "4" }, "stop")]),
      ],
    });
    expect((await model.invoke("go")).additional_kwargs.reasoning_content).toBe("Two and two.");
    const merged = (await streamAll(model, "go")).reduce((all, chunk) => all.concat(chunk));
    expect(merged.additional_kwargs.reasoning_content).toBe("Two and two.");
  });
});

describe("OpenAIChatModel reads usage", () => {
  it("counts a missing or non-numeric token count as 0, streamed or not", async () => {
    const usage = { completion_tokens: 5, prompt_tokens: "many" };
    const { model } = await setup({
      responses: [
        completion({ content: "hi" }, { usage: { completion_tokens: 5 } }),
        completion({ content: "hi" }, { usage }),
        sse([choice({ role: "assistant", content: "hi" }, "stop"), { choices: [], usage: { completion_tokens: 5 } }]),
      ],
    });
    const expected = { input_tokens: 0, output_tokens: 5, total_tokens: 5 };
    expect((await model.invoke("go")).usage_metadata).toEqual(expected);
    expect((await model.invoke("go")).usage_metadata).toEqual(expected);
    expect((await streamAll(model, "go")).at(-1)?.usage_metadata).toEqual(expected);
  });

  it("adds up the valid counts when total_tokens is not a number", async () => {
    const { model } = await setup({ responses: [completion({ content: "hi" }, { usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: "8" } })] });
    expect((await model.invoke("go")).usage_metadata).toEqual({ input_tokens: 3, output_tokens: 5, total_tokens: 8 });
  });
});
