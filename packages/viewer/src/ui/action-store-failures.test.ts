// `agentrx ui` answers an action whose run fails before it starts because the store failed with
// `500` and a one-line error naming the failure (docs/trace-viewer.md): not with the `409` of a run
// whose state refuses the action, which stays for genuine conflicts (another process holds it).
import type { AgentAction, AgentFinish, AgentInput } from "@agentrx/core";
import { AgentExecutor, RunBusyError, type RunStore } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startUiServer, type UiServer } from "./start-ui-server";

const base = new MemoryRunStore();
/** The store's methods that fail now, each with the error it throws. */
const failing = new Map<string, () => Error>();
/** `base`, except that a method named in `failing` rejects with its error. */
const store = new Proxy(base, {
  get(target, key) {
    const value: unknown = Reflect.get(target, key, target);
    if (typeof value !== "function") return value;
    return (...args: unknown[]) => {
      const error = failing.get(String(key));
      return error === undefined ? (value as (...args: unknown[]) => unknown).apply(target, args) : Promise.reject(error());
    };
  },
}) as RunStore;

const remove = withApproval(tool(async ({ path }: { path: string }) => `removed ${path}`, { name: "delete_file", description: "Deletes a file.", schema: z.object({ path: z.string() }) }));
/** Deletes `/tmp/0` (the call paused for approval), then answers. */
const agent = RunnableLambda.from(async (input: AgentInput): Promise<AgentAction[] | AgentFinish> => {
  if (input.steps.length === 0) return [{ tool: "delete_file", toolInput: { path: "/tmp/0" }, log: "", toolCallId: "call_0", messageLog: [] } as unknown as AgentAction];
  return { returnValues: { output: "Deleted." }, log: "" };
});
const executor = new AgentExecutor({ agent, tools: [remove], store: base });
const logged: string[] = [];
let server: UiServer;
let token: string;

beforeAll(async () => {
  server = await startUiServer({ store, source: "memory", port: 0, executor, onError: (message) => logged.push(message) });
  await lastValueFrom(executor.stream({ input: "delete" }, { runId: "paused" }));
  const at = Date.now();
  await base.createRun({ runId: "failed", inputs: { input: "delete" }, status: "running", owner: "gone", leaseMs: 60_000, at });
  await base.write("failed", { owner: "gone", leaseMs: 60_000, events: [], update: { status: "failed", error: "model down", release: true }, at });
  const html = await (await fetch(`${server.url}/runs/paused`)).text();
  token = /"actions":\{"token":"([^"]+)"/.exec(html)?.[1] as string;
});

afterEach(() => {
  failing.clear();
  logged.length = 0;
});

afterAll(async () => {
  await server?.close();
});

async function act(runId: string, body: unknown): Promise<{ status: number; error?: string }> {
  const response = await fetch(`${server.url}/api/runs/${runId}/actions`, { method: "POST", headers: { "content-type": "application/json", "x-agentrx-token": token }, body: JSON.stringify(body) });
  return { status: response.status, ...((await response.json()) as { error?: string }) };
}

describe("an action agentrx ui cannot start because the store fails", () => {
  it("a resume whose claim the store fails is a 500 naming the store call; the run stays as it was", async () => {
    failing.set("claimRun", () => new Error("disk full"));
    const answer = await act("failed", { action: "resume" });
    expect(answer).toEqual({ status: 500, error: 'could not resume run failed: Run "failed": the store\'s claimRun failed: disk full' });
    expect(logged).toEqual([answer.error]);
    failing.clear();
    expect(await base.getRun("failed")).toMatchObject({ status: "failed", error: "model down" });
  });

  it("a decision whose resume the store fails is a 500, without a stack; the run stays paused", async () => {
    failing.set("claimRun", () => new Error("connection reset"));
    const answer = await act("paused", { action: "approve", interruptId: "call-0-0" });
    expect(answer.status).toBe(500);
    expect(answer.error).toBe('could not resume run paused with the decision for call-0-0: Run "paused": the store\'s claimRun failed: connection reset');
    expect(answer.error).not.toMatch(/\n\s+at /);
    failing.clear();
    expect((await base.getRun("paused"))?.status).toBe("interrupted");
  });

  it("a fork whose new run the store cannot create is a 500", async () => {
    failing.set("createRun", () => new Error("disk full"));
    const answer = await act("paused", { action: "fork", at: 0 });
    expect(answer.status).toBe(500);
    expect(answer.error).toMatch(/^could not fork run paused: .*disk full/);
  });

  it("a store that fails to read the run at all is a 500 too", async () => {
    failing.set("getRun", () => new Error("database is locked"));
    expect(await act("paused", { action: "approve", interruptId: "call-0-0" })).toEqual({ status: 500, error: "database is locked" });
  });

  it("another process holding the run is still a 409: a conflict with the run's state, not a failure", async () => {
    failing.set("claimRun", () => new RunBusyError({ runId: "failed", owner: "worker-2" }));
    const answer = await act("failed", { action: "resume" });
    expect(answer.status).toBe(409);
    expect(answer.error).toMatch(/^Run "failed" is running in another process \(worker-2\)/);
    expect(logged).toEqual([]);
  });
});
