import { afterEach, describe, expect, it, vi } from "vitest";
import OpenAI from "openai";
import { AbortError } from "../errors/abort-error";
import { OpenAIChatModel } from "./openai-chat-model";
import { failure, realPause, setup, until } from "./test-helpers";

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** Fakes timers and records the delays scheduled (the SDK's backoff waits among them). */
function fakeTimers() {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  return vi.spyOn(globalThis, "setTimeout");
}

/** The waits the model scheduled between attempts (not undici's or node:http's own timers). */
function waits(scheduled: ReturnType<typeof fakeTimers>): number[] {
  return scheduled.mock.calls.flatMap(([fn, ms]) => ((fn as { name?: string }).name === "sleepEnded" ? [ms ?? 0] : []));
}

/** How many backoff waits the model scheduled: 0.5 s to 8 s with jitter. */
function backoffs(scheduled: ReturnType<typeof fakeTimers>): number {
  return waits(scheduled).filter((ms) => ms >= 375 && ms <= 8_000).length;
}

describe("OpenAIChatModel retries", () => {
  it.each([
    [400, "OpenAIBadRequestError"],
    [401, "OpenAIAuthenticationError"],
    [404, "OpenAIBadRequestError"],
  ])("does not retry a %i", async (status, name) => {
    const { server, model } = await setup({ responses: [{ status, message: "No." }, "never"] }, { maxRetries: 2 });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe(name);
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry a 429 that says the quota is used up, and says so instead of advising more retries", async () => {
    const quota = {
      status: 429,
      message: "You exceeded your current quota, please check your plan and billing details.",
      type: "insufficient_quota",
      code: "insufficient_quota",
    };
    const { server, model } = await setup({ responses: [quota, "never"] }, { maxRetries: 2 });
    const error = await failure(model.invoke("go"));
    expect(error).toMatchObject({ name: "OpenAIRateLimitError", status: 429 });
    expect(error.message).toContain("quota is used up (429 insufficient_quota, not retried): You exceeded your current quota");
    expect(error.message).not.toContain("maxRetries");
    expect(server.requests).toHaveLength(1);
  });

  it("honours maxRetries: 0", async () => {
    const { server, model } = await setup({ responses: [{ status: 503, message: "Busy." }, "never"] }, { maxRetries: 0 });
    const error = await failure(model.invoke("go"));
    expect(error.name).toBe("OpenAIServerError");
    expect(error.message).toContain("after 1 attempt:");
    expect(server.requests).toHaveLength(1);
  });

  it("retries 500, 502 and 503, backing off before each attempt", async () => {
    const responses = [500, 502, 503].map((status) => ({ status, message: `Failure ${status}.` }));
    const { server, model } = await setup({ responses: [...responses, "recovered"] }, { maxRetries: 3 });
    const scheduled = fakeTimers();
    const pending = model.invoke("go");
    for (let waits = 1; waits <= 3; waits++) {
      await until(() => backoffs(scheduled) >= waits);
      await vi.advanceTimersByTimeAsync(8_000);
    }
    expect((await pending).content).toBe("recovered");
    expect(server.requests).toHaveLength(4);
    expect(backoffs(scheduled)).toBe(3);
  });

  it("waits until the HTTP date a Retry-After header names", async () => {
    const retryAfter = new Date(Date.now() + 30_000).toUTCString();
    const { server, model } = await setup({ responses: [{ status: 429, message: "Later.", retryAfter }, "done"] }, { maxRetries: 1 });
    const scheduled = fakeTimers();
    const pending = model.invoke("go");
    // An HTTP date has whole seconds, so the wait is a little under 30 s.
    await until(() => scheduled.mock.calls.some(([, ms]) => typeof ms === "number" && ms > 28_000 && ms <= 30_000));
    expect(server.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(30_000);
    expect((await pending).content).toBe("done");
    expect(server.requests).toHaveLength(2);
  });
});

describe("OpenAIChatModel Retry-After cap", () => {
  it.each([
    ["an hour", 3600, {}, 60_000],
    ["an hour, with maxRetryDelayMs: 5000", 3600, { maxRetryDelayMs: 5_000 }, 5_000],
    ["a value too large for a timer", 99_999_999, {}, 60_000],
  ])("waits the cap when Retry-After asks for %s", async (_label, retryAfter, options, expected) => {
    const { server, model } = await setup({ responses: [{ status: 429, message: "Later.", retryAfter }, "done"] }, { maxRetries: 1, ...options });
    const scheduled = fakeTimers();
    const pending = model.invoke("go");
    await until(() => waits(scheduled).length === 1);
    expect(waits(scheduled)).toEqual([expected]);
    await vi.advanceTimersByTimeAsync(expected - 1);
    await realPause();
    expect(server.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).content).toBe("done");
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    ["a negative Retry-After", -30],
    ["a Retry-After date in the past", new Date(Date.now() - 60_000).toUTCString()],
  ])("backs off instead of retrying at once on %s", async (_label, retryAfter) => {
    const { server, model } = await setup({ responses: [{ status: 429, message: "Later.", retryAfter }, "done"] }, { maxRetries: 1 });
    const scheduled = fakeTimers();
    const pending = model.invoke("go");
    await until(() => waits(scheduled).length === 1);
    expect(backoffs(scheduled)).toBe(1);
    await realPause();
    expect(server.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(500);
    expect((await pending).content).toBe("done");
  });

  it("aborting during a Retry-After wait rejects at once with the reason, clears the timer and never retries", async () => {
    const { server, model } = await setup({ responses: [{ status: 429, message: "Later.", retryAfter: 3600 }, "retried"] }, { maxRetries: 2 });
    const scheduled = fakeTimers();
    const cleared = vi.spyOn(globalThis, "clearTimeout");
    const controller = new AbortController();
    const pending = model.invoke("go", { signal: controller.signal });
    await until(() => waits(scheduled).length === 1);
    const index = scheduled.mock.calls.findIndex(([fn]) => (fn as { name?: string }).name === "sleepEnded");
    const timer = scheduled.mock.results[index]?.value;
    controller.abort("shutting down");
    const error = await failure(pending);
    expect(AbortError.isInstance(error)).toBe(true);
    expect((error as AbortError).reason).toBe("shutting down");
    expect(cleared).toHaveBeenCalledWith(timer);
    await vi.advanceTimersByTimeAsync(3_600_000);
    await realPause();
    expect(server.requests).toHaveLength(1);
  });

  it("applies the cap to a client passed in, whose own retry count is used", async () => {
    const { server } = await setup({ responses: [{ status: 503, message: "Busy.", retryAfter: 3600 }, "done"] });
    const client = new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 1 });
    const model = new OpenAIChatModel({ model: "test-model", client, maxRetryDelayMs: 1_000 });
    const scheduled = fakeTimers();
    const pending = model.invoke("go");
    await until(() => waits(scheduled).length === 1);
    expect(waits(scheduled)).toEqual([1_000]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await pending).content).toBe("done");
  });
});

describe("OpenAIChatModel aborts and timeouts", () => {
  it("an aborted signal sends nothing", async () => {
    const { server, model } = await setup({ responses: ["never"] }, { maxRetries: 2 });
    const error = await failure(model.invoke("go", { signal: AbortSignal.abort() }));
    expect(error.name).toBe("AbortError");
    expect(server.requests).toHaveLength(0);
  });

  it("aborting while waiting for the first byte closes the connection and is not retried", async () => {
    const { server, model } = await setup({ responses: [{ content: "late", firstByteDelayMs: 60_000 }, "retried"] }, { maxRetries: 2 });
    const scheduled = fakeTimers();
    const controller = new AbortController();
    const pending = model.invoke("go", { signal: controller.signal });
    await until(() => server.requests.length === 1);
    controller.abort();
    const error = await failure(pending);
    expect(error.name).toBe("AbortError");
    await server.requests[0]?.done;
    expect(server.requests[0]?.clientDisconnected).toBe(true);
    // No backoff was scheduled, and none fires later.
    expect(backoffs(scheduled)).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(server.requests).toHaveLength(1);
  });
});
