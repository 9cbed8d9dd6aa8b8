// Ctrl-C (SIGINT to the whole process group) or a SIGTERM to `bench/index.ts` mid-way through the
// capacity scenario: before the bench exits (130 or 143), it stops its worker processes and
// removes its PostgreSQL schemas, its Redis keys and its temporary directory. Needs Redis and
// PostgreSQL (skipped with one line without them, unless CI is set).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { dropRedisPrefix } from "../../bench/services";
import { capacityTempDirs, dropSchema, missingServers, redisKeys, schemasEndingWith } from "./bench-servers";

const INDEX = fileURLToPath(new URL("../../bench/index.ts", import.meta.url));
const missing = await missingServers("the capacity signal tests");

/** The capacity runs' ids that have Redis keys now. */
async function capacityIds(): Promise<Set<string>> {
  const keys = await redisKeys("agentrx-bench-capacity-*");
  return new Set(keys.map((key) => /^agentrx-bench-capacity-([a-z0-9]+):/.exec(key)?.[1]).filter((id): id is string => id !== undefined));
}

async function until<T>(what: string, check: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.skipIf(missing !== "")("the capacity scenario stopped by a signal (Redis, PostgreSQL)", () => {
  let bench: ChildProcess | undefined;
  let id: string | undefined;

  afterEach(async () => {
    if (bench?.pid !== undefined && bench.exitCode === null && bench.signalCode === null) process.kill(-bench.pid, "SIGKILL");
    if (id !== undefined) {
      await dropRedisPrefix(`agentrx-bench-capacity-${id}`);
      for (const schema of await schemasEndingWith(`_${id}`)) await dropSchema(schema);
    }
  });

  /** Starts the bench on one worker process, and waits until its runs are under way (their Redis keys). */
  async function startBench(): Promise<{ exit: Promise<number | string>; workerPids: () => number[] }> {
    const before = await capacityIds();
    bench = spawn(process.execPath, ["--import", "tsx", INDEX, "capacity", "--levels=5", "--only=worker", "--workers=1"], {
      stdio: ["ignore", "ignore", "pipe"],
      detached: true, // its own process group, as a terminal gives it
    });
    const started = bench;
    let stderr = "";
    started.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<number | string>((resolve) => started.once("exit", (code, signal) => resolve(code ?? signal ?? "?")));
    id = await until(
      "the bench's runs in Redis",
      async () => {
        if (started.exitCode !== null) throw new Error(`the bench exited (${started.exitCode}) early: ${stderr}`);
        const ids = [...(await capacityIds())].filter((found) => !before.has(found));
        return ids.length > 0 && (await redisKeys(`agentrx-bench-capacity-${ids[0]}:capacity-1:*`)).length > 0 ? ids[0] : undefined;
      },
      15_000,
    );
    const prefix = `agentrx-bench-capacity-${id}`;
    const workerPids = () =>
      (spawnSync("pgrep", ["-f", prefix], { encoding: "utf8" }).stdout ?? "")
        .split("\n")
        .filter(Boolean)
        .map(Number);
    return { exit, workerPids };
  }

  async function expectCleanedUp(exit: Promise<number | string>, code: number, workerPids: () => number[]): Promise<void> {
    const how = await Promise.race([exit, new Promise((resolve) => setTimeout(() => resolve("still running 15 s after the signal"), 15_000))]);
    expect(how).toBe(code);
    // All gone by the time the process the user started exits.
    expect(await redisKeys(`agentrx-bench-capacity-${id}:*`)).toEqual([]);
    expect(await schemasEndingWith(`_${id}`)).toEqual([]);
    expect(capacityTempDirs(id as string)).toEqual([]);
    expect(workerPids()).toEqual([]);
  }

  it("Ctrl-C (SIGINT to the process group): exit 130, workers, schemas, keys and temporary directory gone", async () => {
    const { exit, workerPids } = await startBench();
    expect(workerPids().length).toBeGreaterThan(0);
    expect(await schemasEndingWith(`_${id}`)).not.toEqual([]);
    expect(capacityTempDirs(id as string)).toHaveLength(1);
    process.kill(-(bench?.pid as number), "SIGINT");
    await expectCleanedUp(exit, 130, workerPids);
  }, 40_000);

  it("SIGTERM to bench/index.ts alone: it passes it on and waits; exit 143, all removed", async () => {
    const { exit, workerPids } = await startBench();
    bench?.kill("SIGTERM");
    await expectCleanedUp(exit, 143, workerPids);
  }, 40_000);
});
