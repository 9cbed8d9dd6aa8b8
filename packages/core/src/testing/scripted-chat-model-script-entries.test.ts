// Script entries: a malformed one fails with an error that names the entry and what is wrong with
// it (at construction for a written entry, at the call for what a function entry returned), and a
// scripted error comes after the model's latency.
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it, vi } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { ScriptedChatModel } from "./scripted-chat-model";
import type { ScriptedResponse } from "./scripted-response";

const build = (entry: unknown) => () => new ScriptedChatModel({ responses: ["fine", entry as ScriptedResponse] });

describe("a malformed script", () => {
  it.each([
    [null, /responses\[1\] must be text, a scripted message .* got null/],
    [42, /responses\[1\] must be text, a scripted message .* got 42/],
    [["a"], /responses\[1\] must be text, .* got an array/],
    [{ toolcalls: [{ name: "search" }] }, /responses\[1\] has an unknown key `toolcalls`; a scripted message has content, toolCalls, usage, latencyMs/],
    [{ content: 7 }, /responses\[1\]\.content must be text or an array of content blocks, got 7/],
    [{ toolCalls: { name: "search" } }, /responses\[1\]\.toolCalls must be an array/],
    [{ toolCalls: [{ args: {} }] }, /responses\[1\]\.toolCalls\[0\]\.name must be a non-empty string, got undefined/],
    [{ toolCalls: [{ name: "search", arguments: { q: 1 } }] }, /responses\[1\]\.toolCalls\[0\] has an unknown key `arguments`/],
    [{ toolCalls: [{ name: "search", args: [1, 2] }] }, /responses\[1\]\.toolCalls\[0\]\.args must be an object, or raw argument text/],
    [{ toolCalls: [{ name: "search", id: 3 }] }, /responses\[1\]\.toolCalls\[0\]\.id must be a string, got 3/],
    [{ content: "a", usage: { inputTokens: 3 } }, /responses\[1\]\.usage\.outputTokens must be a number >= 0, got undefined/],
    [{ content: "a", usage: { input_tokens: 3, output_tokens: 4 } }, /responses\[1\]\.usage has an unknown key `input_tokens`/],
    [{ content: "a", latencyMs: -5 }, /responses\[1\]\.latencyMs must be a number of milliseconds >= 0 \(Infinity: wait until the call is aborted\), got -5/],
  ])("refuses %j at construction, naming the entry and the problem", (entry, message) => {
    expect(build(entry)).toThrow(InvalidArgumentError);
    expect(build(entry)).toThrow(message);
  });

  it("accepts every documented kind of entry", () => {
    expect(
      () =>
        new ScriptedChatModel({
          responses: [
            "text",
            { content: [{ type: "text", text: "blocks" }] },
            { toolCalls: [{ name: "search", args: { q: "x" }, id: "c1" }, { name: "search", args: '{"broken', id: "" }], usage: { inputTokens: 1, outputTokens: 2 }, latencyMs: 0 },
            new AIMessage("a message"),
            new Error("on cue"),
            () => "computed",
          ],
        }),
    ).not.toThrow();
  });

  it("refuses what a function entry returns when it is not a response, naming the call and the entry", async () => {
    const model = new ScriptedChatModel({ responses: ["fine", () => undefined as never, () => ({ toolCalls: [{ name: "" }] })] });
    await model.invoke("first");
    await expect(model.invoke("second")).rejects.toThrow(/call #2: the function at responses\[1\] returned an invalid response: its response must be text, .* got undefined/);
    await expect(model.invoke("third")).rejects.toThrow(/call #3: the function at responses\[2\] returned an invalid response: its response\.toolCalls\[0\]\.name must be a non-empty string/);
  });
});

describe("a scripted error", () => {
  it("comes after the model's latency, as a provider's error does, streamed or not", async () => {
    vi.useFakeTimers();
    try {
      for (const streamed of [false, true]) {
        const model = new ScriptedChatModel({ responses: [new Error("503 Service Unavailable")], latencyMs: 5_000 });
        const reply = streamed ? model.stream("x").then(async (stream) => { for await (const _chunk of stream); }) : model.invoke("x");
        let failed = false;
        reply.catch(() => (failed = true));
        await vi.advanceTimersByTimeAsync(4_999);
        expect(failed).toBe(false);
        await vi.advanceTimersByTimeAsync(1);
        await expect(reply).rejects.toThrow("503 Service Unavailable");
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it("is thrown once, not retried, whatever maxRetries says (@langchain/core retries only inside a provider's client)", async () => {
    const model = new ScriptedChatModel({ responses: [new Error("503 Service Unavailable"), "recovered"], maxRetries: 3 });
    await expect(model.invoke("x")).rejects.toThrow("503 Service Unavailable");
    expect(model.calls).toHaveLength(1);
    expect((await model.invoke("x")).content).toBe("recovered");
  });

  it("is cut short by the call's signal", async () => {
    const model = new ScriptedChatModel({ responses: [new Error("never seen")], latencyMs: 60_000 });
    const controller = new AbortController();
    const reply = model.invoke("x", { signal: controller.signal });
    controller.abort();
    await expect(reply).rejects.toMatchObject({ name: "AbortError" });
  });
});
