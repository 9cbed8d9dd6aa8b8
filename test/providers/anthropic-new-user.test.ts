// The new user's run, as one piece: an agent on `ChatAnthropic` with extended thinking calls two
// tools in parallel, its process is killed while they run, another process resumes the run (the
// in-doubt calls run again with the same idempotency keys), pauses for approval of the next
// turn's tool, is approved there and answers. Every request must be one Anthropic accepts (the
// loopback server refuses the others), each thinking block must come back as it was sent, no turn
// already recorded is asked of the model again, and the trace page rendered from the record (SQLite
// file, PostgreSQL), opened in Chromium, shows each turn's thinking and the approval.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startAnthropicMessagesServer } from "@agentrx/core/testing";
import type { RunStore } from "@agentrx/executors";
import { renderTracePage } from "@agentrx/viewer";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ChildStoreTarget } from "../../packages/runs/src/recording/child-store";
import { openChildStore } from "../../packages/runs/src/recording/child-store";
import { postgresTestDatabase } from "../../packages/runs/src/testing/postgres-test-database";
import { launchChromium, skipWithoutChromium } from "../browser/chromium";
import { cleanupAfterEach, until } from "./support";
import { childScript } from "../support/child-script";

const CHILD = await childScript(fileURLToPath(new URL("./fixtures/new-user-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ANSWER = "Sunny and 21 degrees in Paris and Rome; the report went to ops@example.com.";
const THINKING = ["Two cities, so two weather calls at once.", "Both sunny; the report goes out once a person approves it.", "Sent; time to answer."];
const REPORT = { to: "ops@example.com", text: "Paris and Rome: sunny, 21 degrees." };

const { track, tempDir } = cleanupAfterEach();
const database = await postgresTestDatabase("new-user scenario on PostgresRunStore");
afterAll(() => database.drop());
const noChromium = skipWithoutChromium("new-user trace page (the rest of the scenario runs)");

const stores: [string, boolean, (dir: string) => ChildStoreTarget][] = [
  ["SQLite", false, (dir) => ({ kind: "sqlite", path: join(dir, "runs.db") })],
  ["PostgreSQL", database.skip, () => ({ kind: "postgres", connectionString: database.connectionString, schema: database.schema })],
];

/** The child processes of the current test: any still running when it ends (it failed) is killed. */
const children: ChildProcess[] = [];
afterEach(() => {
  for (const each of children.splice(0)) if (each.exitCode === null && each.signalCode === null) each.kill("SIGKILL");
});

/** Starts the fixture in `role`. */
function child(role: "start" | "resume", args: Record<string, unknown>): ChildProcess {
  const started = spawn(process.execPath, [CHILD, JSON.stringify({ role, ...args })], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  children.push(started);
  return started;
}

/** The lines of the effects file, or none before it exists. */
function lines(path: string): string[] {
  try {
    return readFileSync(path, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

describe.each(stores)("ChatAnthropic with extended thinking, killed, resumed and approved in another process, on %s", (name, skip, targetIn) => {
  it.skipIf(skip)("answers, every request accepted, the thinking intact and in the trace page", async () => {
    if (name === "PostgreSQL") database.assertReachable();
    const server = track(
      await startAnthropicMessagesServer({
        responses: [
          { thinking: THINKING[0], toolCalls: [{ name: "weather", input: { city: "Paris" } }, { name: "weather", input: { city: "Rome" } }] },
          { thinking: THINKING[1], toolCalls: [{ name: "send_report", input: REPORT }] },
          { thinking: THINKING[2], text: ANSWER },
        ],
      }),
    );
    const dir = tempDir("agentrx-new-user-");
    const target = targetIn(dir);
    const effects = join(dir, "effects.log");
    const out = join(dir, "out.json");
    const runId = `new-user-${name}`;
    const args = { url: server.url, store: target, runId, effects, out };

    // Process A: killed while both weather calls run (each has written its first line).
    const a = child("start", args);
    try {
      await until(() => lines(effects).length === 2, "both weather calls of process A to start");
    } finally {
      a.kill("SIGKILL");
    }
    await new Promise((resolve) => a.once("exit", resolve));
    const inA = lines(effects);
    expect(server.messageRequests()).toHaveLength(1);

    // Process B: resumes, runs the in-doubt calls again, pauses for approval, approves, answers.
    const b = child("resume", args);
    let stderr = "";
    b.stderr?.on("data", (data) => (stderr += String(data)));
    const code = await new Promise((resolve) => b.once("exit", resolve));
    expect(code, stderr).toBe(0);
    const result = JSON.parse(readFileSync(out, "utf8")) as { interrupts: { id: string; tool: string }[]; output: string; doneInterrupts: unknown[] };
    expect(result.interrupts).toMatchObject([{ tool: "send_report" }]);
    expect(result.doneInterrupts).toEqual([]);
    expect(result.output).toBe(ANSWER);

    // The in-doubt calls ran again in B with the keys they had in A (one key per call).
    const inB = lines(effects).slice(inA.length);
    expect(inB.filter((line) => line.startsWith("start")).sort()).toEqual([...inA].sort());
    expect(new Set(inA.map((line) => line.split(" ")[2])).size).toBe(2);
    expect(inB.filter((line) => line.startsWith("send_report"))).toEqual(["send_report ops@example.com"]);

    // Every request accepted; three in all, each asking for the next turn (none asked twice).
    expect(server.rejections).toEqual([]);
    const requests = server.messageRequests();
    expect(requests.map((request) => request.messages.filter((message: { role: string }) => message.role === "assistant").length)).toEqual([0, 1, 2]);
    // Each thinking block came back first in its message, as the server sent it (signature included).
    const sent = server.replies();
    const last = requests[2].messages.filter((message: { role: string }) => message.role === "assistant");
    for (const [turn, message] of last.entries()) {
      const thinking = sent[turn].content[0];
      expect(thinking).toMatchObject({ type: "thinking", thinking: THINKING[turn] });
      expect(message.content[0]).toEqual(thinking);
      expect(message.content.slice(1).map((block: { type: string }) => block.type)).toEqual(turn === 0 ? ["tool_use", "tool_use"] : ["tool_use"]);
    }
    expect(requests[1].messages.at(-2).content[0]).toEqual(sent[0].content[0]);

    // The trace page rendered from the record shows the thinking and the approval.
    const store: RunStore = openChildStore(target);
    let html: string;
    try {
      html = await renderTracePage(store, runId);
    } finally {
      await (store as { close?: () => Promise<void> }).close?.();
    }
    for (const text of THINKING) expect(html).toContain(text);
    if (noChromium) return;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.setContent(html);
      const detail = page.locator(".detail");
      for (const [turn, thinking] of THINKING.entries()) {
        await page.locator(`[data-id="model-${turn}-0"] .bar`).click();
        expect(await detail.locator("h2").textContent()).toBe(`model call #${turn + 1}`);
        expect(await detail.locator('[data-field="reply.reasoning"]').textContent()).toBe(thinking);
      }
      // The last reply's text is its answer, not its blocks.
      expect(await detail.locator('[data-field="reply.content"]').textContent()).toBe(ANSWER);
      const events = await page.locator('[data-id^="event-"]').allTextContents();
      expect(events.join("\n")).toMatch(/interrupt\s*waiting for approval of send_report[\s\S]*decisions\s*resumed with 1 decision: approve/);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
