// EagerDispatch alone, over a plain fake of its narrow context (EagerDispatchContext): the fake's
// `startCall` records each early start and the signal it was given.
import { AbortError, markToolApproval } from "@agentrx/core";
import type { AgentAction } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { EagerDispatch, type EagerDispatchContext } from "./eager-dispatch";
import type { EarlyCall } from "./tool-runner";

const fakeTool = (name: string): StructuredToolInterface => ({ name, invoke: () => Promise.resolve("") }) as unknown as StructuredToolInterface;

function fakeRun(tools: StructuredToolInterface[], options: { eager?: (tool: StructuredToolInterface) => boolean; approvalOption?: boolean } = {}) {
  const controller = new AbortController();
  const started: { action: AgentAction; signal: AbortSignal; call: EarlyCall }[] = [];
  const run = {
    options: {
      toolsByName: new Map(tools.map((t) => [t.name, t])),
      eager: "eager" in options ? options.eager : () => true,
      approvalOption: options.approvalOption ?? false,
    },
    signal: controller.signal,
    interrupted: false,
    startCall(action: AgentAction, signal: AbortSignal): EarlyCall {
      const call: EarlyCall = { action, start: 0, key: `key-${started.length}`, result: Promise.resolve({ observation: "early", metadata: undefined }), controller: undefined };
      started.push({ action, signal, call });
      return call;
    },
  } satisfies EagerDispatchContext;
  return { run, started, controller };
}

const streamed = (name: string, args: string, id?: string) => ({ id, name, args });
const toolCall = (tool: string, toolInput: Record<string, unknown>, toolCallId?: string): AgentAction => ({ tool, toolInput, log: "", ...(toolCallId === undefined ? {} : { toolCallId }) });

describe("EagerDispatch.start: which streamed calls start early", () => {
  it("starts a call of an eager tool with its parsed input (and call id), under a signal of its own", () => {
    const fake = fakeRun([fakeTool("search")]);
    new EagerDispatch(fake.run).start("m1", streamed("search", '{"q":"cats"}', "tc-1"));
    expect(fake.started).toHaveLength(1);
    expect(fake.started[0]?.action).toEqual({ tool: "search", toolInput: { q: "cats" }, log: "", toolCallId: "tc-1" });
    expect(fake.started[0]?.signal).not.toBe(fake.run.signal);
    expect(fake.started[0]?.call.controller?.signal).toBe(fake.started[0]?.signal);
  });

  it("reads empty arguments as an empty input, and leaves toolCallId out without an id", () => {
    const fake = fakeRun([fakeTool("now")]);
    new EagerDispatch(fake.run).start("m1", streamed("now", "  "));
    expect(fake.started[0]?.action).toEqual({ tool: "now", toolInput: {}, log: "" });
  });

  it("starts nothing for an unknown tool, a tool the eager option leaves out, or none when eagerTools is off", () => {
    const a = fakeTool("a");
    const b = fakeTool("b");
    const some = fakeRun([a, b], { eager: (tool) => tool.name === "a" });
    const dispatch = new EagerDispatch(some.run);
    dispatch.start("m1", streamed("b", "{}", "1"));
    dispatch.start("m1", streamed("zzz", "{}", "2"));
    expect(some.started).toEqual([]);
    dispatch.start("m1", streamed("a", "{}", "3"));
    expect(some.started).toHaveLength(1);
    const off = fakeRun([a], { eager: undefined });
    new EagerDispatch(off.run).start("m1", streamed("a", "{}", "1"));
    expect(off.started).toEqual([]);
  });

  it("never starts a call that may need approval: the executor's needsApproval, or a tool marked withApproval", () => {
    const needsApproval = fakeRun([fakeTool("a")], { approvalOption: true });
    new EagerDispatch(needsApproval.run).start("m1", streamed("a", "{}", "1"));
    expect(needsApproval.started).toEqual([]);
    const marked = fakeRun([markToolApproval(fakeTool("pay"), true), markToolApproval(fakeTool("maybe"), () => false)]);
    const dispatch = new EagerDispatch(marked.run);
    dispatch.start("m1", streamed("pay", "{}", "1"));
    dispatch.start("m1", streamed("maybe", "{}", "2"));
    expect(marked.started).toEqual([]);
  });

  it("starts nothing for arguments that are not a JSON object", () => {
    const fake = fakeRun([fakeTool("a")]);
    const dispatch = new EagerDispatch(fake.run);
    for (const args of ['{"q":', "[1,2]", "null", '"text"', "3"]) dispatch.start("m1", streamed("a", args));
    expect(fake.started).toEqual([]);
  });

  it("starts nothing once the run is interrupted", () => {
    const fake = fakeRun([fakeTool("a")]);
    (fake.run as { interrupted: boolean }).interrupted = true;
    new EagerDispatch(fake.run).start("m1", streamed("a", "{}", "1"));
    expect(fake.started).toEqual([]);
  });

  it("starts a call once: the same id, or without one the same tool and input, streamed again starts nothing", () => {
    const fake = fakeRun([fakeTool("a")]);
    const dispatch = new EagerDispatch(fake.run);
    dispatch.start("m1", streamed("a", '{"n":1}', "1"));
    dispatch.start("m1", streamed("a", '{"n":1}', "1"));
    dispatch.start("m1", streamed("a", '{"n":2}'));
    dispatch.start("m2", streamed("a", '{"n":2}'));
    dispatch.start("m1", streamed("a", '{"n":3}'));
    expect(fake.started.map((s) => s.action.toolInput)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it("links an early call's signal to the run's: aborting the run aborts it", () => {
    const fake = fakeRun([fakeTool("a")]);
    new EagerDispatch(fake.run).start("m1", streamed("a", "{}", "1"));
    const reason = new Error("cancelled");
    fake.controller.abort(reason);
    expect(fake.started[0]?.signal.aborted).toBe(true);
  });
});

describe("EagerDispatch: the turn keeps its early calls", () => {
  it("matchTurn gives each action the early call with its id, tool and input; the others are aborted", () => {
    const fake = fakeRun([fakeTool("a"), fakeTool("b")]);
    const dispatch = new EagerDispatch(fake.run);
    dispatch.start("m1", streamed("a", '{"n":1}', "1"));
    dispatch.start("m1", streamed("b", '{"n":2}', "2")); // the final answer calls it with another input
    dispatch.start("m1", streamed("a", '{"n":3}')); // no id: matched by tool and input
    dispatch.start("m1", streamed("a", '{"n":4}', "4")); // not in the final answer
    dispatch.matchTurn([toolCall("a", { n: 1 }, "1"), toolCall("b", { n: 20 }, "2"), toolCall("a", { n: 3 }), toolCall("c", {})]);
    // The early call as it started: its result and key (the turn's call keeps the key).
    expect(dispatch.call(0)?.result).toBe(fake.started[0]?.call.result);
    expect(dispatch.call(0)?.key).toBe("key-0");
    expect(dispatch.call(1)).toBeUndefined();
    expect(dispatch.call(2)?.result).toBe(fake.started[2]?.call.result);
    expect(dispatch.call(2)?.key).toBe("key-2");
    expect(dispatch.call(3)).toBeUndefined();
    expect(fake.started.map((s) => s.signal.aborted)).toEqual([false, true, false, true]);
    const reason = fake.started[3]?.signal.reason;
    expect(reason).toBeInstanceOf(AbortError);
    expect((reason as Error).message).toContain("did not keep this early tool call");
  });

  it("a kept early call stays linked to the run's signal: a limit or a cancellation still stops it", () => {
    const fake = fakeRun([fakeTool("a")]);
    const dispatch = new EagerDispatch(fake.run);
    dispatch.start("m1", streamed("a", "{}", "1"));
    dispatch.matchTurn([toolCall("a", {}, "1")]);
    fake.controller.abort(new Error("halted"));
    expect(fake.started[0]?.signal.aborted).toBe(true);
  });

  it("a later turn does not see calls a previous turn kept or dropped; resetTurn forgets the turn's matches", () => {
    const fake = fakeRun([fakeTool("a")]);
    const dispatch = new EagerDispatch(fake.run);
    dispatch.start("m1", streamed("a", "{}", "1"));
    dispatch.matchTurn([toolCall("a", {}, "1")]);
    expect(dispatch.call(0)).toBeDefined();
    dispatch.resetTurn();
    expect(dispatch.call(0)).toBeUndefined();
    dispatch.matchTurn([toolCall("a", {}, "1")]); // nothing early any more: the turn keeps nothing
    expect(dispatch.call(0)).toBeUndefined();
  });

  it("dropModelCall aborts only the early calls of that model call; dropAll aborts every one not taken", () => {
    const fake = fakeRun([fakeTool("a")]);
    const dispatch = new EagerDispatch(fake.run);
    dispatch.start("m1", streamed("a", '{"n":1}', "1"));
    dispatch.start("m2", streamed("a", '{"n":2}', "2"));
    dispatch.start("m2", streamed("a", '{"n":3}', "3"));
    dispatch.dropModelCall("m2");
    expect(fake.started.map((s) => s.signal.aborted)).toEqual([false, true, true]);
    // A dropped call is forgotten: the same call streamed again (a retried model call) starts anew.
    dispatch.start("m3", streamed("a", '{"n":2}', "2"));
    expect(fake.started).toHaveLength(4);
    dispatch.dropAll();
    expect(fake.started.map((s) => s.signal.aborted)).toEqual([true, true, true, true]);
    dispatch.matchTurn([toolCall("a", { n: 1 }, "1")]);
    expect(dispatch.call(0)).toBeUndefined();
  });
});
