import { AgentExecutor, type AgentMiddleware, type MiddlewareEvent, guardrail } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { act, collect, finish, scriptedAgent } from "../executor/test-helpers";

let ran = 0;
const charge = withApproval(tool(async () => (ran++, "charged"), { name: "charge", description: "Charges a card.", schema: z.object({ cents: z.number() }) }));
const noSecrets = (on: "output" | "tool") => guardrail({ name: `no-secrets-${on}`, on, check: ({ text }) => text.includes("SECRET") && "a secret" });

describe("a result a person supplies on resume goes through what a live tool result would", () => {
  it("checks it with wrapToolCall before the model sees it (guardrail on tool), and records the stop", async () => {
    const { agent, inputs } = scriptedAgent([act("charge", { cents: 5 }), finish("never")]);
    const store = new InProcessRunStore();
    const executor = new AgentExecutor({ agent, tools: [charge], store, middleware: [noSecrets("tool")] });
    const paused = await executor.invoke({ input: "pay" }, { runId: "supplied-secret" });
    expect(paused.interrupts?.map((interrupt) => interrupt.id)).toEqual(["call-0-0"]);
    const calls = ran;
    const events = await collect(executor.resume("supplied-secret", { decisions: { "call-0-0": { type: "result", observation: "the SECRET is 42" } } }));
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "guardrail", output: 'Agent stopped: guardrail "no-secrets-tool" tripped on a tool result (charge): a secret.' });
    expect(ran).toBe(calls); // the tool did not run for the check
    expect(inputs).toHaveLength(1); // the model never saw the result
    const recorded = (await store.readEvents("supplied-secret")).map((event) => event.data);
    expect(recorded.at(-1)).toMatchObject({ type: "output", stopReason: "guardrail", stoppedBy: { middleware: "no-secrets-tool", on: "tool", phase: "result" } });
    expect((await store.getRun("supplied-secret"))?.status).toBe("finished");
  });

  it("gives the supplied result to wrapToolCall as the call's, takes what the chain makes of it, and marks the step observationEdited", async () => {
    const { agent, inputs } = scriptedAgent([act("charge", { cents: 5 }), (input) => finish(`saw: ${input.steps[0]?.observation}`)]);
    const seen: unknown[] = [];
    const redact: AgentMiddleware = {
      name: "redact",
      async wrapToolCall(call, next) {
        const observation = await next(call);
        seen.push(observation);
        call.report({ seen: observation as string });
        return String(observation).replace(/\S+@\S+/g, "[email]");
      },
    };
    const store = new InProcessRunStore();
    const executor = new AgentExecutor({ agent, tools: [charge], store, middleware: [redact] });
    await executor.invoke({ input: "pay" }, { runId: "supplied-redacted" });
    const calls = ran;
    const events = await collect(executor.resume("supplied-redacted", { decisions: { "call-0-0": { type: "result", observation: "receipt to jane@example.com" } } }));
    expect(seen).toEqual(["receipt to jane@example.com"]);
    expect(ran).toBe(calls);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "saw: receipt to [email]", stopReason: "finish" });
    expect(inputs).toHaveLength(2);
    expect(events.filter((event): event is MiddlewareEvent => event.type === "middleware").map((event) => event.data)).toEqual([{ seen: "receipt to jane@example.com" }]);
    const step = (await store.readEvents("supplied-redacted")).map((event) => event.data).find((data) => data["type"] === "step");
    expect(step).toMatchObject({ observation: "receipt to [email]", metadata: { observationEdited: true } });
  });

  it("checks it in the executor's own store of pauses too (no store given), and marks it without middleware", async () => {
    const guarded = new AgentExecutor({ agent: scriptedAgent([act("charge", { cents: 5 }), finish("never")]).agent, tools: [charge], middleware: [noSecrets("tool")] });
    await guarded.invoke({ input: "pay" }, { runId: "supplied-own-store" });
    const stopped = await guarded.resume("supplied-own-store", { decisions: { "call-0-0": { type: "result", observation: "a SECRET" } } });
    expect(stopped.stopReason).toBe("guardrail");
    const plain = new AgentExecutor({ agent: scriptedAgent([act("charge", { cents: 6 }), finish("done")]).agent, tools: [charge] });
    await plain.invoke({ input: "pay" }, { runId: "supplied-plain" });
    const events = await collect(plain.resume("supplied-plain", { decisions: { "call-0-0": { type: "result", observation: "charged by hand" } } }));
    expect(events.find((event) => event.type === "step")).toMatchObject({ step: { observation: "charged by hand" }, metadata: { observationEdited: true } });
    expect(events.at(-1)).toMatchObject({ type: "output", output: "done" });
  });
});
