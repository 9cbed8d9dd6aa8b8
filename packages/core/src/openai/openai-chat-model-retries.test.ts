import { afterEach, describe, expect, it, vi } from "vitest";
import { failure, setup, until } from "./test-helpers";

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** Fakes timers and records the delays scheduled (the SDK's backoff waits among them). */
function fakeTimers() {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  return vi.spyOn(globalThis, "setTimeout");
}

/**
 * How many backoff waits the SDK scheduled: 0.5 s to 8 s with jitter, each resolving a promise
 * (undici's and node:http's own timers, such as a 499 ms `onTick`, are not backoffs).
 */
function backoffs(scheduled: ReturnType<typeof fakeTimers>): number {
  return scheduled.mock.calls.filter(([fn, ms]) => typeof ms === "number" && ms >= 375 && ms <= 8_000 && String(fn).includes("[native code]")).length;
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
