import { InvalidArgumentError } from "@agentrx/core";
import { RunLeaseLostError, RunStoreError } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { rejectionOf, someCheckpoint, someEvents, type ConformanceContext } from "./conformance-context";

const LEASE = 1000;

/**
 * The conformance tests of fencing and lineage: epochs start at 1 and rise with every claim, a
 * write with a stale epoch is refused with `RunLeaseLostError` and applies nothing (also when two
 * claimants race), and `forkOf` round-trips through `getRun` and `listRuns`.
 */
export function fencingTests(context: ConformanceContext): void {
  const { id, window, options } = context;
  const store = () => context.store();

  describe("fencing epochs and forks", () => {
    it("creates a run at epoch 1 and raises the epoch by one at every claim, resolving with the new one", async () => {
      const runId = id("epoch");
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "queued", at });
      expect((await store().getRun(runId))?.epoch).toBe(1);
      const first = await store().claimRun(runId, { owner: "a", leaseMs: LEASE, at: at + 1 });
      expect(first).toMatchObject({ status: "queued", epoch: 2 });
      expect(first.owner).toBeUndefined();
      // The owner claiming again gets a new epoch too; so does a takeover after the lease expired.
      expect((await store().claimRun(runId, { owner: "a", leaseMs: LEASE, at: at + 2 })).epoch).toBe(3);
      expect((await store().claimRun(runId, { owner: "b", leaseMs: LEASE, at: at + 5000 })).epoch).toBe(4);
      expect(await store().getRun(runId)).toMatchObject({ owner: "b", epoch: 4 });
      expect((await store().listRuns({ since: at, before: at + 1 })).map((run) => [run.runId, run.epoch])).toEqual([[runId, 4]]);
    });

    it("keeps the epoch when a busy claim is refused, and through writes", async () => {
      const runId = id("epoch");
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "a", leaseMs: LEASE, at });
      await rejectionOf(store().claimRun(runId, { owner: "b", leaseMs: LEASE, at: at + 1 }));
      await store().write(runId, { owner: "a", leaseMs: LEASE, epoch: 1, events: someEvents(1, 2, at), update: { checkpoint: someCheckpoint(1) }, at: at + 2 });
      expect(await store().getRun(runId)).toMatchObject({ owner: "a", epoch: 1, eventCount: 2 });
    });

    it("cancels a run that has not ended from any process (cancelRun): its writer is refused and told so; an ended run is left as it is", async () => {
      const cancelRun = store().cancelRun?.bind(store());
      if (cancelRun === undefined) return; // optional: a store without it is not asked
      const runId = id("cancel");
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "a", leaseMs: LEASE, at });
      await store().write(runId, { owner: "a", leaseMs: LEASE, epoch: 1, events: someEvents(1, 1, at), at: at + 1 });
      expect(await cancelRun(runId, { reason: "Cancelled from the page.", at: at + 2 })).toBe(true);
      expect(await store().getRun(runId)).toMatchObject({ status: "cancelled", error: "Cancelled from the page.", epoch: 2, eventCount: 1, updatedAt: at + 2 });
      expect((await store().getRun(runId))?.owner).toBeUndefined();
      // The writer's next write (a heartbeat: no events) is refused, applying nothing, and says why.
      const refused = await rejectionOf(store().write(runId, { owner: "a", leaseMs: LEASE, epoch: 1, events: [], at: at + 3 }));
      expect(RunLeaseLostError.isInstance(refused)).toBe(true);
      expect((refused as Error).message).toMatch(/was cancelled from another process \(cancelRun\)/);
      expect(refused).toMatchObject({ cancelled: true });
      expect(await store().getRun(runId)).toMatchObject({ status: "cancelled", epoch: 2 });
      // Cancelled already, or ended: nothing changes. Unknown: false.
      expect(await cancelRun(runId, { reason: "again", at: at + 4 })).toBe(false);
      const done = id("cancel");
      await store().createRun({ runId: done, inputs: {}, status: "running", owner: "a", leaseMs: LEASE, at });
      await store().write(done, { owner: "a", leaseMs: LEASE, events: someEvents(1, 1, at), update: { status: "finished", stopReason: "finish", release: true }, at: at + 1 });
      expect(await cancelRun(done, { reason: "late", at: at + 2 })).toBe(false);
      expect(await store().getRun(done)).toMatchObject({ status: "finished", epoch: 1 });
      expect(await cancelRun(id("nope"), { reason: "x", at })).toBe(false);
      // A cancelled run can be claimed (resumed) again.
      expect((await store().claimRun(runId, { owner: "b", leaseMs: LEASE, at: at + 5 })).epoch).toBe(3);
      await expect(cancelRun(runId, { reason: "", at })).rejects.toThrow(/cancel\.reason/);
    });

    it("refuses a write with a stale epoch with RunLeaseLostError, applying nothing, even from the same owner", async () => {
      const runId = id("stale");
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "a", leaseMs: LEASE, at });
      await store().write(runId, { owner: "a", leaseMs: LEASE, epoch: 1, events: someEvents(1, 1, at), at: at + 1 });
      // The same owner id claims again (a restarted process with a stable id): epoch 2.
      expect((await store().claimRun(runId, { owner: "a", leaseMs: LEASE, at: at + 2 })).epoch).toBe(2);
      const before = await store().getRun(runId);
      const events = await store().readEvents(runId);
      const stale = await rejectionOf(store().write(runId, { owner: "a", leaseMs: LEASE, epoch: 1, events: someEvents(2, 2, at + 3), update: { status: "finished", stopReason: "finish", release: true }, at: at + 3 }));
      expect(RunLeaseLostError.isInstance(stale)).toBe(true);
      expect(stale).toMatchObject({ runId, owner: "a", epoch: 1, operation: "write", cancelled: false });
      expect(await store().getRun(runId)).toEqual(before);
      expect(await store().readEvents(runId)).toEqual(events);
      // The current epoch writes; a write without an epoch is checked by owner only.
      await store().write(runId, { owner: "a", leaseMs: LEASE, epoch: 2, events: someEvents(2, 1, at + 4), at: at + 4 });
      await store().write(runId, { owner: "a", leaseMs: LEASE, events: someEvents(3, 1, at + 5), at: at + 5 });
      expect((await store().getRun(runId))?.eventCount).toBe(3);
    });

    it("refuses the former owner's write after a takeover, naming its epoch", async () => {
      const runId = id("takeover");
      const at = window();
      await store().createRun({ runId, inputs: {}, status: "running", owner: "a", leaseMs: LEASE, at });
      const taken = await store().claimRun(runId, { owner: "b", leaseMs: LEASE, at: at + LEASE });
      expect(taken.epoch).toBe(2);
      const late = await rejectionOf(store().write(runId, { owner: "a", leaseMs: LEASE, epoch: 1, events: someEvents(1, 1, at), at: at + LEASE + 1 }));
      expect(RunLeaseLostError.isInstance(late)).toBe(true);
      expect(late).toMatchObject({ runId, owner: "a", cancelled: false });
      expect(await store().readEvents(runId)).toEqual([]);
    });

    it("lets exactly one of two claimants' racing writes win: the later claim's", async () => {
      for (let round = 0; round < 4; round++) {
        const runId = id("race-write");
        const at = window();
        await store().createRun({ runId, inputs: {}, status: "queued", at });
        const owners = round % 2 === 0 ? ["a", "b"] : ["a", "a"];
        const first = await store().claimRun(runId, { owner: owners[0]!, leaseMs: 10, at: at + 1 });
        const second = await store().claimRun(runId, { owner: owners[1]!, leaseMs: LEASE, at: at + 100 });
        const write = (owner: string, epoch: number | undefined) =>
          store().write(runId, { owner, leaseMs: LEASE, epoch, events: someEvents(1, 2, at + 200, { owner, epoch: epoch ?? null }), update: { status: "finished", release: true }, at: at + 200 });
        // Started in either order: whichever reaches the store first, only the later claim's write lands.
        const [stale, fresh] =
          round < 2
            ? await Promise.allSettled([write(owners[0]!, first.epoch), write(owners[1]!, second.epoch)])
            : await Promise.allSettled([write(owners[1]!, second.epoch), write(owners[0]!, first.epoch)]).then(([later, earlier]) => [earlier!, later!]);
        expect(stale!.status).toBe("rejected");
        expect(RunLeaseLostError.isInstance((stale as PromiseRejectedResult).reason)).toBe(true);
        expect(fresh!.status).toBe("fulfilled");
        const events = await store().readEvents(runId);
        expect(events.map((event) => event.data.epoch)).toEqual([second.epoch!, second.epoch!]);
        expect(await store().getRun(runId)).toMatchObject({ status: "finished", eventCount: 2, epoch: second.epoch });
      }
    });

    it.runIf(options.persistent)("lets exactly one write win when two stores on the same records claim one after the other", async () => {
      const other = await options.create();
      try {
        const runId = id("race-stores");
        const at = window();
        await store().createRun({ runId, inputs: {}, status: "queued", at });
        const here = await store().claimRun(runId, { owner: "w", leaseMs: 10, at: at + 1 });
        const there = await other.claimRun(runId, { owner: "w", leaseMs: LEASE, at: at + 50 });
        expect(there.epoch).toBe(here.epoch! + 1);
        const results = await Promise.allSettled([
          store().write(runId, { owner: "w", leaseMs: LEASE, epoch: here.epoch, events: someEvents(1, 1, at + 60, { from: "here" }), at: at + 60 }),
          other.write(runId, { owner: "w", leaseMs: LEASE, epoch: there.epoch, events: someEvents(1, 1, at + 60, { from: "there" }), at: at + 60 }),
        ]);
        expect(results.map((result) => result.status)).toEqual(["rejected", "fulfilled"]);
        expect(RunLeaseLostError.isInstance((results[0] as PromiseRejectedResult).reason)).toBe(true);
        expect((await store().readEvents(runId)).map((event) => event.data.from)).toEqual(["there"]);
      } finally {
        await other.close();
      }
    });

    it("keeps forkOf and returns it from getRun and listRuns; a run that is no fork has none", async () => {
      const source = id("source");
      const fork = id("fork");
      const at = window();
      await store().createRun({ runId: source, inputs: {}, status: "queued", at });
      await store().createRun({ runId: fork, inputs: { input: "again" }, status: "running", owner: "w", leaseMs: LEASE, forkOf: { runId: source, iteration: 2 }, at: at + 1 });
      expect(await store().getRun(fork)).toMatchObject({ runId: fork, forkOf: { runId: source, iteration: 2 }, epoch: 1 });
      expect((await store().getRun(source))?.forkOf).toBeUndefined();
      const listed = await store().listRuns({ since: at, before: at + 2 });
      expect(listed.map((run) => [run.runId, run.forkOf])).toEqual([
        [fork, { runId: source, iteration: 2 }],
        [source, undefined],
      ]);
      await store().claimRun(fork, { owner: "w", leaseMs: LEASE, at: at + 2 });
      await store().write(fork, { owner: "w", leaseMs: LEASE, epoch: 2, events: someEvents(1, 1, at), update: { status: "finished", release: true }, at: at + 3 });
      expect((await store().getRun(fork))?.forkOf).toEqual({ runId: source, iteration: 2 });
      // A fork at iteration 0 copies nothing of its source.
      const empty = id("fork0");
      await store().createRun({ runId: empty, inputs: {}, status: "queued", forkOf: { runId: source, iteration: 0 }, at: at + 4 });
      expect((await store().getRun(empty))?.forkOf).toEqual({ runId: source, iteration: 0 });
    });

    it("rejects a bad forkOf or epoch as an InvalidArgumentError naming it, storing nothing", async () => {
      const at = window();
      for (const [forkOf, argument] of [
        [{ runId: "", iteration: 1 }, "run.forkOf.runId"],
        [{ runId: "src", iteration: -1 }, "run.forkOf.iteration"],
        [{ runId: "src", iteration: 1.5 }, "run.forkOf.iteration"],
        ["src", "run.forkOf"],
      ] as const) {
        const runId = id("bad-fork");
        const error = await rejectionOf(store().createRun({ runId, inputs: {}, status: "queued", forkOf: forkOf as never, at }));
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ argument });
        expect(await store().getRun(runId)).toBeUndefined();
      }
      const runId = id("bad-epoch");
      await store().createRun({ runId, inputs: {}, status: "running", owner: "w", leaseMs: LEASE, at });
      for (const epoch of [0, 1.5, "1"]) {
        const error = await rejectionOf(store().write(runId, { owner: "w", leaseMs: LEASE, epoch: epoch as never, events: someEvents(1, 1, at), at: at + 1 }));
        expect(InvalidArgumentError.isInstance(error) && !RunStoreError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ argument: "write.epoch" });
      }
      expect(await store().readEvents(runId)).toEqual([]);
    });
  });
}
