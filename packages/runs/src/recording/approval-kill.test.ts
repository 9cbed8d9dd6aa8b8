// A process killed while another call of the turn runs, before the turn's pause for approval is
// recorded: the resume pauses for approval; the call that needs it never runs unasked.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteRunStore } from "../sqlite/index";
import { childScript } from "../../../../test/support/child-script";

const CHILD = await childScript(fileURLToPath(new URL("./approval-kill-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentrx-approval-kill-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the run and SIGKILLs its process at lookup's first line. */
function killAtLookup(args: Record<string, unknown>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [CHILD, JSON.stringify({ ...args, mode: "run" })], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe", "ipc"] });
    let killed = false;
    let stderr = "";
    child.stderr?.on("data", (chunk) => (stderr += String(chunk)));
    child.on("message", (message: { started?: string }) => {
      if (message.started !== "lookup" || killed) return;
      killed = true;
      child.kill("SIGKILL");
    });
    child.once("exit", (code) => (killed ? resolve() : reject(new Error(`the run child exited with ${code} before lookup started: ${stderr}`))));
  });
}

function resume(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [CHILD, JSON.stringify(args)], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as Record<string, unknown>),
    ),
  );
}

describe("killed while another call of a turn with a call that needs approval runs (SQLite)", () => {
  it("the resume pauses for approval; the call runs once approved", async () => {
    const path = join(dir, "runs.db");
    const effects = join(dir, "effects.log");
    const runId = "refund-1";
    await killAtLookup({ runId, path, effects });
    const store = new SqliteRunStore({ path });
    try {
      // The pause was never recorded: the run stopped before the turn's other call was done.
      expect((await store.readEvents(runId)).map((event) => event.data["type"])).toEqual(["start", "action", "action"]);
    } finally {
      await store.close();
    }
    const paused = await resume({ mode: "resume", runId, path, effects });
    expect(paused).toMatchObject({ output: "", stopReason: "interrupted", interrupts: [{ id: "call-0-1", tool: "refund", toolInput: { amount: 900 }, reason: "approval" }] });
    expect(readFileSync(effects, "utf8").trim().split("\n")).toEqual(["lookup", "lookup"]);
    const done = await resume({ mode: "approve", runId, path, effects, decisions: { "call-0-1": "approve" } });
    expect(done).toMatchObject({ output: "done: found, refunded 900", stopReason: "finish" });
    expect(readFileSync(effects, "utf8").trim().split("\n")).toEqual(["lookup", "lookup", "refund 900"]);
  }, 90_000);
});
