import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { MemoryRunStore } from "../memory/memory-run-store";
import { PostgresRunStore } from "../postgres/postgres-run-store";
import { SqliteRunStore } from "../sqlite/sqlite-run-store";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { threadMemorySuite } from "./thread-memory-suite";

const dir = mkdtempSync(join(tmpdir(), "agentrx-memory-"));
const database = await postgresTestDatabase("ThreadMemory on PostgresRunStore");
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database.drop();
});

threadMemorySuite({ name: "MemoryRunStore", create: async () => new MemoryRunStore() });
threadMemorySuite({ name: "SqliteRunStore", create: async () => new SqliteRunStore({ path: join(dir, "memory.db") }) });
threadMemorySuite({
  name: "PostgresRunStore",
  skip: database.skip,
  create: async () => {
    database.assertReachable();
    return new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
  },
});
