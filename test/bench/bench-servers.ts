// Test-only: the PostgreSQL and Redis servers the capacity scenario's process tests need, and what
// a capacity run left in them.
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { Redis } from "ioredis";
import pg from "pg";
import { DATABASE_URL, REDIS_URL, unreachable } from "../../bench/services";

/**
 * Why these tests cannot run here ("" when both servers answer). With CI set, a missing server
 * fails the test file instead of skipping it.
 */
export async function missingServers(what: string): Promise<string> {
  const problems = await unreachable();
  const missing = [problems.postgres, problems.redis].filter(Boolean).join("; ");
  if (missing && process.env.CI) throw new Error(`${missing}; with CI set, ${what} need PostgreSQL and Redis.`);
  if (missing) console.warn(`skipping ${what}: ${missing}`);
  return missing;
}

/** The Redis keys under `pattern` (a SCAN pattern). */
export async function redisKeys(pattern: string): Promise<string[]> {
  const redis = new Redis(REDIS_URL);
  try {
    const found: string[] = [];
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== "0");
    return found;
  } finally {
    redis.disconnect();
  }
}

/** The PostgreSQL schemas whose name ends with `suffix`. */
export async function schemasEndingWith(suffix: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE right(nspname, length($1)) = $1", [suffix]);
    return rows.map((row) => row.nspname);
  } finally {
    await client.end();
  }
}

/** Drops a schema (test clean-up). */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** The temporary directories of a capacity run whose id is `id`. */
export function capacityTempDirs(id: string): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith(`agentrx-bench-capacity-${id}-`));
}
