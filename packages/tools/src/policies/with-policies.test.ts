import { InvalidArgumentError, getToolApproval, getToolInDoubt } from "@agentrx/core";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool, DynamicTool, tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withApproval } from "../approval/with-approval";
import { withInDoubt } from "../approval/with-in-doubt";
import { cachePolicy } from "./cache-policy";
import { retryPolicy } from "./retry-policy";
import { configWithMetadata } from "./test-helpers";
import { timeoutPolicy } from "./timeout-policy";
import { PolicyTool, withPolicies, type ToolPolicy } from "./with-policies";

const echo = tool(async ({ text }, config) => `${text}${config?.signal ? " (signal)" : ""}`, {
  name: "echo",
  description: "Echoes text.",
  schema: z.object({ text: z.string() }),
  returnDirect: true,
});

const tagPolicy = (tag: string, log: string[]): ToolPolicy => async (_context, next) => {
  log.push(`${tag}:before`);
  const result = await next(_context.config);
  log.push(`${tag}:after`);
  return result;
};

describe("withPolicies", () => {
  it("keeps the tool's name, description, schema and returnDirect", () => {
    const wrapped = withPolicies(echo, []);
    expect(wrapped.name).toBe("echo");
    expect(wrapped.description).toBe("Echoes text.");
    expect(wrapped.schema).toBe(echo.schema);
    expect(wrapped.returnDirect).toBe(true);
  });

  it("runs policies outermost first and returns the tool's result", async () => {
    const log: string[] = [];
    const wrapped = withPolicies(echo, [tagPolicy("outer", log), tagPolicy("inner", log)]);
    await expect(wrapped.invoke({ text: "hi" })).resolves.toBe("hi");
    expect(log).toEqual(["outer:before", "inner:before", "inner:after", "outer:after"]);
  });

  it("flattens a wrapped tool instead of nesting wrappers, new policies outside", async () => {
    const log: string[] = [];
    const once = withPolicies(echo, [tagPolicy("first", log)]);
    const twice = withPolicies(once, [tagPolicy("second", log)]);
    expect(twice.inner).toBe(echo);
    expect(twice.policies).toHaveLength(2);
    await twice.invoke({ text: "x" });
    expect(log).toEqual(["second:before", "first:before", "first:after", "second:after"]);
  });

  it("rejects arguments that do not match the schema before any policy runs", async () => {
    const log: string[] = [];
    const wrapped = withPolicies(echo, [tagPolicy("p", log)]);
    await expect(wrapped.invoke({ text: 42 } as never)).rejects.toThrow(/did not match expected schema/);
    await expect(wrapped.invoke({} as never)).rejects.toThrow(/did not match expected schema/);
    expect(log).toEqual([]);
  });

  it("answers a tool call with a ToolMessage carrying its id, also from the cache", async () => {
    const wrapped = withPolicies(echo, [cachePolicy()]);
    const first = await wrapped.invoke({ type: "tool_call", id: "call_1", name: "echo", args: { text: "a" } });
    const second = await wrapped.invoke({ type: "tool_call", id: "call_2", name: "echo", args: { text: "a" } });
    expect(first).toBeInstanceOf(ToolMessage);
    expect([first.tool_call_id, second.tool_call_id]).toEqual(["call_1", "call_2"]);
    expect(second.content).toBe("a");
  });

  it("passes the caller's signal and callbacks to the tool, as a child run", async () => {
    const events: string[] = [];
    class Recorder extends BaseCallbackHandler {
      name = "recorder";
      override handleToolStart(_tool: unknown, _input: string, runId: string, parentRunId?: string) {
        events.push(`start:${parentRunId ? "child" : "root"}:${runId.length > 0}`);
      }
    }
    const controller = new AbortController();
    const wrapped = withPolicies(echo, []);
    const result = await wrapped.invoke({ text: "s" }, { signal: controller.signal, callbacks: [new Recorder()] });
    expect(result).toBe("s (signal)");
    expect(events).toEqual(["start:root:true", "start:child:true"]);
  });

  it("does not start a call whose signal has already aborted, even for a tool that does not check it", async () => {
    let runs = 0;
    const unchecked = new DynamicStructuredTool({
      name: "unchecked",
      description: "Does not look at its signal.",
      schema: z.object({}),
      func: async () => {
        runs += 1;
        return "ran";
      },
    });
    const controller = new AbortController();
    controller.abort();
    for (const policies of [[], [timeoutPolicy({ ms: 1000 })], [retryPolicy()], [cachePolicy()]]) {
      const { config, metadata } = configWithMetadata({ signal: controller.signal });
      await expect(withPolicies(unchecked, policies).invoke({}, config)).rejects.toMatchObject({ name: "AbortError" });
      expect(metadata.error).toEqual(expect.any(String));
    }
    expect(runs).toBe(0);
  });

  it("writes durationMs and the error into the executor's step metadata", async () => {
    const failing = tool(async () => {
      throw new Error("broken pipe");
    }, { name: "failing", description: "Fails.", schema: z.object({}) });
    const ok = configWithMetadata();
    await withPolicies(echo, []).invoke({ text: "a" }, ok.config);
    expect(typeof ok.metadata.durationMs).toBe("number");
    const bad = configWithMetadata();
    await expect(withPolicies(failing, []).invoke({}, bad.config)).rejects.toThrow("broken pipe");
    expect(bad.metadata.error).toBe("broken pipe");
    expect(typeof bad.metadata.durationMs).toBe("number");
  });

  it("wraps string tools and content-and-artifact tools", async () => {
    const upper = new DynamicTool({ name: "upper", description: "Upper-cases.", func: async (input) => input.toUpperCase() });
    await expect(withPolicies(upper, []).invoke("abc")).resolves.toBe("ABC");
    const withArtifact = tool(async ({ n }) => [`n=${n}`, { n }], {
      name: "artifact",
      description: "Returns an artifact.",
      schema: z.object({ n: z.number() }),
      responseFormat: "content_and_artifact",
    });
    const message = await withPolicies(withArtifact, []).invoke({ type: "tool_call", id: "c", name: "artifact", args: { n: 2 } });
    expect(message.content).toBe("n=2");
    expect(message.artifact).toEqual({ n: 2 });
    expect(withPolicies(withArtifact, [])).toBeInstanceOf(PolicyTool);
  });

  it("refuses what is not a tool or not a list of policies", () => {
    expect(() => withPolicies({} as never, [])).toThrow(/withPolicies needs a @langchain\/core tool/);
    expect(() => withPolicies(echo, [cachePolicy(), "retry" as never])).toThrow(/policies\[1\] is not a function/);
    expect(() => withPolicies(echo, cachePolicy() as never)).toThrow(InvalidArgumentError);
  });

  it("keeps a tool's approval and in-doubt marks on the wrapper, however the wrappers are nested", () => {
    const base = tool(async () => "sent", { name: "send", description: "Sends.", schema: z.object({}) });
    const needs = () => true;
    const wrappedOnce = withPolicies(withInDoubt(withApproval(base, needs), "interrupt"), [timeoutPolicy({ ms: 1000 })]);
    const wrappedTwice = withPolicies(withInDoubt(withApproval(withPolicies(base, [timeoutPolicy({ ms: 1000 })]), true), "fail"), [retryPolicy()]);
    expect(getToolInDoubt(wrappedOnce)).toBe("interrupt");
    expect(typeof getToolApproval(wrappedOnce)).toBe("function");
    expect(getToolInDoubt(wrappedTwice)).toBe("fail");
    expect(getToolApproval(wrappedTwice)).toBe(true);
    expect(wrappedTwice.policies).toHaveLength(2);
    expect(getToolInDoubt(withPolicies(base, []))).toBeUndefined();
    expect(getToolApproval(withPolicies(base, []))).toBeUndefined();
  });
});
