import type { RunInfo, RunStatus } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { rejectionOf, type ConformanceContext } from "./conformance-context";

export function searchTests(context: ConformanceContext): void {
  const { id, window } = context;
  const store = () => context.store();

  interface Made {
    input: string;
    answer?: string;
    cost?: number;
    status?: RunStatus;
    error?: string;
  }

  /** A run of `thread` with an input, and (when given) an output event, a priced usage and an end. */
  const make = async (thread: string, at: number, made: Made): Promise<string> => {
    const runId = id("search");
    await store().createRun({ runId, threadId: thread, inputs: { input: made.input, extra: 1 }, status: "running", owner: "w", leaseMs: 60_000, at });
    const events = made.answer === undefined ? [] : [{ seq: 1, type: "output", at: at + 1, data: { type: "output", at: at + 1, output: made.answer, stopReason: "finish" } }];
    const usage = made.cost === undefined ? undefined : { input_tokens: 1, output_tokens: 1, total_tokens: 2, cost: { input: made.cost / 2, output: made.cost / 2, total: made.cost, currency: "USD" as const } };
    await store().write(runId, {
      owner: "w",
      leaseMs: 60_000,
      events,
      update: { status: made.status ?? "finished", release: true, ...(usage ? { usage } : {}), ...(made.error ? { error: made.error } : {}) },
      at: at + 2,
    });
    return runId;
  };
  const ids = (runs: RunInfo[]) => runs.map((run) => run.runId);

  describe("search, filters, sort and paging", () => {
    it("searches the input and the answer by word prefixes, every word, ignoring case", async () => {
      const thread = id("thread");
      const at = window();
      const paris = await make(thread, at, { input: "What is the weather in Paris?", answer: "Sunny and mild." });
      const lyon = await make(thread, at + 10, { input: "Weather in LYON", answer: "Rain all day." });
      const none = await make(thread, at + 20, { input: "Tell me a joke" });
      const search = async (text: string) => ids(await store().listRuns({ threadId: thread, search: text }));
      expect(await search("weather")).toEqual([lyon, paris]);
      expect(await search("WEATH par")).toEqual([paris]);
      expect(await search("sunny")).toEqual([paris]);
      expect(await search("lyon rain")).toEqual([lyon]);
      expect(await search("eather")).toEqual([]);
      expect(await search("joke paris")).toEqual([]);
      // Punctuation and FTS syntax are only separators.
      expect(await search('"joke" * ( -tell')).toEqual([none]);
      // No words: no search.
      expect(await search("  ")).toEqual([none, lyon, paris]);
    });

    it("shows the input and answer previews, capped at 200 characters", async () => {
      const thread = id("thread");
      const long = "word ".repeat(100);
      const runId = await make(thread, window(), { input: long, answer: "Done." });
      const [listed] = await store().listRuns({ threadId: thread });
      expect(listed?.runId).toBe(runId);
      expect(listed?.inputPreview).toBe(`${long.slice(0, 199)}…`);
      expect(listed?.answerPreview).toBe("Done.");
      expect((await store().getRun(runId))?.answerPreview).toBe("Done.");
      const queued = id("queued");
      await store().createRun({ runId: queued, threadId: thread, inputs: { question: "no input key" }, status: "queued", at: window() });
      expect((await store().getRun(queued))?.inputPreview).toBe('{"question":"no input key"}');
      expect((await store().getRun(queued))?.answerPreview).toBeUndefined();
    });

    it("filters by error and by cost (a run with no priced call costs 0)", async () => {
      const thread = id("thread");
      const at = window();
      const cheap = await make(thread, at, { input: "a", cost: 0.01 });
      const dear = await make(thread, at + 10, { input: "b", cost: 2.5 });
      const failed = await make(thread, at + 20, { input: "c", status: "failed", error: "Tool exploded" });
      const list = async (options: object) => ids(await store().listRuns({ threadId: thread, ...options }));
      expect(await list({ hasError: true })).toEqual([failed]);
      expect(await list({ hasError: false })).toEqual([dear, cheap]);
      expect(await list({ minCost: 0.01 })).toEqual([dear, cheap]);
      expect(await list({ minCost: 0.02, maxCost: 3 })).toEqual([dear]);
      expect(await list({ maxCost: 0 })).toEqual([failed]);
      expect((await store().getRun(dear))?.usage?.cost?.total).toBe(2.5);
    });

    it("sorts by cost and by last update, either way, ties by run id", async () => {
      const thread = id("thread");
      const at = window();
      const a = await make(thread, at, { input: "a", cost: 1 });
      const b = await make(thread, at + 10, { input: "b", cost: 3 });
      const c = await make(thread, at + 20, { input: "c", cost: 2 });
      const list = async (sort: "createdAt" | "updatedAt" | "cost", order?: "asc" | "desc") => ids(await store().listRuns({ threadId: thread, sort, ...(order ? { order } : {}) }));
      expect(await list("cost")).toEqual([b, c, a]);
      expect(await list("cost", "asc")).toEqual([a, c, b]);
      expect(await list("createdAt", "asc")).toEqual([a, b, c]);
      await store().claimRun(a, { owner: "w2", leaseMs: 1000, at: at + 100 });
      expect(await list("updatedAt")).toEqual([a, c, b]);
    });

    it("pages with cursors through every run exactly once, in order, under every sort", async () => {
      const thread = id("thread");
      const at = window();
      const made: string[] = [];
      // Equal costs and times, so ties are broken by run id across page boundaries.
      for (let i = 0; i < 7; i++) made.push(await make(thread, at + (i < 3 ? 0 : i), { input: `run ${i}`, cost: i % 3 === 0 ? 1 : 0.5 }));
      for (const sort of ["createdAt", "updatedAt", "cost"] as const) {
        for (const order of ["asc", "desc"] as const) {
          const whole = ids(await store().listRuns({ threadId: thread, sort, order }));
          expect(new Set(whole)).toEqual(new Set(made));
          const paged: string[] = [];
          let cursor: string | undefined;
          for (let page = 0; page < 10; page++) {
            const runs = await store().listRuns({ threadId: thread, sort, order, limit: 3, ...(cursor ? { cursor } : {}) });
            paged.push(...ids(runs));
            if (runs.length < 3) break;
            cursor = runs.at(-1)!.cursor;
          }
          expect(paged).toEqual(whole);
        }
      }
    });

    it("combines search with paging", async () => {
      const thread = id("thread");
      const at = window();
      const hits: string[] = [];
      for (let i = 0; i < 5; i++) {
        const runId = await make(thread, at + i, { input: i % 2 === 0 ? `invoice ${i}` : `receipt ${i}` });
        if (i % 2 === 0) hits.unshift(runId);
      }
      const first = await store().listRuns({ threadId: thread, search: "invoice", limit: 2 });
      const second = await store().listRuns({ threadId: thread, search: "invoice", limit: 2, cursor: first.at(-1)!.cursor! });
      expect([...ids(first), ...ids(second)]).toEqual(hits);
    });

    it("refuses bad options with an error naming them", async () => {
      const [run] = await store().listRuns({ limit: 1 });
      const cursor = run?.cursor ?? "x";
      expect((await rejectionOf(store().listRuns({ sort: "name" as never }))).message).toMatch(/options\.sort/);
      expect((await rejectionOf(store().listRuns({ order: "up" as never }))).message).toMatch(/options\.order/);
      expect((await rejectionOf(store().listRuns({ minCost: -1 }))).message).toMatch(/options\.minCost/);
      expect((await rejectionOf(store().listRuns({ search: 5 as never }))).message).toMatch(/options\.search/);
      expect((await rejectionOf(store().listRuns({ hasError: "yes" as never }))).message).toMatch(/options\.hasError/);
      expect((await rejectionOf(store().listRuns({ cursor: "not a cursor" }))).message).toMatch(/options\.cursor/);
      if (run) expect((await rejectionOf(store().listRuns({ cursor, sort: "cost" }))).message).toMatch(/made for sort "createdAt"/);
    });
  });
}
