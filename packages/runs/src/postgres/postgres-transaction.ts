import { nextTurn } from "@agentrx/core";
import { isConnectionLost } from "./postgres-errors";
import type { PostgresPool, PostgresPoolClient } from "./postgres-run-store-options";

/**
 * Runs `work` on one connection of `pool` between `BEGIN` and `COMMIT`. When anything fails, the
 * connection is destroyed rather than returned to the pool in the middle of a transaction (the
 * server rolls it back when the connection closes). A transaction whose connection was lost (see
 * `isConnectionLost`) before its `COMMIT` was sent is run once more; one lost during its `COMMIT`
 * is not (it may have committed): its error is thrown.
 */
export async function inTransaction<T>(pool: PostgresPool, work: (client: PostgresPoolClient) => Promise<T>): Promise<T> {
  let committing = false;
  try {
    return await attempt(pool, work, () => (committing = true));
  } catch (error) {
    // Lost before its COMMIT was sent: the server rolled the transaction back, so it is run once
    // more, on another connection (one the server closed at the same time is dropped meanwhile).
    if (committing || !isConnectionLost(error)) throw error;
  }
  await nextTurn();
  return attempt(pool, work, () => undefined);
}

async function attempt<T>(pool: PostgresPool, work: (client: PostgresPoolClient) => Promise<T>, onCommit: () => void): Promise<T> {
  const client = await pool.connect();
  let failed = false;
  try {
    await client.query("BEGIN");
    const result = await work(client);
    onCommit();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    client.release(failed || undefined);
  }
}
