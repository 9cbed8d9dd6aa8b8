import type { ListRunsOptions, RunInfo } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { rejectionOf, type ConformanceContext } from "./conformance-context";

/** A cursor as `listRuns` makes one (base64url of its JSON): to forge damaged ones. */
function forgeCursor(parts: unknown): string {
  const bytes = new TextEncoder().encode(typeof parts === "string" ? parts : JSON.stringify(parts));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Cursors, filters at their bounds and the options `listRuns` refuses. */
export function pagingTests(context: ConformanceContext): void {
  const { id, window } = context;
  const store = () => context.store();
  const ids = (runs: RunInfo[]) => runs.map((run) => run.runId);

  /** A finished run of `thread` created at `at`, costing `cost`, with `error` when given. */
  const finished = async (runId: string, thread: string, at: number, cost = 0, error?: string) => {
    await store().createRun({ runId, threadId: thread, inputs: { input: runId }, status: "running", owner: "w", leaseMs: 60_000, at });
    const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2, cost: { input: 0, output: cost, total: cost, currency: "USD" as const } };
    await store().write(runId, { owner: "w", leaseMs: 60_000, events: [], update: { status: error ? "failed" : "finished", release: true, usage, ...(error ? { error } : {}) }, at: at + 1 });
  };

  /** Every page of a listing, `limit` runs at a time; `between` runs after each page but the last. */
  const allPages = async (options: ListRunsOptions, limit: number, between?: (page: number) => Promise<void>) => {
    const pages: string[][] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const runs = await store().listRuns({ ...options, limit, ...(cursor === undefined ? {} : { cursor }) });
      pages.push(ids(runs));
      if (runs.length < limit) break;
      cursor = runs.at(-1)!.cursor;
      await between?.(page);
    }
    return pages;
  };

  describe("paging and filters", () => {
    it("pages through runs with equal sort keys once each, while runs are written and deleted between pages", async () => {
      const thread = id("thread");
      const at = window();
      const base = id("tie");
      // One creation time and one cost for all: only the run id orders them (by code point).
      const made = ["a", "b", "c", "d", "e", "\uff5e", "\u{1f600}"].map((suffix) => `${base}-${suffix}`);
      for (const runId of made) await finished(runId, thread, at, 0.1 + 0.2);
      const [a, b, c, d, e, wide, astral] = made as [string, string, string, string, string, string, string];
      const late = `${base}-c0`;
      const early = `${base}-\u{1f600}0`;
      const pages = await allPages({ threadId: thread }, 2, async (page) => {
        if (page !== 0) return;
        // The first page was [astral, wide]: delete the run the cursor names, add one run that sorts
        // after the cursor (it is listed) and one before it (it is not), and update another.
        await store().deleteRun(wide);
        await finished(late, thread, at, 0.1 + 0.2);
        await finished(early, thread, at, 0.1 + 0.2);
        await store().claimRun(a, { owner: "w2", leaseMs: 1000, at: at + 50 });
      });
      expect(pages).toEqual([[astral, wide], [e, d], [late, c], [b, a], []]);
      for (const sort of ["cost", "updatedAt"] as const) {
        const whole = ids(await store().listRuns({ threadId: thread, sort, order: "asc" }));
        expect((await allPages({ threadId: thread, sort, order: "asc" }, 3)).flat()).toEqual(whole);
      }
    });

    it("pages through a listing sorted oldest first while newer runs are recorded, which come last", async () => {
      const thread = id("thread");
      const at = window();
      const made = [id("old"), id("old"), id("old")];
      for (const [index, runId] of made.entries()) await finished(runId, thread, at + index);
      const added: string[] = [];
      const pages = await allPages({ threadId: thread, sort: "createdAt", order: "asc" }, 2, async () => {
        const runId = id("new");
        added.push(runId);
        await finished(runId, thread, at + 100 + added.length);
      });
      const listed = pages.flat();
      expect(listed.slice(0, 3)).toEqual(made);
      expect(new Set(listed).size).toBe(listed.length);
      expect(listed.slice(3)).toEqual(added.slice(0, listed.length - 3));
    });

    it("refuses a cursor that is damaged, forged or made for another sort or order, with an error naming options.cursor", async () => {
      const thread = id("thread");
      const at = window();
      const runId = id("cursor");
      await finished(runId, thread, at, 0.5);
      const [listed] = await store().listRuns({ threadId: thread });
      const refused = async (cursor: unknown, options: ListRunsOptions = {}) => {
        const error = await rejectionOf(store().listRuns({ threadId: thread, ...options, cursor: cursor as string }));
        expect(error.name, String(cursor)).toBe("InvalidArgumentError");
        expect(error.argument, String(cursor)).toBe("options.cursor");
        expect(error.message, String(cursor)).toMatch(/^RunStore\.listRuns: options\.cursor /);
        return error.message;
      };
      const forged: unknown[] = [
        // Times that are not whole milliseconds, or beyond what a store holds.
        ["createdAt", "desc", at + 0.5, runId],
        ["createdAt", "desc", 1e300, runId],
        ["createdAt", "desc", 2 ** 64, runId],
        ["createdAt", "desc", "1", runId],
        ["createdAt", "desc", null, runId],
        // Run ids no store can hold.
        ["createdAt", "desc", at, "r\u0000"],
        ["createdAt", "desc", at, "r\ud800"],
        ["createdAt", "desc", at, ""],
        ["createdAt", "desc", at, 5],
        // Not the shape of a cursor.
        ["createdAt", "desc", at],
        ["createdAt", "desc", at, runId, "extra"],
        { sort: "createdAt", order: "desc", key: at, runId },
      ];
      for (const parts of forged) expect(await refused(forgeCursor(parts))).toMatch(/is not a cursor listRuns made/);
      expect(await refused(forgeCursor(`["createdAt","desc",1e400,"${runId}"]`))).toMatch(/is not a cursor listRuns made/);
      expect(await refused(forgeCursor(["cost", "desc", "0.5", runId]), { sort: "cost" })).toMatch(/is not a cursor listRuns made/);
      for (const garbage of ["%%%", "not a cursor", "eyJ", forgeCursor("{"), forgeCursor("[]"), `${listed!.cursor!}%`]) await refused(garbage);
      for (const wrong of ["", 5, null, {}, []]) expect(await refused(wrong)).toMatch(/must be a non-empty string/);
      expect(await refused(listed!.cursor, { sort: "cost" })).toMatch(/made for sort "createdAt" desc, not "cost" desc/);
      expect(await refused(listed!.cursor, { order: "asc" })).toMatch(/made for sort "createdAt" desc, not "createdAt" asc/);
      // A cursor made by the store still works, after its run was deleted too.
      const older = id("cursor");
      await finished(older, thread, at - 10);
      expect(ids(await store().listRuns({ threadId: thread, cursor: listed!.cursor! }))).toEqual([older]);
      await store().deleteRun(runId);
      expect(ids(await store().listRuns({ threadId: thread, cursor: listed!.cursor! }))).toEqual([older]);
    });

    it("applies every filter at its bounds, and several together", async () => {
      const thread = id("thread");
      const at = window();
      const [free, cheap, exact, failed] = [id("free"), id("cheap"), id("exact"), id("failed")];
      await finished(free, thread, at, 0);
      await finished(cheap, thread, at + 10, 0.01);
      await finished(exact, thread, at + 20, 0.1 + 0.2);
      await finished(failed, thread, at + 30, 5, "Tool exploded");
      const list = async (options: ListRunsOptions) => ids(await store().listRuns({ threadId: thread, ...options }));
      // since is inclusive, before exclusive, at the exact creation time.
      expect(await list({ since: at + 20 })).toEqual([failed, exact]);
      expect(await list({ before: at + 20 })).toEqual([cheap, free]);
      expect(await list({ since: at + 20, before: at + 20 })).toEqual([]);
      expect(await list({ since: at + 30, before: at + 20 })).toEqual([]);
      expect(await list({ since: at + 19.5, before: at + 20.5 })).toEqual([exact]);
      expect(await list({ since: new Date(at + 10), before: new Date(at + 21) })).toEqual([exact, cheap]);
      expect(await list({ since: -1_000, before: Number.MAX_SAFE_INTEGER })).toEqual([failed, exact, cheap, free]);
      // Cost: 0 is a cost (the runs with no priced call), bounds are inclusive, exactly.
      expect(await list({ minCost: 0 })).toEqual([failed, exact, cheap, free]);
      expect(await list({ maxCost: 0 })).toEqual([free]);
      expect(await list({ minCost: 0.1 + 0.2, maxCost: 0.1 + 0.2 })).toEqual([exact]);
      expect(await list({ minCost: 0.3 })).toEqual([failed, exact]);
      expect(await list({ maxCost: 0.3 })).toEqual([cheap, free]);
      expect(await list({ minCost: 2, maxCost: 1 })).toEqual([]);
      expect(await list({ maxCost: Number.MAX_VALUE })).toEqual([failed, exact, cheap, free]);
      // Together.
      expect(await list({ hasError: false, minCost: 0.01, status: ["finished", "failed"], since: at + 10 })).toEqual([exact, cheap]);
      expect(await list({ hasError: true, status: "failed", maxCost: 5, search: "failed" })).toEqual([failed]);
      expect(await list({ hasError: true, status: "finished" })).toEqual([]);
      expect(await list({ status: ["failed", "failed", "finished"], sort: "cost", order: "asc", limit: 2 })).toEqual([free, cheap]);
      // Limits: 1, and as many as a number can say.
      expect(await list({ limit: 1 })).toEqual([failed]);
      expect(await list({ limit: Number.MAX_SAFE_INTEGER })).toEqual([failed, exact, cheap, free]);
    });

    it("refuses bad limits, statuses, unknown options and options that are not an object, naming them", async () => {
      const refused = async (options: unknown, argument: string) => {
        const error = await rejectionOf(store().listRuns(options as ListRunsOptions));
        expect(error.name, argument).toBe("InvalidArgumentError");
        expect(error.argument, argument).toBe(argument);
        return error.message;
      };
      for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, "10", null]) {
        expect(await refused({ limit }, "options.limit")).toMatch(/options\.limit must be an integer >= 1/);
      }
      expect(await refused({ status: "done" }, "options.status[0]")).toMatch(/must be one of "queued", .*got "done"/);
      expect(await refused({ status: ["failed", "Failed"] }, "options.status[1]")).toMatch(/got "Failed"/);
      expect(await refused({ status: [] }, "options.status")).toMatch(/got \[\]/);
      // A misspelt filter would list every run; a misspelt sort would sort by creation.
      expect(await refused({ serch: "invoice" }, "options.serch")).toMatch(/unknown option `options\.serch`; did you mean `search`\?/);
      expect(await refused({ threadId: id("thread"), sortBy: "cost" }, "options.sortBy")).toMatch(/unknown option `options\.sortBy`/);
      expect(await refused([], "options")).toMatch(/options must be an object, got \[\]/);
      expect(await refused("failed", "options")).toMatch(/options must be an object/);
    });
  });
}
