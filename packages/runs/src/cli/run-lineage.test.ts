import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/index";
import type { CliIo } from "./cli-io";
import { cliStyle, formatRunsTable } from "./format-runs-table";
import { runsCommand } from "./runs-command";
import { showCommand } from "./show-command";

describe("agentrx runs and show: lineage", () => {
  it("shows under a forked run, and in its summary, which run and iteration it came from", async () => {
    const store = new MemoryRunStore();
    const at = Date.UTC(2026, 0, 2, 3, 4, 5);
    await store.createRun({ runId: "source", inputs: {}, status: "queued", at });
    await store.createRun({ runId: "fork-1", inputs: {}, status: "queued", forkOf: { runId: "source", iteration: 2 }, at: at + 1000 });
    let stdout = "";
    const io: CliIo = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => undefined }, env: { NO_COLOR: "1" }, cwd: "." };
    await runsCommand(store, { query: { limit: 10 }, flags: [], json: false, label: "memory" }, io);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[1]).toMatch(/^fork-1\s+-\s+queued\s/);
    expect(lines[2]).toBe("  ↳ fork of source@2");
    expect(lines[3]).toMatch(/^source\s+-\s+queued\s/);
    expect(lines[4]).toMatch(/^2 runs in memory/);

    let json = "";
    await runsCommand(store, { query: { limit: 10 }, flags: [], json: true, label: "memory" }, { ...io, stdout: { write: (text: string) => (json += text) } });
    expect(JSON.parse(json)[0]).toMatchObject({ runId: "fork-1", forkOf: { runId: "source", iteration: 2 } });

    let shown = "";
    await showCommand(store, "fork-1", { json: false, label: "memory" }, { ...io, stdout: { write: (text: string) => (shown += text) } });
    expect(shown.split("\n")[0]).toMatch(/^Run fork-1 · queued · .* · fork of source@2 · started /);
    await store.close();
  });

  it("dims the lineage line when colours are on, and adds none for a run that is no fork", async () => {
    const base = { inputs: {}, createdAt: 0, updatedAt: 0, eventCount: 0 } as const;
    const table = formatRunsTable([{ ...base, runId: "f", status: "running", forkOf: { runId: "s", iteration: 0 } }, { ...base, runId: "s", status: "finished" }], cliStyle(true));
    const lines = table.split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe("\u001b[2m  ↳ fork of s@0\u001b[0m");
  });
});
