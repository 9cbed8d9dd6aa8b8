import { InvalidArgumentError } from "@agentrx/core";
import { RunStoreError, type RunStore } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { rejectionOf, someCheckpoint, someEvents, type ConformanceContext } from "./conformance-context";

export function failureTests(context: ConformanceContext): void {
  const { id, window, options } = context;
  const store = () => context.store();

  describe("failures", () => {
    it.runIf(options.corrupt !== undefined)("names a corrupt run in getRun and readEvents, and lists it with an error without failing the others", async () => {
      const thread = id("thread");
      const at = window();
      const make = async (runId: string, offset: number) => {
        await store().createRun({ runId, threadId: thread, inputs: { runId }, status: "running", owner: "w", leaseMs: 60_000, metadata: { runId }, at: at + offset });
        await store().write(runId, { owner: "w", leaseMs: 60_000, events: someEvents(1, 2, at), update: { checkpoint: someCheckpoint(1), usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } }, at: at + offset });
      };
      const columns = ["inputs", "usage", "checkpoint", "metadata"] as const;
      const broken = columns.map(() => id("corrupt"));
      const brokenEvent = id("corrupt-event");
      const healthy = id("healthy");
      for (const [index, runId] of [...broken, brokenEvent, healthy].entries()) await make(runId, index);
      for (const [index, column] of columns.entries()) await options.corrupt!(broken[index]!, column);
      await options.corrupt!(brokenEvent, "event");

      for (const [index, column] of columns.entries()) {
        const runId = broken[index]!;
        const error = await rejectionOf(store().getRun(runId));
        expect(RunStoreError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ runId, operation: "getRun", reason: "corrupt" });
        expect(error.message).toContain(runId);
        expect(error.message).toContain(column);
        expect(await store().readEvents(runId)).toHaveLength(2);
      }
      const eventError = await rejectionOf(store().readEvents(brokenEvent));
      expect(RunStoreError.isInstance(eventError)).toBe(true);
      expect(eventError).toMatchObject({ runId: brokenEvent, operation: "readEvents", reason: "corrupt" });
      expect(eventError.message).toContain(brokenEvent);
      expect(eventError.message).toMatch(/\b1\b/);
      expect((await store().readEvents(brokenEvent, { after: 1 })).map((event) => event.seq)).toEqual([2]);
      expect((await store().getRun(brokenEvent))?.eventCount).toBe(2);

      const listed = await store().listRuns({ threadId: thread });
      expect(listed.map((run) => run.runId)).toEqual([healthy, brokenEvent, ...[...broken].reverse()]);
      for (const [index, column] of columns.entries()) {
        const run = listed.find((candidate) => candidate.runId === broken[index]);
        expect(run?.error).toContain(column);
        expect(run).toMatchObject({ threadId: thread, eventCount: 2 });
      }
      const claimError = await rejectionOf(store().claimRun(broken[0]!, { owner: "w", leaseMs: 60_000, at: at + 10 }));
      expect(RunStoreError.isInstance(claimError)).toBe(true);
      expect(claimError.message).toContain(broken[0]!);
      expect({ ...listed[0], cursor: undefined }).toEqual(await store().getRun(healthy));
      expect(listed[0]?.error).toBeUndefined();
      expect(await store().deleteRun(broken[0]!)).toBe(true);
    });

    it("rejects every call after close() with a RunStoreError, and closes twice quietly", async () => {
      const closed = await options.create();
      await closed.getRun(id("warm-up"));
      await closed.close();
      await closed.close();
      const at = window();
      const calls: [string, (s: RunStore) => Promise<unknown>][] = [
        ["createRun", (s) => s.createRun({ runId: id(), inputs: {}, status: "queued", at })],
        ["claimRun", (s) => s.claimRun(id(), { owner: "a", leaseMs: 1, at })],
        ["write", (s) => s.write(id(), { owner: "a", leaseMs: 1, events: [], at })],
        ["getRun", (s) => s.getRun(id())],
        ["readEvents", (s) => s.readEvents(id())],
        ["listRuns", (s) => s.listRuns()],
        ["deleteRun", (s) => s.deleteRun(id())],
        ["pruneRuns", (s) => s.pruneRuns({ olderThan: 1 })],
      ];
      for (const [operation, call] of calls) {
        const error = await rejectionOf(call(closed));
        expect(RunStoreError.isInstance(error), operation).toBe(true);
        expect(error.message).toMatch(/closed/);
        expect(error.operation).toBe(operation);
      }
    });

    it("rejects bad arguments with an InvalidArgumentError naming the argument", async () => {
      const runId = id();
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "a", leaseMs: 60_000, at });
      const bad: [string, () => Promise<unknown>][] = [
        ["limit", () => store().listRuns({ limit: 0 })],
        ["limit", () => store().listRuns({ limit: 2.5 })],
        ["limit", () => store().listRuns({ limit: "10" as never })],
        ["status", () => store().listRuns({ status: "done" as never })],
        ["status", () => store().listRuns({ status: [] })],
        ["since", () => store().listRuns({ since: "yesterday" as never })],
        ["before", () => store().listRuns({ before: new Date("not a date") })],
        ["after", () => store().readEvents(runId, { after: -1 })],
        ["limit", () => store().readEvents(runId, { limit: 0 })],
        ["olderThan", () => store().pruneRuns({ olderThan: Number.NaN })],
        ["runId", () => store().getRun("")],
        ["runId", () => store().createRun({ runId: "", inputs: {}, status: "queued", at })],
        ["status", () => store().createRun({ runId: id(), inputs: {}, status: "finished" as never, at })],
        ["owner", () => store().createRun({ runId: id(), inputs: {}, status: "running", leaseMs: 10, at })],
        ["leaseMs", () => store().createRun({ runId: id(), inputs: {}, status: "running", owner: "a", leaseMs: 0, at })],
        ["at", () => store().createRun({ runId: id(), inputs: {}, status: "queued", at: -5 })],
        ["inputs", () => store().createRun({ runId: id(), inputs: [] as never, status: "queued", at })],
        ["leaseMs", () => store().claimRun(runId, { owner: "a", leaseMs: -1, at })],
        ["seq", () => store().write(runId, { owner: "a", leaseMs: 10, events: [{ seq: 0, type: "start", at, data: {} }], at })],
        ["data", () => store().write(runId, { owner: "a", leaseMs: 10, events: [{ seq: 1, type: "start", at, data: [] as never }], at })],
        ["status", () => store().write(runId, { owner: "a", leaseMs: 10, events: [], update: { status: "paused" as never }, at })],
        ["status", () => store().write(runId, { owner: "a", leaseMs: 10, events: [], update: { status: "running", release: true }, at })],
      ];
      for (const [argument, call] of bad) {
        const error = await rejectionOf(call());
        expect(InvalidArgumentError.isInstance(error), `${argument}: ${error.message}`).toBe(true);
        expect(error.message, error.message).toContain(argument);
      }
      expect(await store().getRun(runId)).toMatchObject({ eventCount: 0, status: "running", updatedAt: at });
      expect(await store().readEvents(runId)).toEqual([]);
    });
  });
}
