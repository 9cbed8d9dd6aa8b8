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
});
