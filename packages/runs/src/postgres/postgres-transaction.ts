import { isConnectionLost, wasNotSent } from "./postgres-errors";
import { retryLostConnection } from "./postgres-retry";
import type { PostgresPool, PostgresPoolClient } from "./postgres-run-store-options";

/** The statements of a connection checked out by {@link withClient}: it releases the connection itself. */
export type PostgresStatementClient = Pick<PostgresPoolClient, "query">;

/** A `pg` client's events, when the pool's clients have them (a `pg.PoolClient` does). */
interface ClientEvents {
  on?(event: "error", listener: (error: Error) => void): unknown;
  removeListener?(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * Runs `use` with one connection checked out of `pool`, then releases it: destroyed rather than
 * returned to the pool when `use` failed or the connection failed meanwhile. A checked-out `pg`
 * client emits the error of a connection the server ended between two statements (or whose socket
 * closed after a statement failed) as an `'error'` event, which pg-pool no longer listens to: with
 * no listener it would crash the process. It is kept instead, and the next statement fails with it
 * without being sent (a lost connection, see `isConnectionLost`); `connection.failed()` tells
 * whether that happened.
 */
export async function withClient<T>(pool: PostgresPool, use: (client: PostgresStatementClient, connection: { failed(): boolean }) => Promise<T>): Promise<T> {
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost ??= error;
  };
  const client = await checkOut(pool, onError);
  const events = client as ClientEvents;
  const send = async (config: string | { text: string; values?: unknown[] }): Promise<unknown> => {
    if (lost !== undefined) throw lost;
    try {
      return await client.query(config as { text: string });
    } catch (error) {
      // Refused unsent because the connection failed: the failure itself says more.
      throw lost !== undefined && wasNotSent(error) ? lost : error;
    }
  };
  let failed = false;
  try {
    return await use({ query: send as PostgresPoolClient["query"] }, { failed: () => lost !== undefined });
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    events.removeListener?.("error", onError);
    client.release(failed || lost !== undefined || undefined);
  }
}

/**
 * A connection of `pool`, `onError` listening to its errors from the moment the pool hands it
 * out. With a `pg.Pool`, through `connect`'s callback: a new connection's first answer and an
 * error right after it (the server ending it at once) can come in one read of the socket, before
 * a promise's continuation could attach the listener. Another pool (whose `connect` takes no
 * callback) through its promise.
 */
function checkOut(pool: PostgresPool, onError: (error: Error) => void): Promise<PostgresPoolClient> {
  const listen = (client: PostgresPoolClient) => {
    (client as ClientEvents).on?.("error", onError);
    return client;
  };
  type Connect = (callback: (error: Error | undefined, client: PostgresPoolClient | undefined) => void) => unknown;
  if (pool.connect.length === 0) return pool.connect().then(listen);
  return new Promise((resolve, reject) => {
    let settled = false;
    const given = (pool.connect as unknown as Connect).call(pool, (error, client) => {
      if (settled) return;
      settled = true;
      if (error !== undefined && error !== null) reject(error);
      else if (client === undefined) reject(new Error("The pool's connect() gave no connection."));
      else resolve(listen(client));
    });
    // A pool whose connect declares a callback but answers with a promise only (pg.Pool returns
    // nothing when given one): its promise, so the checkout does not wait for a callback never made.
    if (typeof (given as PromiseLike<PostgresPoolClient> | undefined)?.then === "function") {
      (given as PromiseLike<PostgresPoolClient>).then(
        (client) => {
          if (settled) return;
          settled = true;
          resolve(listen(client));
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          reject(error);
        },
      );
    }
  });
}

/** How {@link inTransaction} runs its work. */
export interface InTransactionOptions {
  /** The call's time budget in milliseconds: no retry starts after it (see `retryLostConnection`). */
  budgetMs?: number;
}

/**
 * Runs `work` on one connection of `pool` between `BEGIN` and `COMMIT` (see {@link withClient}:
 * a connection that failed is destroyed, and the server rolls its transaction back). A transaction
 * whose connection was lost (see `isConnectionLost`) before its `COMMIT` was sent is run again,
 * on another connection, up to `LOST_CONNECTION_ATTEMPTS` times in all; one lost during its
 * `COMMIT` is not (it may have committed): its error is thrown.
 */
export function inTransaction<T>(pool: PostgresPool, work: (client: PostgresStatementClient) => Promise<T>, { budgetMs }: InTransactionOptions = {}): Promise<T> {
  let committing = false;
  const attempt = () =>
    withClient(pool, async (client, connection) => {
      await client.query("BEGIN");
      const result = await work(client);
      // A COMMIT refused unsent (its connection failed before) commits nothing: it may be run again.
      committing = !connection.failed();
      await client.query("COMMIT");
      return result;
    });
  return retryLostConnection(attempt, { retryable: (error) => !committing && isConnectionLost(error), budgetMs });
}
