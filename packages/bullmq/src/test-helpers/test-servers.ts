// Test-only (not exported by the package): the Redis server and PostgreSQL database the tests of
// this package use. Outside CI, a server that cannot be reached makes a file's tests skip with one
// line saying why; with `CI` set they fail with that reason instead.
import { Redis } from "ioredis";
import { type PostgresTestDatabase, postgresTestDatabase } from "../../../runs/src/testing/postgres-test-database";

/** The Redis of the tests: `REDIS_URL`, or the local server. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export interface TestServers {
  /** True when a server is unreachable outside CI: register the tests as skipped. */
  skip: boolean;
  /** Throws the reason a server is unreachable (in CI, where that must fail the tests). */
  assertReachable(): void;
  redisUrl: string;
  /** A key prefix of this test file's own (`agentrx-test-<random>`), for BullMQ and our channels. */
  prefix: string;
  /** The PostgreSQL database, with a schema of this test file's own. */
  postgres: PostgresTestDatabase | undefined;
  /** Deletes every Redis key under `prefix` and drops the schema. */
  cleanup(): Promise<void>;
}

export async function testServers(label: string): Promise<TestServers> {
  const prefix = `agentrx-test-${Math.random().toString(36).slice(2, 10)}`;
  const redisProblem = await probeRedis();
  let postgres: PostgresTestDatabase | undefined;
  if (redisProblem === undefined || process.env.CI) {
    postgres = await postgresTestDatabase(label); // prints its own line when it skips
  } else {
    console.warn(`Skipping the ${label} tests: ${redisProblem} (with CI set, this fails instead).`);
  }
  const skip = (redisProblem !== undefined && !process.env.CI) || postgres?.skip === true;
  return {
    skip,
    redisUrl: TEST_REDIS_URL,
    prefix,
    postgres,
    assertReachable() {
      if (redisProblem !== undefined) throw new Error(`The ${label} tests need Redis: ${redisProblem}.`);
      postgres?.assertReachable();
    },
    async cleanup() {
      if (redisProblem === undefined) await deleteKeys(`${prefix}:*`);
      await postgres?.drop();
    },
  };
}

async function probeRedis(): Promise<string | undefined> {
  const client = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    const url = new URL(TEST_REDIS_URL);
    return `Redis is not reachable at ${url.host} (${(error as { code?: string }).code ?? (error as Error).message}); set REDIS_URL to a reachable server`;
  } finally {
    client.disconnect();
  }
}

/** Deletes the keys matching `pattern` (SCAN, never KEYS). */
export async function deleteKeys(pattern: string): Promise<void> {
  const client = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await client.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    client.disconnect();
  }
}

/** Polls `check` every 10 ms until it holds, or fails after `timeoutMs` naming `what`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
