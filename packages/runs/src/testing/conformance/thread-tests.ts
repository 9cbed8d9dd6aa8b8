import { InvalidArgumentError } from "@agentrx/core";
import { RunStoreError, type JsonObject, type NewThreadMessage, type RunStore } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { rejectionOf, type ConformanceContext } from "./conformance-context";

/** `count` messages whose JSON holds `label` and their index; tokens and times follow the index. */
export function someThreadMessages(label: string, count: number, at: number, runId?: string): NewThreadMessage[] {
  return Array.from({ length: count }, (_, index) => ({
    message: { type: index % 2 === 0 ? "human" : "ai", data: { content: `${label} ${index}`, label, index } },
    tokens: 10 + index,
    at: at + index,
    ...(runId === undefined ? {} : { runId }),
  }));
}

const seqs = (messages: { seq: number }[]) => messages.map((message) => message.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

export function threadTests(context: ConformanceContext): void {
  const { id, window, options } = context;
  const store = () => context.store();

  describe("threads", () => {
    it("appends messages in order, assigning consecutive seqs from 1, and reads them back exactly", async () => {
      const threadId = id("thread");
      const at = window();
      const first = someThreadMessages("first", 3, at, "run-1");
      const second = someThreadMessages("second", 2, at + 100);
      expect(await store().appendThreadMessages(threadId, first)).toEqual([1, 2, 3]);
      expect(await store().appendThreadMessages(threadId, second)).toEqual([4, 5]);
      expect(await store().appendThreadMessages(threadId, [])).toEqual([]);
      expect(await store().readThreadMessages(threadId)).toEqual([
        ...first.map((message, index) => ({ seq: index + 1, message: message.message, tokens: message.tokens, runId: "run-1", at: message.at })),
        ...second.map((message, index) => ({ seq: index + 4, message: message.message, tokens: message.tokens, at: message.at })),
      ]);
      const [withoutRun] = await store().readThreadMessages(threadId, { after: 3, limit: 1 });
      expect(withoutRun).not.toHaveProperty("runId");
      expect(await store().readThreadMessages(id("unknown-thread"))).toEqual([]);
      expect(await store().readThreadMessages(id("unknown-thread"), { newestFirst: true, limit: 5 })).toEqual([]);
    });

    it("pages from the newest message backwards and from the oldest forwards", async () => {
      const threadId = id("paged");
      await store().appendThreadMessages(threadId, someThreadMessages("m", 25, window()));
      const newest = (before?: number) => store().readThreadMessages(threadId, { newestFirst: true, limit: 10, ...(before === undefined ? {} : { before }) });
      const page1 = await newest();
      expect(seqs(page1)).toEqual(range(16, 25).reverse());
      const page2 = await newest(page1.at(-1)!.seq);
      expect(seqs(page2)).toEqual(range(6, 15).reverse());
      const page3 = await newest(page2.at(-1)!.seq);
      expect(seqs(page3)).toEqual(range(1, 5).reverse());
      expect(await newest(1)).toEqual([]);
      expect((page1[0]?.message.data as JsonObject).index).toBe(24);

      expect(seqs(await store().readThreadMessages(threadId, { limit: 4 }))).toEqual([1, 2, 3, 4]);
      expect(seqs(await store().readThreadMessages(threadId, { after: 20 }))).toEqual([21, 22, 23, 24, 25]);
      expect(seqs(await store().readThreadMessages(threadId, { after: 5, before: 9 }))).toEqual([6, 7, 8]);
      expect(seqs(await store().readThreadMessages(threadId, { after: 5, before: 12, limit: 3 }))).toEqual([6, 7, 8]);
      expect(seqs(await store().readThreadMessages(threadId, { after: 5, before: 12, limit: 3, newestFirst: true }))).toEqual([11, 10, 9]);
      expect(seqs(await store().readThreadMessages(threadId, { after: 5, before: 7, limit: 30, newestFirst: true }))).toEqual([6]);
      expect(seqs(await store().readThreadMessages(threadId, { newestFirst: true, before: 3 }))).toEqual([2, 1]);
      expect(await store().readThreadMessages(threadId, { after: 25 })).toEqual([]);
      expect(await store().readThreadMessages(threadId, { after: 10, before: 11 })).toEqual([]);
      expect(await store().readThreadMessages(threadId, { after: 12, before: 3 })).toEqual([]);
      expect(seqs(await store().readThreadMessages(threadId, { before: 1_000_000_000_000 }))).toEqual(range(1, 25));
    });

    it("keeps threads apart, and clears one without touching the others or any run", async () => {
      const [a, b] = [id("thread-a"), id("thread-b")];
      const at = window();
      const runId = id("run");
      await store().createRun({ runId, threadId: a, inputs: { input: "hi" }, status: "queued", at });
      await store().appendThreadMessages(a, someThreadMessages("a", 4, at, runId));
      await store().appendThreadMessages(b, someThreadMessages("b", 2, at));
      expect((await store().readThreadMessages(b)).map((message) => (message.message.data as JsonObject).label)).toEqual(["b", "b"]);

      expect(await store().clearThread(a)).toBe(4);
      expect(await store().readThreadMessages(a)).toEqual([]);
      expect(await store().clearThread(a)).toBe(0);
      expect(await store().clearThread(id("never-written"))).toBe(0);
      expect(seqs(await store().readThreadMessages(b))).toEqual([1, 2]);
      expect(await store().getRun(runId)).toMatchObject({ runId, threadId: a, status: "queued" });
      // A cleared thread starts again at seq 1.
      expect(await store().appendThreadMessages(a, someThreadMessages("again", 2, at + 50))).toEqual([1, 2]);
      expect((await store().readThreadMessages(a)).map((message) => (message.message.data as JsonObject).label)).toEqual(["again", "again"]);
    });

    it("leaves threads alone when runs are deleted or pruned", async () => {
      const threadId = id("kept");
      // Early times, as the pruning test of the records uses: no other test's runs are this old.
      const at = 20_000;
      const runId = id("pruned");
      await store().createRun({ runId, threadId, inputs: {}, status: "queued", at });
      await store().appendThreadMessages(threadId, someThreadMessages("kept", 3, at, runId));
      expect(await store().pruneRuns({ olderThan: at + 1 })).toBeGreaterThanOrEqual(1);
      expect(await store().getRun(runId)).toBeUndefined();
      const other = id("deleted");
      await store().createRun({ runId: other, threadId, inputs: {}, status: "queued", at: Date.now() });
      expect(await store().deleteRun(other)).toBe(true);
      const messages = await store().readThreadMessages(threadId);
      expect(seqs(messages)).toEqual([1, 2, 3]);
      expect(messages.every((message) => message.runId === runId)).toBe(true);
    });

    it("assigns every seq once when many appends to one thread run at once", async () => {
      const threadId = id("concurrent");
      const at = window();
      const results = await Promise.all(Array.from({ length: 20 }, (_, writer) => store().appendThreadMessages(threadId, someThreadMessages(`w${writer}`, 3, at))));
      expect(results.flat().sort((x, y) => x - y)).toEqual(range(1, 60));
      const messages = await store().readThreadMessages(threadId);
      expect(seqs(messages)).toEqual(range(1, 60));
      for (const [writer, assigned] of results.entries()) {
        // One append's messages are consecutive, in the order given.
        expect(assigned).toEqual(range(assigned[0]!, assigned[0]! + 2));
        const written = messages.filter((message) => assigned.includes(message.seq)).map((message) => message.message.data as JsonObject);
        expect(written.map((data) => [data.label, data.index])).toEqual([[`w${writer}`, 0], [`w${writer}`, 1], [`w${writer}`, 2]]);
      }
    });

    it.runIf(options.persistent)("assigns every seq once when two stores on the same records append to one thread at once", async () => {
      const other = await options.create();
      try {
        const threadId = id("two-stores");
        const at = window();
        const rounds = await Promise.all(
          Array.from({ length: 10 }, (_, round) =>
            Promise.all([
              store().appendThreadMessages(threadId, someThreadMessages(`here${round}`, 2, at)),
              other.appendThreadMessages(threadId, someThreadMessages(`there${round}`, 3, at)),
            ]),
          ),
        );
        const assigned = rounds.flat(2).sort((x, y) => x - y);
        expect(assigned).toEqual(range(1, 50));
        expect(seqs(await other.readThreadMessages(threadId))).toEqual(range(1, 50));
        expect(seqs(await store().readThreadMessages(threadId, { newestFirst: true, limit: 3 }))).toEqual([50, 49, 48]);
      } finally {
        await other.close();
      }
    });

    it("clears while appends run: each append is cleared whole or kept whole, every message counted once", async () => {
      const other = options.persistent ? await options.create() : store();
      try {
        const threadId = id("append-clear");
        const at = window();
        const stores = [store(), other];
        const appends: Promise<number[]>[] = [];
        const clears: Promise<number>[] = [];
        for (let round = 0; round < 12; round++) {
          appends.push(stores[round % 2]!.appendThreadMessages(threadId, someThreadMessages(`r${round}`, 3, at)));
          if (round % 3 === 1) clears.push(stores[(round + 1) % 2]!.clearThread(threadId));
        }
        await Promise.all(appends);
        const cleared = (await Promise.all(clears)).reduce((sum, count) => sum + count, 0);
        const left = await store().readThreadMessages(threadId);
        // No message lost or counted twice, and what is left is numbered from 1 without gaps.
        expect(cleared + left.length).toBe(12 * 3);
        expect(seqs(left)).toEqual(range(1, left.length));
        const labels = left.map((message) => (message.message.data as JsonObject).label as string);
        for (const label of new Set(labels)) {
          const kept = left.filter((message) => (message.message.data as JsonObject).label === label);
          expect(kept.map((message) => (message.message.data as JsonObject).index), label).toEqual([0, 1, 2]);
          expect(seqs(kept), label).toEqual(range(kept[0]!.seq, kept[0]!.seq + 2));
        }
      } finally {
        if (other !== store()) await other.close();
      }
    });

    it("keeps NUL characters, unicode with lone surrogates, and 1 MB messages exactly", async () => {
      const threadId = `${id("strings")}-스레드-🧵`;
      const at = window();
      const big = `${"tool output line with some text 0123456789\n".repeat(24_000)}end`;
      const payloads: JsonObject[] = [
        { type: "tool", data: { content: "a\u0000b \u0000\u0000", tool_call_id: "call\u0000" } },
        { type: "human", data: { content: "🎉👩🏽‍💻 日本語 مرحبا e\u0301 lone \ud800 and \udfff, \\u0000 is text" } },
        { type: "ai", data: { content: big } },
      ];
      await store().appendThreadMessages(threadId, payloads.map((message, index) => ({ message, tokens: index, at, runId: "ラン-1" })));
      const read = await store().readThreadMessages(threadId);
      expect(read.map((message) => message.message)).toEqual(payloads);
      expect((read[0]?.message.data as JsonObject).content).toBe("a\u0000b \u0000\u0000");
      expect((read[1]?.message.data as JsonObject).content).toContain("lone \ud800 and \udfff");
      expect(((read[2]?.message.data as JsonObject).content as string).length).toBe(big.length);
      expect(read[0]?.runId).toBe("ラン-1");
    });

    it.runIf(options.corruptThreadMessage !== undefined)("names the thread and the seq of a corrupt message, and reads around it", async () => {
      const threadId = id("corrupt-thread");
      await store().appendThreadMessages(threadId, someThreadMessages("c", 4, window()));
      await options.corruptThreadMessage!(threadId, 2);
      const error = await rejectionOf(store().readThreadMessages(threadId));
      expect(RunStoreError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ operation: "readThreadMessages", reason: "corrupt" });
      expect(error.message).toContain(`thread "${threadId}"`);
      expect(error.message).toMatch(/message 2 /);
      expect(error.message).toMatch(/clearThread/);
      expect(seqs(await store().readThreadMessages(threadId, { newestFirst: true, limit: 2 }))).toEqual([4, 3]);
      expect(seqs(await store().readThreadMessages(threadId, { before: 2 }))).toEqual([1]);
      expect(await store().clearThread(threadId)).toBe(4);
    });

    it("rejects bad arguments with an InvalidArgumentError naming the argument, and appends nothing", async () => {
      const threadId = id("bad");
      const at = window();
      const good: NewThreadMessage = { message: { type: "human", data: { content: "ok" } }, tokens: 1, at };
      const bad: [string, (s: RunStore) => Promise<unknown>][] = [
        ["threadId", (s) => s.appendThreadMessages("", [good])],
        ["threadId", (s) => s.appendThreadMessages("a\u0000b", [good])],
        ["messages", (s) => s.appendThreadMessages(threadId, "hello" as never)],
        ["messages[1]", (s) => s.appendThreadMessages(threadId, [good, null as never])],
        ["messages[1].message", (s) => s.appendThreadMessages(threadId, [good, { ...good, message: [] as never }])],
        ["messages[1].tokens", (s) => s.appendThreadMessages(threadId, [good, { ...good, tokens: -1 }])],
        ["messages[1].tokens", (s) => s.appendThreadMessages(threadId, [good, { ...good, tokens: 2.5 }])],
        ["messages[0].runId", (s) => s.appendThreadMessages(threadId, [{ ...good, runId: "" }])],
        ["messages[0].at", (s) => s.appendThreadMessages(threadId, [{ ...good, at: -1 }])],
        ["threadId", (s) => s.readThreadMessages("")],
        ["options.after", (s) => s.readThreadMessages(threadId, { after: -1 })],
        ["options.before", (s) => s.readThreadMessages(threadId, { before: 0 })],
        ["options.limit", (s) => s.readThreadMessages(threadId, { limit: 0 })],
        ["options.limit", (s) => s.readThreadMessages(threadId, { limit: 1.5 })],
        ["options.newestFirst", (s) => s.readThreadMessages(threadId, { newestFirst: "yes" as never })],
        ["threadId", (s) => s.clearThread(42 as never)],
      ];
      for (const [argument, call] of bad) {
        const error = await rejectionOf(call(store()));
        expect(InvalidArgumentError.isInstance(error), `${argument}: ${error.message}`).toBe(true);
        expect(error.message, error.message).toContain(argument);
      }
      expect(await store().readThreadMessages(threadId)).toEqual([]);
    });

    it("rejects thread calls after close() with a RunStoreError", async () => {
      const closed = await options.create();
      await closed.readThreadMessages(id("warm-up"));
      await closed.close();
      const calls: [string, (s: RunStore) => Promise<unknown>][] = [
        ["appendThreadMessages", (s) => s.appendThreadMessages(id(), someThreadMessages("x", 1, 1))],
        ["readThreadMessages", (s) => s.readThreadMessages(id())],
        ["clearThread", (s) => s.clearThread(id())],
      ];
      for (const [operation, call] of calls) {
        const error = await rejectionOf(call(closed));
        expect(RunStoreError.isInstance(error), operation).toBe(true);
        expect(error.message).toMatch(/closed/);
        expect(error.operation).toBe(operation);
      }
    });
  });
}
