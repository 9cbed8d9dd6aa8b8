import { InvalidArgumentError } from "@agentrx/core";
import { afterAll, describe, expect, it } from "vitest";
import { openRunStore } from "../cli/open-run-store";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { PostgresRunStore } from "./postgres-run-store";

const database = await postgresTestDatabase("PostgresRunStore ?schema=");

afterAll(async () => {
  await database.drop();
});

/** The error `new PostgresRunStore(options)` throws. */
function refusal(options: unknown): InvalidArgumentError {
  try {
    new PostgresRunStore(options as never);
  } catch (error) {
    if (InvalidArgumentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("the options were taken");
}

describe("PostgresRunStore ?schema= in connectionString", () => {
  it("takes the schema from ?schema= when the schema option is not given, as agentrx --db does", () => {
    expect(new PostgresRunStore({ connectionString: "postgres://u:secret@h:5432/db?schema=tenant_a" }).schema).toBe("tenant_a");
    expect(new PostgresRunStore({ connectionString: "postgresql://u@h/db?sslmode=disable&schema=tenant_a" }).schema).toBe("tenant_a");
    expect(new PostgresRunStore({ connectionString: "postgres://u@/db?host=/var/run/postgresql&schema=tenant_a" }).schema).toBe("tenant_a");
    expect(new PostgresRunStore({ connectionString: "postgres://u@h/db?schema=tenant_a", schema: "tenant_a" }).schema).toBe("tenant_a");
    expect(new PostgresRunStore({ connectionString: "postgres://u@h/db" }).schema).toBe("agentrx");
    // Only a URL has parameters: a key-value string is pg's to read, as it is.
    expect(new PostgresRunStore({ connectionString: "host=localhost dbname=test" }).schema).toBe("agentrx");
  });

  it("reads ?schema= from the connection string of a pool given to it too (what docs/deploying.md builds)", async () => {
    const pg = (await import("pg")).default;
    const pool = new pg.Pool({ connectionString: "postgres://u:secret@h:5432/db?schema=tenant_a" });
    try {
      expect(new PostgresRunStore({ pool }).schema).toBe("tenant_a");
      expect(refusal({ pool, schema: "tenant_b" })).toMatchObject({ argument: "schema" });
      expect(new PostgresRunStore({ pool: new pg.Pool({ connectionString: "postgres://u@h/db" }) }).schema).toBe("agentrx");
    } finally {
      await pool.end();
    }
  });

  it("refuses a schema option and a ?schema= that differ, naming both", () => {
    const error = refusal({ connectionString: "postgres://u:secret@h/db?schema=tenant_b", schema: "tenant_a" });
    expect(error).toMatchObject({ argument: "schema", value: "tenant_a" });
    expect(error.message).toBe('PostgresRunStore: schema "tenant_a" and the ?schema=tenant_b of connectionString differ; give the schema in one of them, or the same in both.');
  });

  it("checks ?schema= as it checks the schema option", () => {
    for (const bad of ["bad-name", "1starts_with_digit", "x".repeat(64), ""]) {
      const error = refusal({ connectionString: `postgres://u:secret@h/db?schema=${encodeURIComponent(bad)}` });
      expect(error).toMatchObject({ argument: "connectionString", value: bad });
      expect(error.message).toBe(`PostgresRunStore: the ?schema= of connectionString must be an identifier of letters, digits and underscores that does not start with a digit (at most 63 characters), got ${JSON.stringify(bad)}.`);
    }
    // The option is named as before when it is the one at fault.
    expect(refusal({ connectionString: "postgres://u@h/db", schema: "bad-name" })).toMatchObject({ argument: "schema" });
  });

  it.skipIf(database.skip)("records into the ?schema= schema, where agentrx given the same DATABASE_URL reads it", async () => {
    database.assertReachable();
    const url = new URL(database.connectionString);
    url.searchParams.set("schema", database.schema);
    const store = new PostgresRunStore({ connectionString: url.toString() });
    // Checked first, so that a store that ignores ?schema= records nothing into the default one.
    expect(store.schema).toBe(database.schema);
    try {
      await store.createRun({ runId: "in-url-schema", inputs: {}, status: "queued", at: 1 });
    } finally {
      await store.close();
    }
    const { rows } = await database.pool().query(`SELECT run_id FROM "${database.schema}".agentrx_runs`);
    expect(rows).toEqual([{ run_id: "in-url-schema" }]);
    const opened = await openRunStore({ env: { DATABASE_URL: url.toString() }, cwd: process.cwd() });
    try {
      expect(opened.label).toMatch(new RegExp(`schema ${database.schema}$`));
      expect((await opened.store.getRun("in-url-schema"))?.status).toBe("queued");
    } finally {
      await opened.store.close?.();
    }
  });
});
