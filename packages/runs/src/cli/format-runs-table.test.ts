import type { RunInfo } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { cliStyle, formatRunsTable } from "./format-runs-table";

const at = 1_700_000_000_000;
const run = (runId: string, fields: Partial<RunInfo>): RunInfo => ({ runId, status: "finished", inputs: {}, createdAt: at, updatedAt: at + 10, eventCount: 0, ...fields });

describe("agentrx runs' table", () => {
  it("labels a cancelled run cancelled and a resumed finished run finish; only a corrupt row is unreadable", () => {
    const table = formatRunsTable(
      [
        run("cancelled-run", { status: "cancelled", error: "The run was cancelled." }),
        run("resumed-run", { status: "finished", stopReason: "finish", error: "The run was cancelled." }),
        run("corrupt-run", { status: "finished", error: "Corrupt record: column usage is not JSON." }),
      ],
      cliStyle(false),
    );
    const stopOf = (runId: string) => table.split("\n").find((line) => line.startsWith(runId))?.split(/\s{2,}/)[3];
    expect(stopOf("cancelled-run")).toBe("cancelled");
    expect(stopOf("resumed-run")).toBe("finish");
    expect(stopOf("corrupt-run")).toBe("unreadable");
  });

  it("counts a run's turns (agent calls), so a run that failed in its first model call shows 1 under TURNS", () => {
    const checkpoint = { schemaVersion: 1, iteration: 1, elapsedMs: 5, phase: "agent" };
    const [header, row] = formatRunsTable([run("failed-run", { status: "failed", error: "model down", checkpoint })], cliStyle(false)).split("\n");
    const cells = (line: string | undefined) => line?.split(/\s{2,}/);
    expect(cells(header)?.[4]).toBe("TURNS");
    expect(cells(row)?.[4]).toBe("1");
  });

  it("cuts a long input preview at a whole emoji, never leaving half of one", () => {
    const [, row] = formatRunsTable([run("emoji-run", { inputPreview: "😀".repeat(40) })], cliStyle(false)).split("\n");
    const preview = row?.split(/\s{2,}/).find((cell) => cell.startsWith("😀"));
    expect(preview).toBe(`${"😀".repeat(19)}…`); // 39 code units would split the 20th emoji
    expect(preview).not.toMatch(/\\ud83d/);
  });
});
