// Ctrl-C (SIGINT to the whole process group) or a SIGTERM to `bench/index.ts` mid-way through the
// capacity scenario: before the bench exits (130 or 143), it stops its worker processes and
// removes its PostgreSQL schemas, its Redis keys and its temporary directory. Needs Redis and
// PostgreSQL (skipped with one line without them, unless CI is set).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
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

/** Whether process `pid` is `ancestor` or one of its descendants (Linux: its parents from /proc). */
function descendsFrom(pid: number, ancestor: number): boolean {
  for (let current = pid, hops = 0; current > 1 && hops < 20; hops++) {
    if (current === ancestor) return true;
    try {
      // Field 4 of /proc/<pid>/stat, after the command name in parentheses, is the parent's pid.
      current = Number(readFileSync(`/proc/${current}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
    } catch {
      return false; // gone
    }
  }
  return false;
}

/** The pids of the processes whose command line holds `prefix` (the bench's worker processes). */
function pidsWith(prefix: string): number[] {
  return (spawnSync("pgrep", ["-f", prefix], { encoding: "utf8" }).stdout ?? "")
    .split("\n")
    .filter(Boolean)
    .map(Number);
}

// The two tests run at once (each spends its time waiting on the bench's processes), each on a
// bench of its own, told apart by its worker processes' parents.
describe.skipIf(missing !== "").concurrent("the capacity scenario stopped by a signal (Redis, PostgreSQL)", () => {
  const started: { bench: ChildProcess; id?: string }[] = [];

  afterAll(async () => {
    for (const { bench, id } of started) {
      if (bench.pid !== undefined && bench.exitCode === null && bench.signalCode === null) process.kill(-bench.pid, "SIGKILL");
      if (id !== undefined) {
        await dropRedisPrefix(`agentrx-bench-capacity-${id}`);
        for (const schema of await schemasEndingWith(`_${id}`)) await dropSchema(schema);
      }
    }
  });

  /** Starts the bench on one worker process, and waits until its runs are under way (their Redis keys). */
  async function startBench(): Promise<{ bench: ChildProcess; id: string; exit: Promise<number | string>; workerPids: () => number[] }> {
    const bench = spawn(process.execPath, ["--import", "tsx", INDEX, "capacity", "--levels=5", "--only=worker", "--workers=1"], {
      stdio: ["ignore", "ignore", "pipe"],
      detached: true, // its own process group, as a terminal gives it
    });
    const entry: { bench: ChildProcess; id?: string } = { bench };
    started.push(entry);
    let stderr = "";
    bench.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<number | string>((resolve) => bench.once("exit", (code, signal) => resolve(code ?? signal ?? "?")));
    const id = await until(
      "the bench's runs in Redis",
      async () => {
        if (bench.exitCode !== null) throw new Error(`the bench exited (${bench.exitCode}) early: ${stderr}`);
        for (const found of await capacityIds()) {
          if (started.some((other) => other.id === found)) continue;
          if (!pidsWith(`agentrx-bench-capacity-${found}`).some((pid) => descendsFrom(pid, bench.pid as number))) continue;
          if ((await redisKeys(`agentrx-bench-capacity-${found}:capacity-1:*`)).length > 0) return found;
        }
        return undefined;
      },
      30_000,
    );
    entry.id = id;
    return { bench, id, exit, workerPids: () => pidsWith(`agentrx-bench-capacity-${id}`) };
  }

  async function expectCleanedUp(id: string, exit: Promise<number | string>, code: number, workerPids: () => number[]): Promise<void> {
    const how = await Promise.race([exit, new Promise((resolve) => setTimeout(() => resolve("still running 15 s after the signal"), 15_000))]);
    expect(how).toBe(code);
    // All gone by the time the process the user started exits.
    expect(await redisKeys(`agentrx-bench-capacity-${id}:*`)).toEqual([]);
    expect(await schemasEndingWith(`_${id}`)).toEqual([]);
    expect(capacityTempDirs(id)).toEqual([]);
    expect(workerPids()).toEqual([]);
  }

  it("Ctrl-C (SIGINT to the process group): exit 130, workers, schemas, keys and temporary directory gone", async () => {
    const { bench, id, exit, workerPids } = await startBench();
    expect(workerPids().length).toBeGreaterThan(0);
    expect(await schemasEndingWith(`_${id}`)).not.toEqual([]);
    expect(capacityTempDirs(id)).toHaveLength(1);
    process.kill(-(bench.pid as number), "SIGINT");
    await expectCleanedUp(id, exit, 130, workerPids);
  }, 60_000);

  it("SIGTERM to bench/index.ts alone: it passes it on and waits; exit 143, all removed", async () => {
    const { bench, id, exit, workerPids } = await startBench();
    bench.kill("SIGTERM");
    await expectCleanedUp(id, exit, 143, workerPids);
  }, 60_000);
});
