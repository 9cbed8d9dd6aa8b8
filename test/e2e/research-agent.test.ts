// examples/research-agent.ts as a new user runs it, in two terminals: the research run in one
// process, `send <runId> "Also check Rome."` from a second one while it runs. The run's SQLite
// record then shows the message joining, the Rome search after it, every prompt under 8,000
// tokens thanks to compactSteps, and the guardrail stopping the run on a card number.
import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { StoredRunEvent } from "@agentrx/executors";
import { readPrompts, SqliteRunStore } from "@agentrx/runs";
import { afterAll, describe, expect, it } from "vitest";

const execute = promisify(execFile);
const root = join(__dirname, "..", "..");
const tsx = join(root, "node_modules", ".bin", "tsx");
const runsDir = mkdtempSync(join(tmpdir(), "agentrx-research-"));
const runsDb = join(runsDir, "runs.db");
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

const CONTEXT_TOKENS = 8_000;
// Each search waits this long, so the second process (a cold tsx start, seconds on a loaded
// machine) sends its message while about 25 searches are still to come.
const env = (() => {
  const { OPENAI_API_KEY: _key, OPENAI_BASE_URL: _url, OPENAI_MODEL: _model, ...rest } = process.env;
  return { ...rest, AGENTRX_RUNS_DB: runsDb, RESEARCH_STEP_MS: "500", NO_COLOR: "1" };
})();

/** Resolves with the output so far once `pattern` matches it; rejects if the process ends first. */
function waitFor(child: ChildProcessWithoutNullStreams, output: () => string, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(output());
      if (match) {
        child.stdout.off("data", check);
        child.off("close", ended);
        resolve(match);
      }
    };
    const ended = (code: number | null) => reject(new Error(`The research run ended (exit ${code}) before printing ${pattern}:\n${output()}`));
    child.stdout.on("data", check);
    child.once("close", ended);
    check();
  });
}

/** About 4 characters a token over what the model is sent: each message's text and tool calls, and the tool definitions. */
function promptTokens(prompt: { messages: unknown[]; tools?: unknown }): number {
  let chars = prompt.tools === undefined ? 0 : JSON.stringify(prompt.tools).length;
  for (const message of prompt.messages) {
    const { content, tool_calls: calls } = (message as { data: { content: unknown; tool_calls?: unknown[] } }).data;
    chars += typeof content === "string" ? content.length : JSON.stringify(content).length;
    if (calls?.length) chars += JSON.stringify(calls).length;
  }
  return Math.ceil(chars / 4);
}

describe("examples/research-agent.ts, steered from a second process", () => {
  it("takes 'Also check Rome.' mid-run, keeps every prompt under 8,000 tokens and stops on the card number", async () => {
    const child = spawn(tsx, [join("examples", "research-agent.ts")], { cwd: root, env });
    let output = "";
    let errors = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
    // "close", not "exit": the output is read to its end.
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    try {
      const runId = (await waitFor(child, () => output, /^Run (\S+) started/m))[1] as string;
      expect(output).toContain("Model: ScriptedChatModel, offline");
      // The line after it says how to send from another terminal (it may come in a later chunk).
      await waitFor(child, () => output, new RegExp(`^From another terminal: npx tsx examples/research-agent.ts send ${runId} "Also check Rome."$`, "m"));
      await waitFor(child, () => output, /^step {2}8 /m);

      // The second terminal.
      const sent = await execute(tsx, [join("examples", "research-agent.ts"), "send", runId, "Also check Rome."], { cwd: root, env, timeout: 120_000 });
      expect(sent.stdout.trim()).toBe(`Sent to run ${runId}: inboxSeq=1 status=running`);

      expect(await exited).toBe(0);
      expect(errors).toBe("");
      expect(output).toMatch(/^message {2}"Also check Rome\." joined the run before call \d+$/m);
      expect(output).toMatch(/^step \d+ {2}search \{"query":"Rome"\}/m);
      expect(output).toMatch(/^compaction {2}steps 1-\d+ summarized/m);
      expect(output).toMatch(/^answer {2}Agent stopped: guardrail "no-card-numbers" tripped on a tool result \(search\): a credit-card number \(ending 1111\)\.$/m);
      expect(output.trimEnd().split("\n").at(-1)).toBe("stopReason=guardrail");
      const printedLargest = Number(/^largest prompt: (\d+) tokens \(of 8000;/m.exec(output)?.[1]);
      expect(printedLargest).toBeGreaterThan(0);
      expect(printedLargest).toBeLessThan(CONTEXT_TOKENS);
      // One line per step, numbered without a gap.
      const numbers = [...output.matchAll(/^step +(\d+) {2}search /gm)].map((match) => Number(match[1]));
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));

      // The record, as any process sharing the store reads it.
      const store = new SqliteRunStore({ path: runsDb });
      try {
        const run = await store.getRun(runId);
        expect(run?.status).toBe("finished");
        expect(run?.stopReason).toBe("guardrail");
        const events: StoredRunEvent[] = [];
        for (let page = await store.readEvents(runId); page.length > 0; page = await store.readEvents(runId, { after: page.at(-1)?.seq })) events.push(...page);
        expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));

        // The cities the question lists, in order; the run searched them one a turn, Rome
        // right after the message joined, and none skipped (also across the compaction).
        const cities = /one search per city: (.*?)\. Then/.exec(String(run?.inputs["input"]))?.[1]?.split(", ") ?? [];
        expect(cities).toHaveLength(40);
        const actions = events.filter((event) => event.type === "action");
        const searched = actions.map((event) => (event.data["action"] as { toolInput: { query: string } }).toolInput.query);
        const message = events.find((event) => event.type === "message");
        expect(message?.data["message"]).toMatchObject({ type: "human", data: { content: "Also check Rome." } });
        expect(message?.data["inboxSeq"]).toBe(1);
        const rome = actions.findIndex((event) => event.seq > (message?.seq ?? Infinity));
        expect(searched[rome]).toBe("Rome");
        expect(rome).toBeGreaterThanOrEqual(8); // it joined after the 8 searches the test waited for
        const leaky = searched.length - 1; // the call whose result tripped the guardrail
        expect(searched.filter((_, i) => i !== rome)).toEqual(cities.slice(0, leaky));
        expect(leaky).toBe(35); // 34 cities and Rome before it: the 35th city leaks the card
        expect(searched.filter((city) => city === "Rome")).toHaveLength(1);
        // Every search but the tripped one has its result recorded, in its own turn.
        const steps = events.filter((event) => event.type === "step");
        expect(steps.map((event) => event.data["iteration"])).toEqual(actions.slice(0, -1).map((event) => event.data["iteration"]));
        expect(steps).toHaveLength(numbers.length);

        // The run's context: the results add up to far more than 8,000 tokens, yet every model
        // call was sent less, because compactSteps summarized the oldest steps.
        const resultTokens = steps.reduce((sum, event) => sum + Math.ceil(String(event.data["observation"]).length / 4), 0);
        expect(resultTokens).toBeGreaterThan(CONTEXT_TOKENS);
        const compactions = events.filter((event) => event.type === "compaction");
        expect(compactions.length).toBeGreaterThanOrEqual(1);
        expect(compactions[0]?.data).toMatchObject({ middleware: "compactSteps", summary: expect.stringContaining(cities[0] as string) });
        const prompts = await readPrompts(store, runId);
        expect(prompts).toHaveLength(actions.length);
        const sizes = prompts.map(promptTokens);
        expect(Math.max(...sizes)).toBeLessThan(CONTEXT_TOKENS);
        expect(Math.max(...sizes)).toBe(printedLargest);
        // The prompt after a compaction is smaller than the one before it.
        const compactedAt = Number(compactions[0]?.data["iteration"]);
        expect(sizes[compactedAt]).toBeLessThan(sizes[compactedAt - 1] as number);

        const end = events.at(-1);
        expect(end?.type).toBe("output");
        expect(end?.data).toMatchObject({
          stopReason: "guardrail",
          stoppedBy: { middleware: "no-card-numbers", guardrail: "no-card-numbers", on: "tool", phase: "result", reason: "a credit-card number (ending 1111)" },
        });
      } finally {
        await store.close();
      }

      // Too late: the run has ended, and the second terminal says so.
      const late = await execute(tsx, [join("examples", "research-agent.ts"), "send", runId, "And Oslo?"], { cwd: root, env, timeout: 120_000 }).catch((error: { code: number; stderr: string }) => error);
      expect(late).toMatchObject({ code: 1 });
      expect((late as { stderr: string }).stderr).toMatch(/^Not sent: RunFinishedError: Run "\S+" finished \(guardrail\)/);
    } finally {
      if (child.exitCode === null) child.kill();
    }
  }, 240_000);
});
