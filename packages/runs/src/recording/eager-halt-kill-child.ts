// Test-only: one process of the eager-halt kill test (eager-halt-kill.test.ts). Runs (or resumes)
// recorded runs of a tool-calling agent whose model streams four tool calls while `eagerTools`
// starts them and `toolCallBudget(2)` halts the run at the third: the two calls that finished are
// kept as the agent call's partial turn (see docs/executor-options.md, eagerTools). Where the
// parent wants a run "killed", the store stops taking that run's writes (the write never settles,
// so nothing more of that run becomes durable) and a marker file tells the parent, which SIGKILLs
// the process once every run reached its point. Every tool start and model call is appended to
// the effects file, one line each.
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createToolCallingAgent } from "@agentrx/agents";
import { type InDoubtPolicy, getIdempotencyKey } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type Decision, type RunStore, type RunWrite, serializeRunState, toolCallBudget } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { type ExecutorRun, executorRunProbe } from "../../../executors/src/executor/executor-run";
import { type ChildStoreTarget, openChildStore, whenLeaseFree } from "./child-store";

/**
 * Where a run stops being recorded:
 * `partial-turn`: the write that holds the partial turn's `action` (early) events never lands;
 * `partial-turn-split`: of that write, the events up to its last `action` land, the rest (the
 * `step`s) never do (as a store that wrote them in two writes would leave it);
 * `output`: the write that holds the run's `output` lands, nothing after it does.
 */
export type HaltBlock = "partial-turn" | "partial-turn-split" | "output";

/** One run of a child. */
export interface HaltRun {
  runId: string;
  /**
   * What halts the run while the model streams: `budget` (default), `toolCallBudget(2)` at the
   * third call; `time`, `maxExecutionTime` while b still runs (in the `run` process b waits until
   * the halt aborts it; a resume runs without the time limit).
   */
  halt?: "budget" | "time";
  /** With `run`: where its recording stops. */
  block?: HaltBlock;
  /** With `resume`: the executor's in-doubt policy. */
  inDoubt?: InDoubtPolicy;
  /** With `resume`: decisions for the run's pause. */
  decisions?: Record<string, Decision>;
}

/** The arguments of one child process. */
export interface HaltChildArgs {
  mode: "run" | "resume";
  store: ChildStoreTarget;
  /** Where the markers and the effects file are. */
  dir: string;
  runs: HaltRun[];
}

/** What a marker file holds: the event types of the write it stopped at, and the live run's state then. */
export interface HaltMarker {
  types: string[];
  live: unknown;
}

/** What the `resume` child prints, by run id. */
export type HaltResumed = Record<string, { output?: unknown; stopReason?: string; interrupts?: unknown[]; live?: unknown; error?: string }>;

/** The marker file of a run's block (the test names it the same way). */
const haltMarker = (dir: string, runId: string) => join(dir, `${runId}.halt.blocked`);

const args = JSON.parse(process.argv[2] as string) as HaltChildArgs;
const effect = (line: string) => appendFileSync(join(args.dir, "effects.log"), `${line}\n`);

const made: ExecutorRun[] = [];
executorRunProbe.made = (run) => void made.push(run);
/** The serialized state of the latest live run of `runId` in this process. */
const liveState = (runId: string) => {
  const run = made.filter((candidate) => candidate.state.runId === runId).at(-1);
  return run === undefined ? undefined : serializeRunState(run.state);
};

const timed = new Set(args.runs.filter((run) => run.halt === "time").map((run) => run.runId));
const work = tool(
  async ({ job }: { job: string }, config) => {
    const key = String(getIdempotencyKey(config));
    const runId = key.slice(0, key.indexOf(":"));
    effect(`start ${runId} ${job} ${key}`);
    if (args.mode === "run" && timed.has(runId) && job === "b") {
      await new Promise((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    }
    return `${job} ok`;
  },
  { name: "work", description: "Does a job.", schema: z.object({ job: z.string() }) },
);

// The run's input is its id. Its first call streams four calls (a, b, c, d), 150 ms a chunk (two
// chunks a call, a call starting early once the next one begins); a later call with tools streams
// three more (e, f, g); the "generate" call (no tools) answers with the results it saw.
const script = (slowC: boolean) => new ScriptedChatModel({
  streaming: true,
  tokenDelayMs: 150,
  onExhausted: "repeat-last",
  responses: [
    (messages, call) => {
      const runId = messages.find((message) => message.getType() === "human")?.text ?? "?";
      const results = messages.filter((message) => message.getType() === "tool").map((message) => message.text);
      effect(`model ${runId} ${call.toolNames.length === 0 ? "generate" : "tools"} ${results.length}`);
      if (call.toolNames.length === 0) return `From ${results.length}: ${results.join(", ")}`;
      const jobs = results.length === 0 ? ["a", "b", "c", "d"] : results.some((result) => result.startsWith("e ")) ? [] : ["e", "f", "g"];
      if (jobs.length === 0) return `Done: ${results.join(", ")}`;
      // With `slowC`, c's arguments stream for seconds (40 chunks): the time limit comes while b runs.
      return { toolCalls: jobs.map((job) => ({ name: "work", args: slowC && job === "c" ? { job, note: "x".repeat(320) } : { job }, id: `c${job}` })) };
    },
  ],
});
const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

const store = openChildStore(args.store);
const blocks = new Map(args.runs.flatMap((run) => (run.block === undefined ? [] : [[run.runId, run.block] as const])));

/** The store, with each run's write stopped where its block says. */
function blockingStore(inner: RunStore): RunStore {
  const marked = new Set<string>();
  const mark = (runId: string, types: string[]) => {
    marked.add(runId);
    writeFileSync(haltMarker(args.dir, runId), JSON.stringify({ types, live: liveState(runId) } satisfies HaltMarker));
  };
  return new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name === "write") {
        return async (runId: string, write: RunWrite) => {
          const block = blocks.get(runId);
          if (block === undefined) return target.write(runId, write);
          if (marked.has(runId)) return new Promise(() => undefined); // "killed": nothing more lands
          const types = write.events.map((event) => event.type);
          const partial = write.events.some((event) => event.type === "action" && event.data["early"] === true);
          if (block === "partial-turn" && partial) {
            mark(runId, types);
            return new Promise(() => undefined);
          }
          if (block === "partial-turn-split" && partial) {
            const cut = types.lastIndexOf("action") + 1;
            await target.write(runId, { ...write, events: write.events.slice(0, cut) });
            mark(runId, types);
            return new Promise(() => undefined);
          }
          const result = await target.write(runId, write);
          if (block === "output" && types.includes("output")) mark(runId, types);
          return result;
        };
      }
      return typeof value === "function" ? (value as (...rest: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const executors = new Map<string, AgentExecutor>();
/** The executor of a run (every process makes the same ones: the same agent, tools and options). */
function executorOf({ inDoubt, halt = "budget" }: HaltRun): AgentExecutor {
  let executor = executors.get(`${inDoubt} ${halt}`);
  if (executor === undefined) {
    const llm = script(halt === "time");
    executor = new AgentExecutor({
      agent: createToolCallingAgent({ llm, tools: [work], prompt }),
      tools: [work],
      store: blockingStore(store),
      eagerTools: true,
      earlyStoppingMethod: "generate",
      stopWhen: toolCallBudget(2),
      returnIntermediateSteps: true,
      leaseMs: 500,
      ...(inDoubt === undefined ? {} : { inDoubt }),
      ...(halt === "time" && args.mode === "run" ? { maxExecutionTime: 2500 } : {}),
    });
    executors.set(`${inDoubt} ${halt}`, executor);
  }
  return executor;
}

/** Resumes a run, waiting out the lease a killed process left behind. */
function resumeWhenFree(run: HaltRun) {
  return whenLeaseFree(() => executorOf(run).resume(run.runId, run.decisions === undefined ? {} : { decisions: run.decisions }));
}

if (args.mode === "run") {
  // Every run goes until its block; the parent kills this process once all of them reached it
  // (until then it stays up, whatever its runs wait for).
  setInterval(() => undefined, 1000);
  for (const run of args.runs) executorOf(run).invoke({ input: run.runId }, { runId: run.runId }).catch((error: unknown) => effect(`error ${run.runId} ${String(error)}`));
} else {
  const out: HaltResumed = {};
  await Promise.all(
    args.runs.map(async (run) => {
      try {
        const result = await resumeWhenFree(run);
        out[run.runId] = { output: result.output, stopReason: result.stopReason, interrupts: result.interrupts ?? [], live: liveState(run.runId) };
      } catch (error) {
        out[run.runId] = { error: `${(error as Error).name}: ${(error as Error).message}` };
      }
    }),
  );
  process.stdout.write(JSON.stringify(out));
  await store.close();
}
