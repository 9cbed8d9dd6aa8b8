// A run left `running` by a process that stopped holds a lapsed lease: `agentrx runs` and `show`
// say it is stalled and how to go on, instead of showing it as running forever.
import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/index";
import type { CliIo } from "./cli-io";
import { runsCommand } from "./runs-command";
import { showCommand } from "./show-command";

function capture(): { io: CliIo; out: () => string } {
  let stdout = "";
  return { io: { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => undefined }, env: { NO_COLOR: "1" }, cwd: "." }, out: () => stdout };
}

describe("agentrx runs and show: stalled runs", () => {
  it("labels a running run whose lease lapsed stalled, says how to resume it, and leaves a live one running", async () => {
    const store = new MemoryRunStore();
    const now = Date.now();
    await store.createRun({ runId: "crashed", inputs: { input: "a" }, status: "running", owner: "a-dead-process", leaseMs: 1_000, at: now - 60_000 });
    await store.createRun({ runId: "live", inputs: { input: "b" }, status: "running", owner: "this-process", leaseMs: 600_000, at: now - 1_000 });
    await store.createRun({ runId: "paused", inputs: { input: "c" }, status: "queued", at: now - 2_000 });

    const listed = capture();
    await runsCommand(store, { query: { limit: 10 }, flags: [], json: false, label: "memory" }, listed.io);
    const lines = listed.out().trimEnd().split("\n");
    const statusOf = (runId: string) => lines.find((line) => line.startsWith(runId))?.split(/\s{2,}/)[2];
    expect(statusOf("crashed")).toBe("running (stalled)");
    expect(statusOf("live")).toBe("running");
    expect(statusOf("paused")).toBe("queued");
    expect(listed.out()).toContain('Run crashed is stalled: `running`, but the lease of the process running it lapsed');
    expect(listed.out()).toContain('executor.resume("crashed")');

    const shown = capture();
    await showCommand(store, "crashed", { json: false, label: "memory" }, shown.io);
    expect(shown.out().split("\n")[0]).toMatch(/^Run crashed · running \(stalled\) · /);
    expect(shown.out()).toContain("(running, stalled; the record ends here)");

    const live = capture();
    await showCommand(store, "live", { json: false, label: "memory" }, live.io);
    expect(live.out()).toContain("(running; the record ends here for now)");
    expect(live.out()).not.toContain("stalled");
    await store.close();
  });

  it("counts several stalled runs in one line", async () => {
    const store = new MemoryRunStore();
    const at = Date.now() - 60_000;
    for (const runId of ["a", "b"]) await store.createRun({ runId, inputs: {}, status: "running", owner: "gone", leaseMs: 10, at });
    const listed = capture();
    await runsCommand(store, { query: { limit: 10 }, flags: [], json: false, label: "memory" }, listed.io);
    expect(listed.out()).toMatch(/2 runs are stalled: .*executor\.resume\("(a|b)"\)/);
    await store.close();
  });

  it("says a fork whose maker stopped before writing its copy was never copied (not that turns were), and how to clear it", async () => {
    const store = new MemoryRunStore();
    const now = Date.now();
    await store.createRun({ runId: "source", inputs: { input: "a" }, status: "queued", at: now - 120_000 });
    // As fork() leaves it when its process dies between creating the run and writing the copy.
    await store.createRun({ runId: "unmade", inputs: { input: "a" }, status: "running", owner: "dead", leaseMs: 1_000, forkOf: { runId: "source", iteration: 2 }, at: now - 60_000 });
    // Given up as cancelled when a resume could not delete it.
    await store.createRun({ runId: "given-up", inputs: { input: "a" }, status: "running", owner: "resumer", leaseMs: 600_000, forkOf: { runId: "source", iteration: 1 }, at: now - 30_000 });
    await store.write("given-up", { owner: "resumer", leaseMs: 600_000, events: [], update: { status: "cancelled", error: "its copy was never written", release: true }, at: now - 30_000 });
    // Still being made by a live process.
    await store.createRun({ runId: "making", inputs: { input: "a" }, status: "running", owner: "alive", leaseMs: 600_000, forkOf: { runId: "source", iteration: 1 }, at: now - 1_000 });

    const listed = capture();
    await runsCommand(store, { query: { limit: 10 }, flags: [], json: false, label: "memory" }, listed.io);
    const lines = listed.out().split("\n");
    const lineage = (runId: string) => lines[lines.findIndex((line) => line.startsWith(`${runId} `)) + 1];
    expect(lineage("unmade")).toBe('  ↳ fork of source@2: its copy was never written (the process making it stopped); executor.resume("unmade") deletes it, to be forked again');
    expect(lineage("making")).toBe("  ↳ fork of source@1: being made, its copy not written yet");
    expect(lineage("given-up")).toBe("  ↳ fork of source@1: its copy was never written; nothing ran");
    expect(listed.out()).not.toMatch(/turns? copied/);

    const shown = capture();
    await showCommand(store, "unmade", { json: false, label: "memory" }, shown.io);
    expect(shown.out().split("\n")[0]).toMatch(/^Run unmade · running \(stalled\) · .* · fork of source@2 \(its copy never written\) · started /);
    expect(shown.out()).toContain("(running, stalled: a fork of source whose copy of its record was never written; the process making it stopped, and nothing of it ran)");
    expect(shown.out()).toContain('Resume it to delete it: executor.resume("unmade"); then fork run source again.');
    expect(shown.out()).not.toMatch(/copied turn/);

    const making = capture();
    await showCommand(store, "making", { json: false, label: "memory" }, making.io);
    expect(making.out().split("\n")[0]).toMatch(/ · fork of source@1 \(its copy not written yet\) · /);
    expect(making.out()).toContain("(running; the record ends here for now)");
    await store.close();
  });
});
