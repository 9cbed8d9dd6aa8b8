// What an aborted call does to the script: a call made with a signal that has already fired
// throws the abort reason (as LangChain's `signal.throwIfAborted()` does) and plays nothing, so
// the next call gets the response the aborted one would have; a call aborted once it has begun
// (during its latency, mid-stream) has used its response, as a provider's cut-short request has.
// See docs/testing.md#latency-timeouts-and-cancellation.
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AbortError } from "../errors/abort-error";
import { ScriptedChatModel } from "./scripted-chat-model";

afterEach(() => {
  vi.useRealTimers();
});

/** A callback handler that asks for streaming: `invoke` then streams the reply. */
class StreamingHandler extends BaseCallbackHandler {
  name = "streaming-handler";
  lc_prefer_streaming = true;
}

/** The ways a call reaches the script: `invoke`, `stream`, and `invoke` that streams. */
const calls = {
  invoke: (model: ScriptedChatModel, signal?: AbortSignal) => model.invoke("x", { signal }).then((message) => message.content),
  stream: async (model: ScriptedChatModel, signal?: AbortSignal) => {
    let text = "";
    for await (const chunk of await model.stream("x", { signal })) text += String(chunk.content);
    return text;
  },
  "invoke with streaming: true": (model: ScriptedChatModel, signal?: AbortSignal) => model.invoke("x", { signal }).then((message) => message.content),
  "invoke with a streaming handler": (model: ScriptedChatModel, signal?: AbortSignal) =>
    model.invoke("x", { signal, callbacks: [new StreamingHandler()] }).then((message) => message.content),
};

function abortedSignal(reason?: unknown): AbortSignal {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
}

describe("ScriptedChatModel, a call made with an aborted signal", () => {
  it.each(Object.keys(calls) as (keyof typeof calls)[])("throws the abort error and uses no response (%s)", async (how) => {
    const model = new ScriptedChatModel({ responses: ["one", "two"], streaming: how === "invoke with streaming: true" });
    const call = calls[how];
    await expect(call(model, abortedSignal())).rejects.toMatchObject({ name: "AbortError" });
    expect(model.calls).toHaveLength(0);
    expect(model.remaining).toBe(2);
    expect(await call(model)).toBe("one");
    expect(await call(model)).toBe("two");
  });

  it("throws the signal's own reason", async () => {
    const reason = new AbortError({ reason: "user cancelled" });
    const model = new ScriptedChatModel({ responses: ["one"] });
    await expect(model.invoke("x", { signal: abortedSignal(reason) })).rejects.toBe(reason);
    expect((await model.invoke("x")).content).toBe("one");
  });

  it("does not call a scripted function, nor wait the latency", async () => {
    const script = vi.fn(() => "computed");
    const model = new ScriptedChatModel({ responses: [script], latencyMs: 60_000 });
    await expect(model.invoke("x", { signal: abortedSignal() })).rejects.toMatchObject({ name: "AbortError" });
    expect(script).not.toHaveBeenCalled();
  });

  it("does not skip a scripted error: the next call still throws it", async () => {
    const failure = new Error("503 Service Unavailable");
    const model = new ScriptedChatModel({ responses: [failure, "recovered"] });
    await expect(model.invoke("x", { signal: abortedSignal() })).rejects.toMatchObject({ name: "AbortError" });
    await expect(model.invoke("x")).rejects.toBe(failure);
    expect((await model.invoke("x")).content).toBe("recovered");
  });
});

describe("ScriptedChatModel, a call aborted once it has begun", () => {
  it("has used its response when aborted mid-stream: the next call gets the next one", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const model = new ScriptedChatModel({ responses: ["a b c", "next"], tokenDelayMs: 100 });
    const seen: unknown[] = [];
    const streamed = (async () => {
      for await (const chunk of await model.stream("x", { signal: controller.signal })) seen.push(chunk.content);
    })().catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual(["a "]);
    controller.abort();
    expect(await streamed).toMatchObject({ name: "AbortError" });
    expect(model.calls).toHaveLength(1);
    expect(model.remaining).toBe(1);
    vi.useRealTimers();
    expect((await model.invoke("y")).content).toBe("next");
  });

  it("has used its response when aborted during its latency", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const model = new ScriptedChatModel({ responses: ["slow", "next"], latencyMs: 1_000 });
    const reply = model.invoke("x", { signal: controller.signal }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    expect(await reply).toMatchObject({ name: "AbortError" });
    expect(model.calls).toHaveLength(1);
    const next = model.invoke("y");
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await next).content).toBe("next");
  });
});
