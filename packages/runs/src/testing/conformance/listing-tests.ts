import type { RunStatus } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { someCheckpoint, someEvents, type ConformanceContext } from "./conformance-context";

export function listingTests(context: ConformanceContext): void {
  const { id, window } = context;
  const store = () => context.store();

  /** Creates a run and brings it to `status` (through a write that releases the lease when it ends the run). */
  const runWith = async (runId: string, at: number, status: RunStatus, threadId?: string) => {
    const base = { runId, inputs: { runId }, at, ...(threadId === undefined ? {} : { threadId }) };
    if (status === "queued") return store().createRun({ ...base, status: "queued" });
    await store().createRun({ ...base, status: "running", owner: "w", leaseMs: 60_000 });
    if (status !== "running") await store().write(runId, { owner: "w", leaseMs: 60_000, events: [], update: { status, release: true }, at: at + 1 });
  };

  describe("listing", () => {
    it("lists a thread's runs newest first, then by run id descending", async () => {
      const thread = id("thread");
      const other = id("thread");
      const at = window();
      const [r1, r2, r3] = [id("t"), id("t"), id("t")];
      await runWith(r1, at, "finished", thread);
      await runWith(r2, at + 20, "failed", thread);
      await runWith(r3, at + 10, "running", thread);
      const tieA = `${thread}-a`;
      const tieB = `${thread}-b`;
      await runWith(tieA, at + 30, "queued", thread);
      await runWith(tieB, at + 30, "queued", thread);
      // By code point (UTF-8 byte order), not by UTF-16 unit: U+FF5E sorts before U+1F600.
      const wide = `${thread}-\uff5e`;
      const astral = `${thread}-\u{1f600}`;
      await runWith(wide, at + 50, "queued", thread);
      await runWith(astral, at + 50, "queued", thread);
      await runWith(id("t"), at + 40, "finished", other);
      const runs = await store().listRuns({ threadId: thread });
      expect(runs.map((run) => run.runId)).toEqual([astral, wide, tieB, tieA, r2, r3, r1]);
      expect(runs.every((run) => run.threadId === thread)).toBe(true);
    });

    it("filters by one status and by several", async () => {
      const thread = id("thread");
      const at = window();
      const ids: Record<string, string> = {};
      const statuses: RunStatus[] = ["queued", "running", "interrupted", "finished", "failed", "cancelled"];
      for (const [index, status] of statuses.entries()) await runWith((ids[status] = id(status)), at + index, status, thread);
      expect((await store().listRuns({ threadId: thread, status: "failed" })).map((run) => run.runId)).toEqual([ids.failed]);
      const several = await store().listRuns({ threadId: thread, status: ["running", "interrupted", "queued"] });
      expect(several.map((run) => run.runId)).toEqual([ids.interrupted, ids.running, ids.queued]);
      expect(several.map((run) => run.status)).toEqual(["interrupted", "running", "queued"]);
      expect(await store().listRuns({ threadId: thread, status: ["cancelled"] })).toHaveLength(1);
      expect(await store().listRuns({ threadId: id("no-such-thread") })).toEqual([]);
    });

    it("filters by creation time: since is inclusive, before exclusive, as numbers or Dates", async () => {
      const at = window();
      const runs = [id("time"), id("time"), id("time"), id("time")];
      for (const [index, runId] of runs.entries()) await runWith(runId, at + index * 100, "finished");
      const listed = async (since: number | Date, before: number | Date) => (await store().listRuns({ since, before })).map((run) => run.runId);
      expect(await listed(at, at + 1_000_000)).toEqual([...runs].reverse());
      expect(await listed(at + 100, at + 300)).toEqual([runs[2], runs[1]]);
      expect(await listed(new Date(at + 99), new Date(at + 301))).toEqual([runs[3], runs[2], runs[1]]);
      expect(await listed(at + 300.5, at + 1_000_000)).toEqual([]);
      expect((await store().listRuns({ since: at, before: at + 1_000_000, status: "finished", limit: 2 })).map((run) => run.runId)).toEqual([runs[3], runs[2]]);
    });

    it("returns at most limit runs, 100 by default, the newest ones", async () => {
      const at = window();
      const runIds = Array.from({ length: 102 }, (_, index) => `${id("many")}-${String(index).padStart(3, "0")}`);
      await Promise.all(runIds.map((runId, index) => store().createRun({ runId, inputs: {}, status: "queued", at: at + index })));
      const range = { since: at, before: at + 1_000_000 };
      const all = await store().listRuns(range);
      expect(all).toHaveLength(100);
      expect(all[0]?.runId).toBe(runIds[101]);
      expect(all[99]?.runId).toBe(runIds[2]);
      expect((await store().listRuns({ ...range, limit: 3 })).map((run) => run.runId)).toEqual([runIds[101], runIds[100], runIds[99]]);
      expect(await store().listRuns({ ...range, limit: 500 })).toHaveLength(102);
    });

    it("lists the newest runs first without filters, with everything getRun returns", async () => {
      // Far in the future: newer than every other test's runs.
      const at = 9_000_000_000_000 + window();
      const runId = id("newest");
      await store().createRun({ runId, threadId: id("thread"), inputs: { q: 1 }, status: "running", owner: "w", leaseMs: 1000, metadata: { label: "x" }, at });
      await store().write(runId, { owner: "w", leaseMs: 1000, events: someEvents(1, 2, at), update: { checkpoint: someCheckpoint(3), usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } }, at: at + 5 });
      const [newest] = await store().listRuns({ limit: 1 });
      expect(typeof newest?.cursor).toBe("string");
      expect({ ...newest, cursor: undefined }).toEqual(await store().getRun(runId));
      expect(newest).toMatchObject({ runId, eventCount: 2, checkpoint: someCheckpoint(3), metadata: { label: "x" } });
      await store().deleteRun(runId);
    });
  });
}
