// A `{ type: "result", observation }` decision is the call's result "as if the tool had returned
// it" (docs/approval.md): on a call of a `returnDirect` tool the run returns it directly, with or
// without middleware, for a call that needed approval and for one in doubt, and a fork of the
// record ends as the live run did.
import type { AgentAction, AgentStep } from "@agentrx/core";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentMiddleware } from "../middleware/agent-middleware";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { AgentExecutor } from "./agent-executor";
import { deferred } from "./test-helpers";

/** A pass-through middleware: with it, a supplied result goes through the `wrapToolCall` chain. */
const passThrough: AgentMiddleware = { name: "pass", wrapToolCall: (call, next) => next(call) };

/** An agent that calls `send` (or `send` and `note`, with `both`) first, then answers with what it saw. */
function sender(both = false) {
  let calls = 0;
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
    calls++;
    if (input.steps.length > 0) return { returnValues: { output: `model: ${input.steps.map((step) => step.observation).join(", ")}` }, log: "" };
    const send = { tool: "send", toolInput: {}, log: "", toolCallId: "s" } as AgentAction;
    return both ? [send, { tool: "note", toolInput: {}, log: "", toolCallId: "n" } as AgentAction] : send;
  });
  return { agent, calls: () => calls };
}

/** A `returnDirect` tool `send`; `hang` makes its first call wait until it is aborted. */
function sendTool(ran: string[], hang?: () => void) {
  let first = true;
  return tool(
    async (_input, config) => {
      ran.push("send");
      if (hang !== undefined && first) {
        first = false;
        hang();
        await new Promise((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
      }
      return "sent";
    },
    { name: "send", description: "Sends.", schema: z.object({}), returnDirect: true },
  );
}

describe("a result decision on a call of a returnDirect tool", () => {
  for (const middleware of [undefined, [passThrough]]) {
    const label = middleware === undefined ? "without middleware" : "with middleware";

    it(`returns it directly after an approval pause (${label}); a fork of the record agrees`, async () => {
      const ran: string[] = [];
      const { agent, calls } = sender();
      const executor = new AgentExecutor({ agent, tools: [sendTool(ran)], store: new InProcessRunStore(), needsApproval: () => true, middleware });
      const paused = await executor.invoke({ input: "go" }, { runId: "r" });
      expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0"]);
      const done = await executor.resume("r", { decisions: { "call-0-0": { type: "result", observation: "faked" } } });
      expect([done.stopReason, done.output]).toEqual(["return_direct", "faked"]);
      expect(calls()).toBe(1); // the model is not asked again
      expect(ran).toEqual([]);
      const fork = await executor.fork("r", { at: 1, runId: "f" });
      expect([fork.stopReason, fork.output]).toEqual(["return_direct", "faked"]);
      expect(calls()).toBe(1);
    });

    it(`returns it directly for a call in doubt (${label}); a fork of the record agrees`, async () => {
      const ran: string[] = [];
      const started = deferred<void>();
      const { agent, calls } = sender();
      const executor = new AgentExecutor({ agent, tools: [sendTool(ran, () => started.resolve())], store: new InProcessRunStore(), inDoubt: "interrupt", middleware });
      const controller = new AbortController();
      const running = Promise.resolve(executor.invoke({ input: "go" }, { runId: "r", signal: controller.signal }));
      await started.promise;
      controller.abort();
      await expect(running).rejects.toThrow();
      const paused = await executor.resume("r");
      expect(paused.interrupts?.map((interrupt) => [interrupt.id, interrupt.reason])).toEqual([["call-0-0", "in_doubt"]]);
      const done = await executor.resume("r", { decisions: { "call-0-0": { type: "result", observation: "sent (checked)" } } });
      expect([done.stopReason, done.output]).toEqual(["return_direct", "sent (checked)"]);
      expect(calls()).toBe(1);
      expect(ran).toEqual(["send"]); // only the call that was cut short
      const fork = await executor.fork("r", { at: 1, runId: "f" });
      expect([fork.stopReason, fork.output]).toEqual(["return_direct", "sent (checked)"]);
    });

    it(`goes back to the model when another call of the turn is not returnDirect (${label})`, async () => {
      const ran: string[] = [];
      const { agent, calls } = sender(true);
      const note = tool(async () => "noted", { name: "note", description: "Notes.", schema: z.object({}) });
      const executor = new AgentExecutor({ agent, tools: [sendTool(ran), note], store: new InProcessRunStore(), needsApproval: (action) => action.tool === "send", middleware });
      await executor.invoke({ input: "go" }, { runId: "r" });
      const done = await executor.resume("r", { decisions: { "call-0-0": { type: "result", observation: "faked" } } });
      expect([done.stopReason, done.output]).toEqual(["finish", "model: faked, noted"]);
      expect(calls()).toBe(2);
    });
  }

  it("a rejected returnDirect call still goes back to the model (its turn ended by the decisions alone)", async () => {
    const ran: string[] = [];
    const { agent, calls } = sender();
    const executor = new AgentExecutor({ agent, tools: [sendTool(ran)], store: new InProcessRunStore(), needsApproval: () => true });
    await executor.invoke({ input: "go" }, { runId: "r" });
    const done = await executor.resume("r", { decisions: { "call-0-0": { type: "reject", message: "No." } } });
    expect([done.stopReason, done.output]).toEqual(["finish", "model: No."]);
    expect(calls()).toBe(2);
    const fork = await executor.fork("r", { at: 1, runId: "f" });
    expect(fork.stopReason).toBe("finish");
  });
});
