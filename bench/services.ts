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

/** Why PostgreSQL or Redis cannot be used (a sentence each), or nothing for those that answer. */
export async function unreachable(): Promise<{ postgres?: string; redis?: string }> {
  const problems: { postgres?: string; redis?: string } = {};
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
  } catch (error) {
    problems.postgres = `PostgreSQL is not reachable (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    problems.redis = `Redis is not reachable at ${REDIS_URL} (${(error as Error).message})`;
  } finally {
    redis.disconnect();
  }
  return problems;
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
