import type { PostgresPool, PostgresPoolClient } from "./postgres-run-store-options";

/**
 * Runs `work` on one connection of `pool` between `BEGIN` and `COMMIT`. When anything fails, the
 * connection is destroyed rather than returned to the pool in the middle of a transaction (the
 * server rolls it back when the connection closes).
 */
export async function inTransaction<T>(pool: PostgresPool, work: (client: PostgresPoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let failed = false;
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    client.release(failed || undefined);
  }
}
