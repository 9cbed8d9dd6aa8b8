import { afterEach, describe, expect, it, vi } from "vitest";
import { REPEAT_QUIET_MS, defaultOnError } from "./default-on-error";

/** An error as ioredis gives it while Redis is down. */
function refused(port = 6390): Error {
  return Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: "ECONNREFUSED", errno: -111, syscall: "connect" });
}

describe("the worker's default onError", () => {
  afterEach(() => vi.restoreAllMocks());

  it("prints an unreachable server as one line, once per 30 s, then with how many came meanwhile", () => {
    const lines: unknown[][] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void lines.push(args));
    let now = 1_000_000;
    const onError = defaultOnError(() => now);
    for (let i = 0; i < 8; i++) {
      onError(refused());
      now += 500; // ioredis retries every few hundred milliseconds
    }
    expect(lines).toEqual([["@agentrx/bullmq worker: connect ECONNREFUSED 127.0.0.1:6390; retrying."]]);
    now += REPEAT_QUIET_MS;
    onError(refused());
    expect(lines[1]).toEqual([`@agentrx/bullmq worker: connect ECONNREFUSED 127.0.0.1:6390 (7 more times in the last ${Math.round((REPEAT_QUIET_MS + 4000) / 1000)} s); retrying.`]);
    // Another server's line is its own.
    onError(refused(6391));
    expect(lines).toHaveLength(3);
  });

  it("prints any other error whole, every time", () => {
    const lines: unknown[][] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void lines.push(args));
    const onError = defaultOnError(() => 0);
    const malformed = new Error("job 7 has no executor name");
    onError(malformed);
    onError(malformed);
    expect(lines).toEqual([
      ["@agentrx/bullmq worker:", malformed],
      ["@agentrx/bullmq worker:", malformed],
    ]);
  });
});

describe("a worker whose Redis cannot be reached, with the default onError", () => {
  it("says so in one line while it retries, not once per retry with a stack", async () => {
    const { createRunWorker } = await import("./create-run-worker");
    const { MemoryRunStore } = await import("@agentrx/runs");
    const { doublingExecutor } = await import("../test-helpers/doubling-agent");
    const lines: unknown[][] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void lines.push(args));
    // Port 1: nothing listens; ioredis retries within milliseconds, then every few hundred.
    const worker = createRunWorker({ connection: { host: "127.0.0.1", port: 1 }, store: new MemoryRunStore(), executors: { double: () => doublingExecutor() } });
    // The first refusal, then a second of retries.
    for (let waited = 0; lines.length === 0 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const printed = lines.length;
    await worker.close({ gracePeriodMs: 100 }).catch(() => undefined); // rejects: Redis does not answer
    expect(printed).toBe(1);
    expect(lines[0]).toEqual(["@agentrx/bullmq worker: connect ECONNREFUSED 127.0.0.1:1; retrying."]);
  }, 20_000);
});
