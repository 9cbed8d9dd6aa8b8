import { AgentExecutor, type AgentMiddleware, type MiddlewareEvent, guardrail } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { act, collect, echoTool, finish, scriptedAgent } from "../executor/test-helpers";

let directCalls = 0;
const direct = tool(async () => (directCalls++, "the answer is 42"), { name: "direct", description: "Answers directly.", schema: z.object({}), returnDirect: true });
const noSecrets = (on: "output" | "tool") => guardrail({ name: `no-secrets-${on}`, on, check: ({ text }) => text.includes("SECRET") && "a secret" });

describe("a fork's edited observation goes through what a live tool result would", () => {
  it("checks a returnDirect turn's edited observation as the answer (guardrail on output)", async () => {
    const { agent } = scriptedAgent([act("direct", {})]);
    const executor = new AgentExecutor({ agent, tools: [direct], store: new InProcessRunStore(), middleware: [noSecrets("output")] });
    const source = await executor.invoke({ input: "go" }, { runId: "direct-source" });
    expect(source).toMatchObject({ output: "the answer is 42", stopReason: "return_direct" });
    const calls = directCalls;
    const fork = await executor.fork("direct-source", { at: 1, edit: { observation: "the SECRET is 42" } });
    expect(fork.stopReason).toBe("guardrail");
    expect(fork.output).toBe('Agent stopped: guardrail "no-secrets-output" tripped on the final answer (returned directly by direct): a secret.');
    expect(fork.stoppedBy).toMatchObject({ middleware: "no-secrets-output", guardrail: "no-secrets-output", on: "output" });
    // The tool is not run again for the check.
    expect(directCalls).toBe(calls);
    // An edit that passes returns directly, as the source did.
    const passing = await executor.fork("direct-source", { at: 1, edit: { observation: "the answer is 43" } });
    expect(passing).toMatchObject({ output: "the answer is 43", stopReason: "return_direct" });
  });

  it("checks an edited tool result before the model sees it (guardrail on tool), and records the stop", async () => {
    const { agent, inputs } = scriptedAgent([act("echo", { text: "a" }), finish("done"), finish("never")]);
    const store = new InProcessRunStore();
    const executor = new AgentExecutor({ agent, tools: [echoTool], store, middleware: [noSecrets("tool")] });
    await executor.invoke({ input: "go" }, { runId: "tool-source" });
    const events = await collect(executor.fork("tool-source", { at: 1, edit: { observation: "a SECRET" }, runId: "tool-fork" }));
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "guardrail", output: 'Agent stopped: guardrail "no-secrets-tool" tripped on a tool result (echo): a secret.' });
    expect(inputs).toHaveLength(2); // the fork never asked the model
    const recorded = (await store.readEvents("tool-fork")).map((event) => event.data);
    expect(recorded.at(-1)).toMatchObject({ type: "output", stopReason: "guardrail" });
    expect((await store.getRun("tool-fork"))?.status).toBe("finished");
  });

  it("gives wrapToolCall the edit as the call's result, with the steps before its turn, and reports are recorded", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "a" }), act("echo", { text: "b" }), finish("done"), finish("forked"), finish("forked again")]);
    const seen: { observation: unknown; runSteps: number; iteration: number }[] = [];
    const watch: AgentMiddleware = {
      name: "watch",
      async wrapToolCall(call, next) {
        const observation = await next(call);
        seen.push({ observation, runSteps: call.runSteps.length, iteration: call.iteration });
        call.report({ seen: observation as string });
        return observation;
      },
    };
    const store = new InProcessRunStore();
    const executor = new AgentExecutor({ agent, tools: [echoTool], store, middleware: [watch] });
    await executor.invoke({ input: "go" }, { runId: "watched" });
    const events = await collect(executor.fork("watched", { at: 2, edit: { observation: "edited b" } }));
    expect(events.at(-1)).toMatchObject({ type: "output", output: "forked" });
    expect(seen.at(-1)).toEqual({ observation: "edited b", runSteps: 1, iteration: 1 });
    expect(events.filter((event): event is MiddlewareEvent => event.type === "middleware").map((event) => event.data)).toEqual([{ seen: "edited b" }]);
    // A fork without an edit is not checked again.
    const count = seen.length;
    await executor.fork("watched", { at: 2 });
    expect(seen.length).toBe(count);
  });

  it("fails the fork, saying what to pass, when a wrapToolCall would change the edited observation", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "a" }), finish("done"), finish("never")]);
    const redact: AgentMiddleware = { name: "redact", wrapToolCall: async (call, next) => String(await next(call)).replace(/\S+@\S+/g, "[email]") };
    const executor = new AgentExecutor({ agent, tools: [echoTool], store: new InProcessRunStore(), middleware: [redact] });
    await executor.invoke({ input: "go" }, { runId: "redacted" });
    await expect(executor.fork("redacted", { at: 1, edit: { observation: "mail jane@example.com" } })).rejects.toThrow(
      'AgentExecutor.fork: the middleware\'s wrapToolCall made the edited observation of echo into "mail [email]", as it would a live result; a fork\'s edit is recorded as given: pass that as `edit.observation`.',
    );
  });
});
