import type { AgentInput } from "@agentrx/core";
import { AgentExecutor, errorMessageOf, printTrace, readRecordedEvents, type RunInfo, type RunStore } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { MiddlewareError } from "../middleware/middleware-error";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { act } from "./test-helpers";

// A run failed by a thrown value that is not an `Error` (what HTTP and SDK clients often throw):
// its recorded `error`, the trace's `error` line and a span's status say what it was, never
// `[object Object]`; the run still rejects with the value itself.

const quota = () => ({ message: "quota exceeded", status: 429 });

/** An agent that throws `thrown` on its first call. */
function throwingAgent(thrown: unknown) {
  return RunnableLambda.from(async (_input: AgentInput) => {
    throw thrown;
  });
}

/** An agent that calls tool `fail` once; the tool throws `thrown`, and the executor rethrows it. */
function throwingTool(thrown: unknown, store: RunStore) {
  const fail = tool(
    async () => {
      throw thrown;
    },
    { name: "fail", description: "Fails.", schema: z.object({}) },
  );
  const agent = RunnableLambda.from(async (_input: AgentInput) => act("fail"));
  return new AgentExecutor({ agent, tools: [fail], handleToolRuntimeErrors: false, store });
}

/** Runs `executor` as `runId`; resolves with what it rejected with and the run's row. */
async function failedRun(executor: AgentExecutor, store: RunStore, runId: string): Promise<{ rejection: unknown; info: RunInfo | undefined }> {
  const rejection = await executor.invoke({ input: "go" }, { runId }).then(
    () => "resolved",
    (error: unknown) => error,
  );
  return { rejection, info: await store.getRun(runId) };
}

afterEach(() => {
  trace.disable();
});

describe("a run failed by a thrown value that is not an Error", () => {
  it("an agent that throws { message, status }: the record's error is the message; invoke rejects with the object itself", async () => {
    const store = new InProcessRunStore();
    const thrown = quota();
    const { rejection, info } = await failedRun(new AgentExecutor({ agent: throwingAgent(thrown), tools: [], store }), store, "agent-quota");
    expect(rejection).toBe(thrown);
    expect(info?.status).toBe("failed");
    expect(info?.error).toBe("quota exceeded");
  });

  it("a tool with handleToolRuntimeErrors: false that throws { message, status }: the record's error is the message; invoke rejects with the object itself", async () => {
    const store = new InProcessRunStore();
    const thrown = quota();
    const { rejection, info } = await failedRun(throwingTool(thrown, store), store, "tool-quota");
    expect(rejection).toBe(thrown);
    expect(info?.status).toBe("failed");
    expect(info?.error).toBe("quota exceeded");
  });

  it.each([
    ["a string", "rate limited", "rate limited"],
    ["a number", 429, "429"],
    ["null", null, "null"],
    ["an object without a message", { status: 429, code: "rate_limit" }, '{"status":429,"code":"rate_limit"}'],
    ["an object with its own toString", { toString: () => "HTTP 429" }, "HTTP 429"],
    ["an object without a prototype or fields", Object.create(null), "something threw an object without a prototype that cannot be shown as text"],
  ])("an agent that throws %s: the record's error says what it was", async (_what, thrown, expected) => {
    const store = new InProcessRunStore();
    const { rejection, info } = await failedRun(new AgentExecutor({ agent: throwingAgent(thrown), tools: [], store }), store, "agent-value");
    expect(rejection).toBe(thrown);
    expect(info?.error).toBe(expected);
  });

  it("an Error is still written `Name: message`", async () => {
    const store = new InProcessRunStore();
    const { info } = await failedRun(new AgentExecutor({ agent: throwingAgent(new TypeError("bad")), tools: [], store }), store, "agent-error");
    expect(info?.error).toBe("TypeError: bad");
  });

  it("printTrace's error line shows the message", async () => {
    const thrown = quota();
    const lines: string[] = [];
    const executor = new AgentExecutor({ agent: throwingAgent(thrown), tools: [] });
    await expect(printTrace(executor.stream({ input: "go" }), { write: (text) => void lines.push(text), colors: false })).rejects.toBe(thrown);
    expect(lines.join("")).toMatchInlineSnapshot(`
      "error   quota exceeded
      "
    `);
  });

  it("the run's span has the message as its status", async () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("test");
    const executor = new AgentExecutor({ agent: throwingAgent({ status: 429 }), tools: [], telemetry: { tracer } });
    await expect(executor.invoke({ input: "go" })).rejects.toEqual({ status: 429 });
    const failed = exporter.getFinishedSpans().filter((span) => span.status.code === 2);
    expect(failed.length).toBeGreaterThan(0);
    for (const span of failed) expect(span.status.message, span.name).toBe('{"status":429}');
  });

  it("a middleware that throws { message, status }: the MiddlewareError names the message", () => {
    const error = new MiddlewareError({ middleware: "audit", hook: "afterTurn", cause: quota() });
    expect(error.message).toBe('Middleware "audit" failed in afterTurn: quota exceeded');
  });
});

describe("a resume aborted with a reason that is not an Error", () => {
  it("the run given back says the reason's message", async () => {
    const inner = new InProcessRunStore();
    await inner.createRun({ runId: "crashed", inputs: { input: "go" }, status: "running", owner: "a-dead-process", leaseMs: 1, at: Date.now() - 60_000 });
    const controller = new AbortController();
    // The signal aborts while the store is claiming the run.
    const store = new Proxy(inner, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== "function") return value;
        const call = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
        if (name !== "claimRun") return call;
        return async (...args: unknown[]) => {
          const claimed = await call(...args);
          controller.abort(quota());
          return claimed;
        };
      },
    });
    const executor = new AgentExecutor({ agent: throwingAgent(new Error("never called")), tools: [], store });
    await expect(executor.resume("crashed", { signal: controller.signal })).rejects.toThrow();
    expect((await inner.getRun("crashed"))?.error).toBe(
      "The run had been left running by a process that stopped; a resume of it was aborted before it went on (quota exceeded).",
    );
  });
});

describe("reading a record when the store throws a value that is not an Error", () => {
  /** A store whose reads throw `thrown`. */
  function failingStore(thrown: unknown, info?: RunInfo): RunStore {
    const store = new InProcessRunStore();
    return Object.assign(Object.create(store) as RunStore, {
      getRun: async () => {
        if (info !== undefined) return info;
        throw thrown;
      },
      readEvents: async () => {
        throw thrown;
      },
    });
  }

  it("reading the run: the RunStoreError says the store's message", async () => {
    const read = readRecordedEvents(failingStore(quota()), "r1", "agentrx show").next();
    await expect(read).rejects.toThrow('agentrx show: reading run "r1" failed: quota exceeded');
  });

  it("reading its events: the RunStoreError says the store's message", async () => {
    const info = { runId: "r2", eventCount: 1 } as RunInfo;
    const read = readRecordedEvents(failingStore({ code: "ECONNRESET" }, info), "r2", "agentrx show", 500, info).next();
    await expect(read).rejects.toThrow('agentrx show: reading the events of run "r2" after event 0 failed: {"code":"ECONNRESET"}');
  });

  it("recording: a store whose write throws { message, status } fails the run with a RunStoreError that says the message", async () => {
    const store = Object.assign(Object.create(new InProcessRunStore()) as RunStore, {
      write: async () => {
        throw quota();
      },
    });
    const executor = new AgentExecutor({ agent: RunnableLambda.from(async (_input: AgentInput) => ({ returnValues: { output: "done" }, log: "" })), tools: [], store });
    await expect(executor.invoke({ input: "go" }, { runId: "unwritten" })).rejects.toThrow('Run "unwritten": recording failed: quota exceeded');
  });

  it("resuming: a store whose getRun throws an object without a message names it in the RunStoreError", async () => {
    const store = failingStore({ code: "ECONNRESET" });
    const executor = new AgentExecutor({ agent: throwingAgent(new Error("never called")), tools: [], store });
    await expect(executor.resume("r3")).rejects.toThrow('Run "r3": the store\'s getRun failed: {"code":"ECONNRESET"}');
  });

  it("errorMessageOf: a thrown object's message, else its JSON; an Error's message", () => {
    expect(errorMessageOf(quota())).toBe("quota exceeded");
    expect(errorMessageOf({ status: 429 })).toBe('{"status":429}');
    expect(errorMessageOf(new Error("disk full"))).toBe("disk full");
    expect(errorMessageOf("gone")).toBe("gone");
    expect(errorMessageOf(undefined)).toBe("undefined");
  });
});
