import { RunStoreError } from "@agentrx/executors";
import { afterAll, describe, expect, it, vi } from "vitest";
import { rejectionOf } from "../testing/conformance/conformance-context";
import { postgresTestDatabase } from "../testing/postgres-test-database";
import { PostgresRunStore } from "./postgres-run-store";

// PostgreSQL's limit (1 GB in one message) made small, so a write past it needs no gigabyte here.
vi.mock("./postgres-message-size", async (importOriginal) => ({ ...(await importOriginal<object>()), MAX_MESSAGE_BYTES: 10_000 }));

const database = await postgresTestDatabase("PostgresRunStore message size");
const { connectionString, schema } = database;
afterAll(() => database.drop());

describe.skipIf(database.skip)("PostgresRunStore: a statement too large for one message", () => {
  it("refuses a write whose values exceed what PostgreSQL reads in one message, saying so, and sends nothing", async () => {
    database.assertReachable();
    const store = new PostgresRunStore({ connectionString, schema });
    try {
      await store.createRun({ runId: "big", inputs: {}, status: "running", owner: "w", leaseMs: 60_000, at: 1 });
      // Two events of 3,000 characters, 6,000 bytes each in UTF-8: 12,000 bytes in all.
      const events = [1, 2].map((seq) => ({ seq, type: "tool_result", at: 2, data: { output: "é".repeat(3_000) } }));
      const error = await rejectionOf(store.write("big", { owner: "w", epoch: 1, leaseMs: 60_000, events, at: 2 }));
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ operation: "write", runId: "big" });
      expect(error.message).toMatch(/^PostgresRunStore: write of run "big" is too large for one statement: its values take at least 12,\d{3} bytes/);
      expect(error.message).not.toMatch(/cannot reach/);
      expect((await store.getRun("big"))?.eventCount).toBe(0);
      // One event fits.
      await store.write("big", { owner: "w", epoch: 1, leaseMs: 60_000, events: events.slice(0, 1), at: 3 });
      expect((await store.getRun("big"))?.eventCount).toBe(1);
    } finally {
      await store.close();
    }
  });
});
