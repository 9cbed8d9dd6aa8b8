// Every action `agentrx ui` starts is answered, whatever happens before the run's first event: a
// cancel, the server closing, an executor that throws, or a second start of the same run
// (docs/trace-viewer.md, "Acting on runs from the page"). The store holds a call until the test
// releases it, so each race is played in a fixed order.
import type { AgentAction, AgentFinish, AgentInput } from "@agentrx/core";
import { AgentExecutor, RunBusyError, type RunStore } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { RunActions, type UiActionExecutor } from "./run-actions";

/** A store call held until `release()`: `reached` resolves with its arguments once it is made. */
interface Hold {
  reached: Promise<unknown[]>;
  release(): void;
}

let base: MemoryRunStore;
/** The holds waiting for the next call of a method, with whether they hold it before it reaches the store. */
let holds: Map<string, { before: boolean; arrive: (args: unknown[]) => void; released: Promise<void> }>;
let releases: (() => void)[];
let store: RunStore;
let logged: string[];
/** Resolves when the agent of a run that waits (input "wait") is aborted. */
let aborted: Promise<void>;
let onAbort: () => void;

/** Holds the next call of `method`: `before` it reaches the store, or (the default) after it did, before its answer. */
function hold(method: keyof RunStore, { before = false } = {}): Hold {
  let arrive!: (args: unknown[]) => void;
  const reached = new Promise<unknown[]>((resolve) => (arrive = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  holds.set(method, { before, arrive, released });
  releases.push(release);
  return { reached, release };
}

const remove = withApproval(tool(async ({ path }: { path: string }) => `removed ${path}`, { name: "delete_file", description: "Deletes a file.", schema: z.object({ path: z.string() }) }));
/** "delete": deletes `/tmp/0` (the call pauses for approval), then answers; "wait": waits until aborted; else answers. */
const agent = RunnableLambda.from(async (input: AgentInput, config): Promise<AgentAction[] | AgentFinish> => {
  if (input.input === "wait") {
    await new Promise((_, reject) =>
      config?.signal?.addEventListener("abort", () => {
        onAbort();
        reject(new Error("aborted"));
      }, { once: true }),
    );
  }
  if (input.input === "delete" && input.steps.length === 0) return [{ tool: "delete_file", toolInput: { path: "/tmp/0" }, log: "", toolCallId: "call_0", messageLog: [] } as unknown as AgentAction];
  return { returnValues: { output: "Done." }, log: "" };
});

/** A run recorded as failed (its process stopped with an error), with `input`. */
async function failedRun(runId: string, input = "go"): Promise<void> {
  const at = Date.now();
  await base.createRun({ runId, inputs: { input }, status: "running", owner: "gone", leaseMs: 60_000, at });
  await base.write(runId, { owner: "gone", leaseMs: 60_000, events: [], update: { status: "failed", error: "model down", release: true }, at });
}

let executor: AgentExecutor;
let actions: RunActions;

beforeEach(() => {
  base = new MemoryRunStore();
  holds = new Map();
  releases = [];
  logged = [];
  aborted = new Promise((resolve) => (onAbort = resolve));
  store = new Proxy(base, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const held = holds.get(String(key));
        if (held === undefined) return (value as (...args: unknown[]) => unknown).apply(target, args);
        holds.delete(String(key));
        if (held.before) {
          held.arrive(args);
          await held.released;
          return (value as (...args: unknown[]) => unknown).apply(target, args);
        }
        const answer = await (value as (...args: unknown[]) => Promise<unknown>).apply(target, args);
        held.arrive(args);
        await held.released;
        return answer;
      };
    },
  }) as RunStore;
  executor = new AgentExecutor({ agent, tools: [remove], store: base });
  actions = new RunActions(executor, store, "token", (message) => logged.push(message));
});

afterEach(() => {
  for (const release of releases) release();
  actions.stopAll();
});

describe("a start of agentrx ui stopped before its run's first event", () => {
  it("a cancel while a resume is starting answers both: the resume 409, the cancel 200; the run is left failed", async () => {
    await failedRun("r1");
    const claim = hold("claimRun");
    const resume = actions.perform("r1", { action: "resume" });
    await claim.reached;
    expect(await actions.perform("r1", { action: "cancel" })).toEqual({ status: 200, body: { runId: "r1" } });
    expect(await resume).toEqual({ status: 409, body: { error: "could not resume run r1: it was cancelled before it started" } });
    claim.release();
    // The executor gives the claim back: the run is as it was before the resume.
    await expect.poll(async () => (await base.getRun("r1"))?.status, { timeout: 10_000 }).toBe("failed");
    expect(logged).toEqual([]);
  });

  it("a cancel while a decision's resume is starting answers the decision 409; the run stays paused", async () => {
    await lastValueFrom(executor.stream({ input: "delete" }, { runId: "paused" }));
    const claim = hold("claimRun");
    const approve = actions.perform("paused", { action: "approve", interruptId: "call-0-0" });
    await claim.reached;
    expect(await actions.perform("paused", { action: "cancel" })).toEqual({ status: 200, body: { runId: "paused" } });
    expect(await approve).toEqual({ status: 409, body: { error: "could not resume run paused with the decision for call-0-0: it was cancelled before it started" } });
    claim.release();
    await expect.poll(async () => (await base.getRun("paused"))?.status, { timeout: 10_000 }).toBe("interrupted");
  });

  it("a cancel of a fork being made answers the fork 409; the fork's run is deleted", async () => {
    await lastValueFrom(executor.stream({ input: "go" }, { runId: "source" }));
    const create = hold("createRun");
    const fork = actions.perform("source", { action: "fork" });
    const [{ runId: forkId }] = (await create.reached) as [{ runId: string }];
    expect(await actions.perform(forkId, { action: "cancel" })).toEqual({ status: 200, body: { runId: forkId } });
    expect(await fork).toEqual({ status: 409, body: { error: "could not fork run source: it was cancelled before it started" } });
    create.release();
    await expect.poll(async () => await base.getRun(forkId), { timeout: 10_000 }).toBeUndefined();
  });

  it("closing the server while a resume is starting answers it 503", async () => {
    await failedRun("r2");
    const claim = hold("claimRun");
    const resume = actions.perform("r2", { action: "resume" });
    await claim.reached;
    actions.stopAll();
    expect(await resume).toEqual({ status: 503, body: { error: "could not resume run r2: agentrx ui closed before it started" } });
  });
});

describe("a start of agentrx ui that fails before it started", () => {
  it("a fork whose source run is deleted meanwhile is a 404 naming the source, not the fork", async () => {
    await lastValueFrom(executor.stream({ input: "go" }, { runId: "doomed" }));
    // The action's own read finds the source; it is deleted before the fork reads it.
    const read = hold("getRun");
    const fork = actions.perform("doomed", { action: "fork" });
    await read.reached;
    await base.deleteRun("doomed");
    read.release();
    expect(await fork).toEqual({ status: 404, body: { error: 'no run "doomed"' } });
  });

  it("an executor that throws rather than erroring its observable is answered as an error it emitted", async () => {
    await failedRun("r3");
    let thrown: Error = new RunBusyError({ runId: "r3", owner: "worker-2" });
    const throwing: UiActionExecutor = {
      resume: () => {
        throw thrown;
      },
      fork: () => {
        throw thrown;
      },
    };
    const own = new RunActions(throwing, store, "token", (message) => logged.push(message));
    const busy = await own.perform("r3", { action: "resume" });
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatch(/^Run "r3" is running in another process \(worker-2\)/);

    thrown = new Error("executor misconfigured");
    expect(await own.perform("r3", { action: "resume" })).toEqual({ status: 500, body: { error: "could not resume run r3: executor misconfigured" } });
    expect(logged).toEqual(["could not resume run r3: executor misconfigured"]);
  });
});

describe("two actions of agentrx ui starting one run at once", () => {
  it("the one the executor refuses does not make the server forget the other: closing still stops it", async () => {
    await failedRun("r4", "wait");
    // The first resume waits before it claims the run; the second claims it and runs.
    const claim = hold("claimRun", { before: true });
    const first = actions.perform("r4", { action: "resume" });
    await claim.reached;
    expect(await actions.perform("r4", { action: "resume" })).toEqual({ status: 202, body: { runId: "r4" } });
    claim.release();
    const refused = await first;
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/^Run "r4" is running in another process/);
    expect((await actions.pageActions((await base.getRun("r4"))!)).cancel).toBe(true);
    actions.stopAll();
    await aborted;
    await expect.poll(async () => (await base.getRun("r4"))?.status, { timeout: 10_000 }).toBe("cancelled");
  });
});
