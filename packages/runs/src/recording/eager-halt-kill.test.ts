// Crash consistency of a run halted while its model still streams (eagerTools, see
// docs/executor-options.md): `toolCallBudget(2)` fires at the third call the model streams (or
// `maxExecutionTime` while the second still runs), and the early calls that finished are kept as
// that agent call's partial turn (their `action` and `step` events recorded after the halt). A
// child process is "killed" (its store stops taking the run's writes, then it is SIGKILLed) at the
// worst moments of that path:
// - before the partial turn's events are durable (only the early calls' intents are);
// - between its `action` events and its `step` events (a split write: a real store gets them in
//   one write, which the test checks too);
// - right after the run's output.
// Each run is then resumed in another process, with the in-doubt policy "retry" or "interrupt":
// no call whose step was recorded runs again; a call with an intent or an action and no step is
// in doubt (retried under its key, or paused for); each resumed segment stays within the budget
// (stop conditions count from the resume on, docs/runs.md); the record replays and restores to
// the resumed run's live state.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AgentStreamEvent, type RunStore, type StoredRunEvent, restoreRunState, serializeRunState } from "@agentrx/executors";
import { lastValueFrom, toArray } from "rxjs";
import { expect, it } from "vitest";
import { childScript } from "../../../../test/support/child-script";
import { replayRun } from "../replay/replay-run";
import type { ChildStoreTarget } from "./child-store";
import { type KillCases, describeKillTests } from "./durable-kill-harness";
import type { HaltChildArgs, HaltMarker, HaltResumed, HaltRun } from "./eager-halt-kill-child";

const CHILD = await childScript(fileURLToPath(new URL("./eager-halt-kill-child.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
/** The marker file a child writes when a run reached its block (see eager-halt-kill-child.ts). */
const haltMarker = (dir: string, runId: string) => join(dir, `${runId}.halt.blocked`);

/** Runs `runs` in one child and SIGKILLs it once each reached its block; resolves with their markers. */
async function runUntilBlocked(target: ChildStoreTarget, dir: string, runs: HaltRun[]): Promise<Record<string, HaltMarker>> {
  const args: HaltChildArgs = { mode: "run", store: target, dir, runs };
  const child: ChildProcess = spawn(process.execPath, [CHILD, JSON.stringify(args)], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk) => (stderr += String(chunk)));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once("exit", () => ((exited = true), resolve())));
  const markers: Record<string, HaltMarker> = {};
  const deadline = Date.now() + 30_000;
  try {
    for (const run of runs) {
      const file = haltMarker(dir, run.runId);
      while (!existsSync(file) || readFileSync(file, "utf8") === "") {
        if (exited) throw new Error(`the run child exited before ${run.runId} reached its block: ${stderr}`);
        if (Date.now() > deadline) throw new Error(`${run.runId} did not reach its block: ${JSON.stringify(effectsOf(dir, run.runId))} ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      markers[run.runId] = JSON.parse(readFileSync(file, "utf8")) as HaltMarker;
    }
  } finally {
    if (!exited) child.kill("SIGKILL");
    await exit;
  }
  return markers;
}

/** Resumes `runs` in one child to their end (or pause); resolves with what each gave. */
function resumeAll(target: ChildStoreTarget, dir: string, runs: HaltRun[]): Promise<HaltResumed> {
  const args: HaltChildArgs = { mode: "resume", store: target, dir, runs };
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [CHILD, JSON.stringify(args)], { cwd: ROOT, timeout: 60_000 }, (error, out, err) =>
      error ? reject(new Error(`${error.message}\n${err}`)) : resolve(JSON.parse(out) as HaltResumed),
    ),
  );
}

/** The effects file's lines of `runId` (without the run id), as `start <job> <key>` and `model <kind> <results>`. */
function effectsOf(dir: string, runId: string): string[] {
  const file = join(dir, "effects.log");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .map((line) => line.split(" "))
    .filter((words) => words[1] === runId)
    .map(([kind, , ...rest]) => [kind, ...rest].join(" "));
}

const starts = (lines: string[]) => lines.filter((line) => line.startsWith("start ")).map((line) => line.split(" ")[1] as string);
const keysOf = (lines: string[]) => new Map(lines.filter((line) => line.startsWith("start ")).map((line) => [line.split(" ")[1] as string, line.split(" ")[2] as string]));

/** What the record holds: its event types (tokens left out), and the jobs with an action, with a step, with an intent. */
function recordOf(events: readonly StoredRunEvent[]) {
  const jobOf = (data: Record<string, unknown>) => String(((data["action"] ?? (data["step"] as { action?: unknown } | undefined)?.action) as { toolInput?: { job?: string } } | undefined)?.toolInput?.job);
  const of = (type: string) => events.filter((event) => event.type === type).map((event) => jobOf(event.data));
  return {
    types: events.map((event) => event.type).filter((type) => type !== "token"),
    intents: of("tool_intent"),
    actions: of("action"),
    steps: events.filter((event) => event.type === "step" && typeof event.data["index"] === "number").map((event) => {
      const turn = events.filter((candidate) => candidate.type === "action" && candidate.data["iteration"] === event.data["iteration"] && candidate.data["index"] === event.data["index"]).at(-1);
      return turn === undefined ? "?" : jobOf(turn.data);
    }),
  };
}

/** The state without what differs legitimately between a live run and its restored record (the wall time). */
const comparable = (state: unknown) => {
  const { elapsedMs: _elapsed, ...rest } = state as Record<string, unknown>;
  return rest;
};

/** The record replays (as `replayRun` reads it) and restores to the live state the child reported. */
async function checkRecord(store: RunStore, runId: string, live: unknown, output?: string): Promise<void> {
  const replayed: AgentStreamEvent[] = await lastValueFrom(replayRun(store, runId).pipe(toArray()));
  if (output !== undefined) expect(replayed.at(-1)).toMatchObject({ type: "output", output });
  const info = await store.getRun(runId);
  const restored = restoreRunState(info!, await store.readEvents(runId)).state;
  expect(live, `the live state of ${runId}`).toBeDefined();
  expect(comparable(serializeRunState(restored))).toEqual(comparable(live));
}

/**
 * The runs of the test: where each is killed, what halts it, its in-doubt policy on resume, and
 * what must follow. `kept`: the calls of the partial turn; `record`: what the kill left (the jobs
 * with an intent, an action, a step); `resumed`: the calls the resume runs (in doubt ones under
 * the key they had) and its answer, or the calls it pauses for.
 */
interface Case extends HaltRun {
  kept: string[];
  record: { intents: string[]; actions: string[]; steps: string[] };
  resumed: { starts: string[]; output: string; stopReason: string } | { pausedFor: string[] };
}

// Stop conditions count from the resume on (docs/runs.md): a resume that records the calls in
// doubt as its turn (their intents only were recorded) counts their actions, so the model's next
// calls (e, f, g) are refused; a resume whose turn's actions were recorded runs them without
// action events, and the budget counts from the model's next calls (e and f run, g does not).
const CASES: Record<string, Omit<Case, "runId">> = {
  // Killed before the partial turn's events are durable: the early calls are in doubt.
  before: { block: "partial-turn", kept: ["a", "b"], record: { intents: ["a", "b"], actions: [], steps: [] }, resumed: { starts: ["a", "b"], output: "From 2: a ok, b ok", stopReason: "budget" } },
  beforeInterrupt: { block: "partial-turn", inDoubt: "interrupt", kept: ["a", "b"], record: { intents: ["a", "b"], actions: [], steps: [] }, resumed: { pausedFor: ["a", "b"] } },
  // Killed between its action events and its step events: the calls are in doubt.
  split: { block: "partial-turn-split", kept: ["a", "b"], record: { intents: ["a", "b"], actions: ["a", "b"], steps: [] }, resumed: { starts: ["a", "b", "e", "f"], output: "From 4: a ok, b ok, e ok, f ok", stopReason: "budget" } },
  splitInterrupt: { block: "partial-turn-split", inDoubt: "interrupt", kept: ["a", "b"], record: { intents: ["a", "b"], actions: ["a", "b"], steps: [] }, resumed: { pausedFor: ["a", "b"] } },
  // Killed right after the output: the resume gives it, and runs nothing.
  afterOutput: { block: "output", kept: ["a", "b"], record: { intents: ["a", "b"], actions: ["a", "b"], steps: ["a", "b"] }, resumed: { starts: [], output: "From 2: a ok, b ok", stopReason: "budget" } },
  // maxExecutionTime while b runs: only a is kept; b was aborted by the halt. Before the turn is
  // recorded both are in doubt; once its action is, a alone is (the live run never ran b again).
  timeBefore: { block: "partial-turn", halt: "time", kept: ["a"], record: { intents: ["a", "b"], actions: [], steps: [] }, resumed: { starts: ["a", "b"], output: "From 2: a ok, b ok", stopReason: "budget" } },
  timeSplit: { block: "partial-turn-split", halt: "time", kept: ["a"], record: { intents: ["a", "b"], actions: ["a"], steps: [] }, resumed: { starts: ["a", "e", "f"], output: "From 3: a ok, e ok, f ok", stopReason: "budget" } },
  timeAfterOutput: { block: "output", halt: "time", kept: ["a"], record: { intents: ["a", "b"], actions: ["a"], steps: ["a"] }, resumed: { starts: [], output: "From 1: a ok", stopReason: "max_execution_time" } },
};

const cases: KillCases = [
  (setup) => {
    it("killed before, inside and after the partial turn's record: resumed without running a recorded call again, in doubt by policy, within the budget, to a record that restores to the live state", async () => {
      const { store, target, dir } = setup();
      const tag = Math.random().toString(36).slice(2, 8);
      const all: Case[] = Object.entries(CASES).map(([name, run]) => ({ ...run, runId: `${name}-${tag}` }));
      const markers = await runUntilBlocked(target, dir, all.map(({ runId, block, halt }) => ({ runId, ...(block === undefined ? {} : { block }), ...(halt === undefined ? {} : { halt }) })));

      const firstKeys = new Map<string, Map<string, string>>();
      for (const run of all) {
        const { runId } = run;
        // The first process: a and b started (c would have been call 3 of 2, or came after the time limit).
        const effects = effectsOf(dir, runId);
        expect(starts(effects), `${runId}: the calls that started before the kill`).toEqual(["a", "b"]);
        firstKeys.set(runId, keysOf(effects));
        // A real store gets the partial turn in one write: its actions and its steps together.
        if (run.block !== "output") {
          expect(markers[runId]?.types.filter((type) => type === "action" || type === "step"), runId).toEqual([...run.kept.map(() => "action"), ...run.kept.map(() => "step")]);
        }
        // What the kill left is a record a resume reads.
        const events = await store.readEvents(runId);
        expect(recordOf(events), `${runId}: the record the kill left`).toMatchObject(run.record);
        const restored = restoreRunState((await store.getRun(runId))!, events).state;
        if (run.record.actions.length === 0) expect(restored.earlyCalls?.actions.map((action) => action.toolInput), runId).toEqual(run.record.intents.map((job) => ({ job })));
        else expect(restored.earlyCalls, runId).toBeUndefined();
        // A run that got its output: its record restores to the live state it ended with.
        if (run.block === "output") await checkRecord(store, runId, markers[runId]?.live, "resumed" in run && "output" in run.resumed ? run.resumed.output : undefined);
      }

      // Resumed in another process, each with its policy.
      const seen = new Map(all.map(({ runId }) => [runId, effectsOf(dir, runId).length]));
      const resumed = await resumeAll(target, dir, all.map(({ runId, halt, inDoubt }) => ({ runId, ...(halt === undefined ? {} : { halt }), ...(inDoubt === undefined ? {} : { inDoubt }) })));
      const decisions: HaltRun[] = [];
      for (const run of all) {
        const { runId } = run;
        const got = resumed[runId];
        expect(got?.error, `${runId} resumed`).toBeUndefined();
        const lines = effectsOf(dir, runId).slice(seen.get(runId));
        if ("pausedFor" in run.resumed) {
          // "interrupt": the calls in doubt pause the run; nothing runs, the model is not asked.
          expect(lines, `${runId}: the paused resume ran nothing`).toEqual([]);
          expect(got?.stopReason).toBe("interrupted");
          const interrupts = got?.interrupts as { id: string; toolInput: { job: string }; reason: string }[];
          expect(interrupts.map(({ toolInput, reason }) => [toolInput.job, reason])).toEqual(run.resumed.pausedFor.map((job) => [job, "in_doubt"]));
          await checkRecord(store, runId, got?.live);
          // A person says a ran (its result) and approves b's retry.
          const idOf = (job: string) => interrupts.find((interrupt) => interrupt.toolInput.job === job)!.id;
          decisions.push({ runId, inDoubt: "interrupt", decisions: { [idOf("a")]: { type: "result", observation: "a ok" }, [idOf("b")]: "approve" } });
          continue;
        }
        // No call whose step was recorded runs again; a call in doubt runs once more, under its key.
        expect(starts(lines), `${runId}: the calls the resume ran`).toEqual(run.resumed.starts);
        for (const job of run.record.steps) expect(starts(lines)).not.toContain(job);
        for (const [job, key] of keysOf(lines)) if (firstKeys.get(runId)?.has(job)) expect(key, `${runId}: ${job} retried under its key`).toBe(firstKeys.get(runId)?.get(job));
        if (run.resumed.starts.length === 0) expect(lines, `${runId}: the resume of an ended run asked no model`).toEqual([]);
        expect(got).toMatchObject({ output: run.resumed.output, stopReason: run.resumed.stopReason });
        // (A resume of an ended run makes no live run: its record is still the one that ended.)
        await checkRecord(store, runId, run.block === "output" ? markers[runId]?.live : got?.live, run.resumed.output);
      }

      // The decided resumes: b runs once more under its key, a does not. Their segment records no
      // action for a and b: the budget counts from the model's next calls (e and f run, g does not).
      for (const { runId } of decisions) seen.set(runId, effectsOf(dir, runId).length);
      const decided = await resumeAll(target, dir, decisions);
      for (const { runId } of decisions) {
        const lines = effectsOf(dir, runId).slice(seen.get(runId));
        expect(starts(lines), `${runId}: the calls the decided resume ran`).toEqual(["b", "e", "f"]);
        expect(keysOf(lines).get("b")).toBe(firstKeys.get(runId)?.get("b"));
        expect(decided[runId]).toMatchObject({ output: "From 4: a ok, b ok, e ok, f ok", stopReason: "budget" });
        await checkRecord(store, runId, decided[runId]?.live, "From 4: a ok, b ok, e ok, f ok");
      }
    }, 60_000);
  },
];

await describeKillTests("eagerTools: killed around the partial turn a halt keeps", { sqlite: cases, postgres: cases });
