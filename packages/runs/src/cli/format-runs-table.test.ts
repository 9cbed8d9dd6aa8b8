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
});
