import type { RunStore } from "@agentrx/executors";
import pg from "pg";
import { describe, expectTypeOf, it } from "vitest";
import { MemoryRunStore, PostgresRunStore, SqliteRunStore, type PostgresPool, type PostgresRunStoreOptions } from "../index";

describe("store types", () => {
  it("every store is a RunStore", () => {
    expectTypeOf<MemoryRunStore>().toMatchTypeOf<RunStore>();
    expectTypeOf<SqliteRunStore>().toMatchTypeOf<RunStore>();
    expectTypeOf<PostgresRunStore>().toMatchTypeOf<RunStore>();
  });

  it("a pg.Pool fits PostgresPool", () => {
    expectTypeOf<pg.Pool>().toMatchTypeOf<PostgresPool>();
    expectTypeOf<{ pool: pg.Pool; schema: string }>().toMatchTypeOf<PostgresRunStoreOptions>();
    // @ts-expect-error a schema alone is not enough: give a pool or a connection string
    new PostgresRunStore({ schema: "agentrx" });
    // @ts-expect-error not both
    new PostgresRunStore({ pool: new pg.Pool(), connectionString: "postgres://h/d" });
    new PostgresRunStore({ connectionString: "postgres://h/d", statementTimeoutMs: 5000, connectionTimeoutMs: 2000 });
    // @ts-expect-error a pool you own keeps its own timeouts
    new PostgresRunStore({ pool: new pg.Pool(), statementTimeoutMs: 5000 });
  });
});
