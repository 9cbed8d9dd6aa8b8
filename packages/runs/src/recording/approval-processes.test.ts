import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { childScript } from "../../../../test/support/child-script";

const CHILD = await childScript(fileURLToPath(new URL("./approval-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentrx-approval-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function child(args: Record<string, unknown>): Promise<{ pid?: number; output: Record<string, unknown> }> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [CHILD, JSON.stringify(args)], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve({ output: JSON.parse(stdout) as Record<string, unknown> }),
    ),
  );
}

describe("approval across processes (SQLite)", () => {
  it("pauses in one process and is approved from another: the tool runs once, there", async () => {
    const path = join(dir, "runs.db");
    const effects = join(dir, "effects.log");
    const paused = await child({ mode: "run", runId: "wire-1", path, effects });
    expect(paused.output).toMatchObject({ output: "", interrupts: [{ id: "call-0-0", tool: "wire", toolInput: { amount: 100 } }] });
    const approved = await child({ mode: "approve", runId: "wire-1", path, effects, decisions: { "call-0-0": "approve" } });
    expect(approved.output).toMatchObject({ type: "output", output: "done: wired 100", stopReason: "finish" });
    const lines = readFileSync(effects, "utf8").trim().split("\n");
    const pids = lines.map((line) => line.split(" in ")[1]);
    expect(lines.map((line) => line.split(" in ")[0])).toEqual(["agent 0", "wire 100", "agent 1"]);
    // The pause happened in the first process; the approved call and the rest ran in the second.
    expect(pids[0]).not.toBe(pids[1]);
    expect(pids[1]).toBe(pids[2]);
    await expect(child({ mode: "approve", runId: "wire-1", path, effects, decisions: { "call-0-0": "approve" } })).rejects.toThrow(/not paused for approval/);
  }, 90_000);
});
