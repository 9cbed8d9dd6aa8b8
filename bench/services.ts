// The servers the queue and capacity scenarios use: where they are, whether they answer, and
// removing what a scenario left in Redis.
import { Redis } from "ioredis";
import pg from "pg";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** What a bench worker process (bench/queue-worker.ts, bench/capacity-worker.ts) is started with, as JSON. */
export interface WorkerArgs {
  redisUrl: string;
  prefix: string;
  queueName: string;
  connectionString: string;
  schema: string;
  concurrency: number;
}

/**
 * Why PostgreSQL or Redis cannot be used (a sentence each, with the connection's own error, e.g.
 * ECONNREFUSED), or nothing for those that answer. `urls` defaults to DATABASE_URL and REDIS_URL.
 */
export async function unreachable(urls: { databaseUrl?: string; redisUrl?: string } = {}): Promise<{ postgres?: string; redis?: string }> {
  const { databaseUrl = DATABASE_URL, redisUrl = REDIS_URL } = urls;
  const problems: { postgres?: string; redis?: string } = {};
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
  } catch (error) {
    problems.postgres = `PostgreSQL is not reachable (${describe(error)})`;
  } finally {
    await client.end().catch(() => undefined); // it never connected: nothing to end
  }
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  // With no retries, connect() rejects with "Connection is closed."; the cause is this event's error.
  let cause: unknown;
  redis.on("error", (error: unknown) => (cause ??= error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const message = describe(error);
    const why = cause === undefined ? message : `${describe(cause)}; ${message}`;
    problems.redis = `Redis is not reachable at ${redisUrl} (${why})`;
  } finally {
    redis.disconnect();
  }
  return problems;
}

/** An error's message, with its code when the message does not say it (pg's ECONNREFUSED may come as an AggregateError with no message). */
function describe(error: unknown): string {
  const { message, code, errors } = (error ?? {}) as { message?: string; code?: string; errors?: unknown[] };
  const text = message || (errors ?? []).map(describe).join("; ") || String(error);
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}

/** Deletes every Redis key under `prefix` (BullMQ's queues and our channels' state). */
export async function dropRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
