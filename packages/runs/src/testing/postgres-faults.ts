// Test-only (not exported by the package): pools that lose their connection on cue, for the tests
// of how PostgresRunStore retries a call whose connection was lost (docs/runs.md, "Store timeouts
// and busy files").
import type pg from "pg";
import type { PostgresPool } from "../postgres/postgres-run-store-options";

/** A lost connection as `pg` reports one killed while idle in the pool. */
export const lostError = (): Error => new Error("Connection terminated unexpectedly");

/** Whether a statement is the store's write (one statement that updates the run and inserts its events). */
export const isWrite = (text: string): boolean => /^WITH .*run AS \(UPDATE/s.test(text);

/**
 * What befalls one query of a {@link faultyPool}: `"before"` a lost connection before it is sent,
 * `"after"` one after it ran (its answer lost), `"unsent"` pg's refusal of a client whose
 * connection failed, `"error"` a constraint error (never retried); nothing: it runs as it is.
 */
export type QueryFault = "before" | "after" | "unsent" | "error" | undefined;

/** `pool`, but `plan` says, per query, what befalls it (see {@link QueryFault}); `sent` lists every query's text. */
export function faultyPool(pool: pg.Pool, plan: (text: string) => QueryFault): PostgresPool & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    query: async (config) => {
      const fault = plan(config.text);
      sent.push(config.text);
      if (fault === "before") throw lostError();
      if (fault === "unsent") throw new Error("Client has encountered a connection error and is not queryable");
      if (fault === "error") throw Object.assign(new Error('duplicate key value violates unique constraint "x"'), { code: "23505" });
      const result = await pool.query(config);
      if (fault === "after") throw lostError();
      return result;
    },
    connect: () => pool.connect(),
    end: () => pool.end(),
    on: (event, listener) => pool.on(event, listener),
  };
}
