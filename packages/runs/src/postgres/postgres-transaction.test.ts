import { describe, expect, it } from "vitest";
import type { PostgresPool, PostgresPoolClient } from "./postgres-run-store-options";
import { withClient } from "./postgres-transaction";

/** A client that answers every statement with its text, and records whether it was destroyed. */
function fakeClient(log: string[]): PostgresPoolClient {
  return {
    query: async (config: string | { text: string }) => ({ rows: [{ text: typeof config === "string" ? config : config.text }], rowCount: 1 }),
    release: (destroy?: boolean) => void log.push(destroy ? "destroyed" : "released"),
  } as unknown as PostgresPoolClient;
}

describe("withClient", () => {
  it("checks out through connect's callback when the pool takes one (pg.Pool), and through its promise when it answers with one only", async () => {
    const log: string[] = [];
    const callbackPool = { connect: (callback: (error: Error | undefined, client: PostgresPoolClient) => void) => void callback(undefined, fakeClient(log)) } as unknown as PostgresPool;
    // Declares a callback parameter but ignores it: a checkout that waited for the callback would never end.
    const promisePool = { connect: (_callback?: unknown) => Promise.resolve(fakeClient(log)) } as unknown as PostgresPool;
    const plainPool = { connect: () => Promise.resolve(fakeClient(log)) } as unknown as PostgresPool;
    for (const pool of [callbackPool, promisePool, plainPool]) {
      const rows = await withClient(pool, async (client) => ((await client.query("SELECT 1")) as { rows: unknown[] }).rows);
      expect(rows).toEqual([{ text: "SELECT 1" }]);
    }
    expect(log).toEqual(["released", "released", "released"]);
  });

  it("destroys the connection when the work failed, and rejects with its error", async () => {
    const log: string[] = [];
    const pool = { connect: () => Promise.resolve(fakeClient(log)) } as unknown as PostgresPool;
    await expect(withClient(pool, async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect(log).toEqual(["destroyed"]);
  });
});
