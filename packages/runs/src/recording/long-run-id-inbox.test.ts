// A run id may be as long as a store takes (1,024 bytes of UTF-8); its inbox, the thread
// `runInboxId(runId)`, is longer by its prefix, and a store takes it too: a run with such an id can
// be sent messages, and its inbox goes with it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidArgumentError } from "@agentrx/core";
import { type RunStore, runInboxId, sendRunMessage } from "@agentrx/executors";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/index";
import { PostgresRunStore } from "../postgres/index";
import { SqliteRunStore } from "../sqlite/index";
import { postgresTestDatabase } from "../testing/postgres-test-database";

const database = await postgresTestDatabase("long run id inbox");
const folder = mkdtempSync(join(tmpdir(), "agentrx-long-id-"));
const stores: [string, () => RunStore][] = [
  ["MemoryRunStore", () => new MemoryRunStore()],
  ["SqliteRunStore", () => new SqliteRunStore({ path: join(folder, `runs-${Math.random().toString(36).slice(2)}.db`) })],
  ...(database.skip ? [] : ([["PostgresRunStore", () => new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema })]] as [string, () => RunStore][])),
];
const opened: RunStore[] = [];

afterAll(async () => {
  for (const store of opened) await (store as { close?: () => Promise<void> }).close?.();
  await database.drop();
  rmSync(folder, { recursive: true, force: true });
});

describe.each(stores)("%s: a run id of the longest length a store takes", (_name, open) => {
  it("can be sent messages, and its inbox is deleted with it", async () => {
    if (_name === "PostgresRunStore") database.assertReachable();
    const store = open();
    opened.push(store);
    // 1,024 bytes: 510 two-byte characters and 4 one-byte ones.
    const runId = `r-${"é".repeat(510)}-x`;
    expect(new TextEncoder().encode(runId).length).toBe(1024);
    await store.createRun({ runId, inputs: { input: "hi" }, status: "queued", at: Date.now() });
    expect(await sendRunMessage(runId, "Also check Rome.", { store })).toMatchObject({ runId, inboxSeq: 1 });
    expect(await store.readThreadMessages(runInboxId(runId), {})).toHaveLength(1);
    expect(await store.deleteRun(runId)).toBe(true);
    expect(await store.readThreadMessages(runInboxId(runId), {})).toEqual([]);
  });

  it("still refuses a thread id over 1,024 bytes that is not a run's inbox, and an inbox of a run id over it", async () => {
    const store = open();
    opened.push(store);
    const refused = async (threadId: string) => store.readThreadMessages(threadId, {}).then(() => undefined, (error: unknown) => error);
    expect(InvalidArgumentError.isInstance(await refused("t".repeat(1025)))).toBe(true);
    expect(InvalidArgumentError.isInstance(await refused(runInboxId("r".repeat(1025))))).toBe(true);
    expect(await store.readThreadMessages(runInboxId("r".repeat(1024)), {})).toEqual([]);
  });
});
