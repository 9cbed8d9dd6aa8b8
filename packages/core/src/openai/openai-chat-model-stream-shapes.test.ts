// Streams laid out differently from OpenAI's own, as compatible servers send them.
import { describe, expect, it } from "vitest";
import { setup, streamAll } from "./test-helpers";

const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: "m" };
const sse = (chunks: object[]) => ({
  raw: `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("")}data: [DONE]\n\n`,
  contentType: "text/event-stream",
});
const choice = (delta: object, finishReason: string | null = null, index = 0) => ({ index, delta, finish_reason: finishReason });

describe("OpenAIChatModel streams from compatible servers", () => {
  it("counts usage reported on every chunk (a running total, as vLLM and LiteLLM send it) once: the last report", async () => {
    const usage = (completion: number) => ({ prompt_tokens: 10, completion_tokens: completion, total_tokens: 10 + completion });
    const reply = sse([
      { ...base, choices: [choice({ role: "assistant", content: "a" })], usage: usage(1) },
      { ...base, choices: [choice({ content: "b" })], usage: usage(2) },
      { ...base, choices: [choice({}, "stop")], usage: { ...usage(3), prompt_tokens_details: { cached_tokens: 4 } } },
    ]);
    const { model } = await setup({ responses: [reply, reply] }, { streaming: true });
    const expected = { input_tokens: 10, output_tokens: 3, total_tokens: 13, input_token_details: { cache_read: 4 } };
    // (Concatenating chunks may add an empty `output_token_details`, as LangChain's merge does.)
    expect((await model.invoke("go")).usage_metadata).toMatchObject(expected);
    const chunks = await streamAll(model, "go");
    expect(chunks.reduce((all, chunk) => all.concat(chunk)).usage_metadata).toMatchObject(expected);
    expect(chunks.filter((chunk) => chunk.usage_metadata)).toHaveLength(1);
    expect(chunks.at(-1)?.usage_metadata).toEqual(expected);
  });

  it("takes tool-call deltas without an index (as some servers send them) as the call in progress, or a new call when their id is new", async () => {
    const reply = sse([
      { ...base, choices: [choice({ role: "assistant", tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "weather", arguments: "" } }] })] },
      { ...base, choices: [choice({ tool_calls: [{ function: { arguments: '{"city":' } }] })] },
      { ...base, choices: [choice({ tool_calls: [{ function: { arguments: '"Paris"}' } }] })] },
      { ...base, choices: [choice({ tool_calls: [{ id: "call_b", type: "function", function: { name: "time", arguments: '{"zone":"CET"}' } }] })] },
      { ...base, choices: [choice({ tool_calls: [{ id: "call_c", type: "function", function: { name: "weather" } }] })] },
      { ...base, choices: [choice({ tool_calls: [{ function: { arguments: '{"city":"Rome"}' } }] })] },
      { ...base, choices: [choice({}, "tool_calls")] },
    ]);
    const { model } = await setup({ responses: [reply, reply] }, { streaming: true });
    const expected = [
      { id: "call_a", name: "weather", args: { city: "Paris" } },
      { id: "call_b", name: "time", args: { zone: "CET" } },
      { id: "call_c", name: "weather", args: { city: "Rome" } },
    ];
    for (const message of [await model.invoke("go"), (await streamAll(model, "go")).reduce((all, chunk) => all.concat(chunk))]) {
      expect(message.tool_calls).toMatchObject(expected);
      expect(message.invalid_tool_calls ?? []).toEqual([]);
    }
  });

  it("reads the first choice only when the server streams several (n > 1), as when it does not stream", async () => {
    const reply = sse([
      { ...base, choices: [choice({ role: "assistant", content: "Paris" })] },
      { ...base, choices: [choice({ role: "assistant", content: "Lyon" }, null, 1)] },
      { ...base, choices: [choice({ content: "!" }), choice({ content: "?" }, null, 1)] },
      { ...base, choices: [choice({}, "stop", 1)] },
      { ...base, choices: [choice({}, "length")] },
    ]);
    const { model } = await setup({ responses: [reply] }, { streaming: true, modelKwargs: { n: 2 } });
    const message = await model.invoke("go");
    expect(message.content).toBe("Paris!");
    expect(message.response_metadata.finish_reason).toBe("length");
  });

  it("reports audio tokens of the prompt and of the answer in the usage details, streamed or not", async () => {
    const usage = {
      prompt_tokens: 50,
      completion_tokens: 40,
      total_tokens: 90,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 30 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 25 },
    };
    const completion = {
      raw: JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }], usage }),
    };
    const stream = sse([{ ...base, choices: [choice({ role: "assistant", content: "hi" }, "stop")] }, { ...base, choices: [], usage }]);
    const expected = {
      input_tokens: 50,
      output_tokens: 40,
      total_tokens: 90,
      input_token_details: { cache_read: 0, audio: 30 },
      output_token_details: { reasoning: 0, audio: 25 },
    };
    const { model } = await setup({ responses: [completion, stream] });
    expect((await model.invoke("go")).usage_metadata).toEqual(expected);
    expect((await streamAll(model, "go")).at(-1)?.usage_metadata).toEqual(expected);
  });
});
