// Latencies longer than one timer can hold (2^31 - 1 ms, about 24.8 days) are waited in full, and
// `Infinity` scripts a model that never answers until the call is aborted: at the model's
// `latencyMs`, a reply's own `latencyMs` and `tokenDelayMs` alike. See
// docs/testing.md#latency-timeouts-and-cancellation.
import { afterEach, describe, expect, it, vi } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { ScriptedChatModel, type ScriptedChatModelOptions } from "./scripted-chat-model";

afterEach(() => {
  vi.useRealTimers();
});

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Tracks whether `promise` has settled. */
function track(promise: Promise<unknown>): { readonly settled: boolean } {
  const state = { settled: false };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

const ways = {
  invoke: (model: ScriptedChatModel, signal?: AbortSignal) => model.invoke("x", { signal }).then((message) => message.text),
  stream: async (model: ScriptedChatModel, signal?: AbortSignal) => {
    let text = "";
    for await (const chunk of await model.stream("x", { signal })) text += chunk.text;
    return text;
  },
};

describe("ScriptedChatModel, a latency longer than one timer holds", () => {
  it.each([
    ["the model's latencyMs", { responses: ["late"], latencyMs: 2 ** 31 }],
    ["a reply's latencyMs", { responses: [{ content: "late", latencyMs: 2 ** 31 }] }],
  ] as [string, ScriptedChatModelOptions][])("waits %s in full (2^31 ms), invoked or streamed", async (_name, options) => {
    vi.useFakeTimers();
    for (const call of Object.values(ways)) {
      const reply = call(new ScriptedChatModel(options));
      const state = track(reply);
      await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
      expect(state.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await reply).toBe("late");
    }
  });

  it("waits a tokenDelayMs of 2^31 ms between chunks", async () => {
    vi.useFakeTimers();
    const model = new ScriptedChatModel({ responses: ["a b"], tokenDelayMs: 2 ** 31 });
    const seen: string[] = [];
    const done = (async () => {
      for await (const chunk of await model.stream("x")) if (chunk.text) seen.push(chunk.text);
    })();
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(seen).toEqual(["a "]);
    await vi.advanceTimersByTimeAsync(1);
    await done;
    expect(seen).toEqual(["a ", "b"]);
  });
});

describe("ScriptedChatModel, a latency of Infinity", () => {
  it.each([
    ["the model's latencyMs", { responses: ["never"], latencyMs: Infinity }],
    ["a reply's latencyMs", { responses: [{ content: "never", latencyMs: Infinity }] }],
    ["the model's latencyMs, before a scripted error", { responses: [new Error("never seen")], latencyMs: Infinity }],
  ] as [string, ScriptedChatModelOptions][])("(%s) never answers until the call is aborted", async (_name, options) => {
    vi.useFakeTimers();
    for (const call of Object.values(ways)) {
      const controller = new AbortController();
      const reply = call(new ScriptedChatModel(options), controller.signal);
      const state = track(reply);
      await vi.advanceTimersByTimeAsync(10 * MAX_TIMER_MS);
      expect(state.settled).toBe(false);
      controller.abort();
      await expect(reply).rejects.toMatchObject({ name: "AbortError" });
      expect(vi.getTimerCount()).toBe(0);
    }
  });

  it("as tokenDelayMs, streams the first chunk and no other until aborted", async () => {
    vi.useFakeTimers();
    const model = new ScriptedChatModel({ responses: ["a b"], tokenDelayMs: Infinity });
    const controller = new AbortController();
    const seen: string[] = [];
    const done = (async () => {
      for await (const chunk of await model.stream("x", { signal: controller.signal })) if (chunk.text) seen.push(chunk.text);
    })();
    const state = track(done);
    await vi.advanceTimersByTimeAsync(10 * MAX_TIMER_MS);
    expect(seen).toEqual(["a "]);
    expect(state.settled).toBe(false);
    controller.abort();
    await expect(done).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("ScriptedChatModel, a latency that is not a number >= 0", () => {
  it.each([
    ["latencyMs", Number.NaN],
    ["latencyMs", -1],
    ["tokenDelayMs", Number.NaN],
    ["tokenDelayMs", -Infinity],
    ["latencyMs", "100"],
  ])("refuses the model's %s %s, naming it", (argument, value) => {
    let error: unknown;
    try {
      new ScriptedChatModel({ responses: [], [argument]: value } as never);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument });
    expect((error as Error).message).toMatch(new RegExp(`\`${argument}\` must be a number of milliseconds >= 0 \\(Infinity: wait until the call is aborted\\), got ${String(value)}`));
  });

  it.each([Number.NaN, -1, -Infinity])("refuses a reply's latencyMs %s, naming the entry", (value) => {
    expect(() => new ScriptedChatModel({ responses: [{ content: "a", latencyMs: value }] })).toThrow(
      new RegExp(`responses\\[0\\]\\.latencyMs must be a number of milliseconds >= 0 \\(Infinity: wait until the call is aborted\\), got ${String(value)}`),
    );
  });
});
