import { isAbortError } from "@agentrx/core";
import { AgentExecutor } from "@agentrx/executors";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { withApproval } from "@agentrx/tools";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, collect, finish, scriptedAgent } from "./test-helpers";

const send = (ran: string[], returnDirect = false) =>
  withApproval(
    tool(
      async ({ to }: { to: string }) => {
        ran.push(to);
        return `sent to ${to}`;
      },
      { name: "send", description: "Sends an email.", schema: z.object({ to: z.string() }), returnDirect },
    ),
  );

describe("approval without a store", () => {
  it("pauses and resumes in the same process, in a store of the executor's own", async () => {
    const ran: string[] = [];
    const { agent, inputs } = scriptedAgent([act("send", { to: "ana" }), (input) => finish(`done: ${input.steps[0]?.observation}`)]);
    const executor = new AgentExecutor({ agent, tools: [send(ran)] });
    const paused = await lastValueFrom(executor.invoke({ input: "mail ana" }, { runId: "mail" }));
    expect(paused.interrupts?.[0]).toMatchObject({ id: "call-0-0", tool: "send", toolInput: { to: "ana" } });
    expect(ran).toEqual([]);
    const done = await lastValueFrom(executor.resume("mail", { decisions: { "call-0-0": "approve" } }));
    expect(done).toMatchObject({ type: "output", output: "done: sent to ana", stopReason: "finish" });
    expect(ran).toEqual(["ana"]);
    expect(inputs).toHaveLength(2);
  });

  it("a paused result's intermediateSteps hold the calls of the paused turn that already ran", async () => {
    const ran: string[] = [];
    const note = tool(async ({ text }: { text: string }) => `noted ${text}`, { name: "note", description: "Notes.", schema: z.object({ text: z.string() }) });
    const { agent } = scriptedAgent([[act("note", { text: "a" }), act("send", { to: "ana" })], finish("done")]);
    const executor = new AgentExecutor({ agent, tools: [note, send(ran)], returnIntermediateSteps: true });
    const paused = await executor.invoke({ input: "note and mail" }, { runId: "half" });
    expect(paused.interrupts).toHaveLength(1);
    expect(paused.intermediateSteps?.map((step) => step.observation)).toEqual(["noted a"]);
    const done = await executor.resume("half", { decisions: { "call-0-1": "approve" } });
    expect(done.intermediateSteps?.map((step) => step.observation)).toEqual(["noted a", "sent to ana"]);
  });

  it("resume's maxConcurrency caps the approved calls it runs", async () => {
    let running = 0;
    let peak = 0;
    const slow = withApproval(
      tool(
        async ({ to }: { to: string }) => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((resolve) => setImmediate(resolve));
          running--;
          return `sent to ${to}`;
        },
        { name: "send", description: "Sends an email.", schema: z.object({ to: z.string() }) },
      ),
    );
    const names = ["ana", "bo", "cy", "di"];
    const { agent } = scriptedAgent([names.map((to) => act("send", { to })), finish("done")]);
    const executor = new AgentExecutor({ agent, tools: [slow] });
    const paused = await executor.invoke({ input: "mail them" }, { runId: "four" });
    const decisions = Object.fromEntries((paused.interrupts ?? []).map((interrupt) => [interrupt.id, "approve" as const]));
    expect(Object.keys(decisions)).toHaveLength(4);
    const done = await executor.resume("four", { decisions, maxConcurrency: 1 });
    expect(done.stopReason).toBe("finish");
    expect(peak).toBe(1);
  });

  it("a resume whose signal is already aborted rejects without claiming the run: it stays paused, and resumes after", async () => {
    const ran: string[] = [];
    const { agent } = scriptedAgent([act("send", { to: "ana" }), finish("done")]);
    const store = new InProcessRunStore();
    const executor = new AgentExecutor({ agent, tools: [send(ran)], store });
    await executor.invoke({ input: "mail ana" }, { runId: "aborted" });
    const controller = new AbortController();
    controller.abort(new Error("user left"));
    const resumed = executor.resume("aborted", { decisions: { "call-0-0": "approve" }, signal: controller.signal });
    await expect(resumed).rejects.toSatisfy(isAbortError);
    expect(ran).toEqual([]);
    const before = await store.getRun("aborted");
    expect(before).toMatchObject({ status: "interrupted", epoch: 1 }); // never claimed
    expect(before?.owner).toBeUndefined();
    expect((await executor.resume("aborted", { decisions: { "call-0-0": "approve" } })).output).toBe("done");
    expect(ran).toEqual(["ana"]);
  });

  it("an executor without approval and without a store still cannot resume", async () => {
    const { agent } = scriptedAgent([finish("ok")]);
    await expect(lastValueFrom(new AgentExecutor({ agent, tools: [] }).resume("x"))).rejects.toThrow(/no store to resume from/);
  });
});

describe("needsApproval's answer", () => {
  it("a truthy answer that is not `true` (\"yes\", 1) asks for approval, as withApproval's function does; a falsy one does not", async () => {
    const ran: string[] = [];
    const plain = tool(async ({ to }: { to: string }) => (ran.push(to), `sent to ${to}`), { name: "send", description: "Sends.", schema: z.object({ to: z.string() }) });
    for (const [answer, pauses] of [["yes", true], [1, true], [undefined, false], [0, false]] as const) {
      ran.length = 0;
      const { agent } = scriptedAgent([act("send", { to: "ana" }), finish("done")]);
      const executor = new AgentExecutor({ agent, tools: [plain], needsApproval: (() => answer) as never });
      const result = await executor.invoke({ input: "mail ana" });
      expect(result.stopReason).toBe(pauses ? "interrupted" : "finish");
      expect(ran).toEqual(pauses ? [] : ["ana"]);
    }
  });
});

describe("approval and returnDirect", () => {
  it("an approved returnDirect call returns directly; a rejected one goes back to the model", async () => {
    const ran: string[] = [];
    const { agent } = scriptedAgent([act("send", { to: "ana" }), act("send", { to: "bo" }), finish("the model saw the rejection")]);
    const executor = new AgentExecutor({ agent, tools: [send(ran, true)] });
    await lastValueFrom(executor.invoke({ input: "mail" }, { runId: "a" }));
    const approved = await collect(executor.resume("a", { decisions: { "call-0-0": "approve" } }));
    expect(approved.at(-1)).toMatchObject({ type: "output", stopReason: "return_direct", output: "sent to ana" });

    await lastValueFrom(executor.invoke({ input: "mail" }, { runId: "b" }));
    const events = await collect(executor.resume("b", { decisions: { "call-0-0": { type: "reject", message: "no" } } }));
    expect(events.at(-1)).toMatchObject({ stopReason: "finish", output: "the model saw the rejection" });
    expect(ran).toEqual(["ana"]);
    // The rejected call's step says so (a chat UI shows it as denied, not as a result).
    expect(events.filter((event) => event.type === "step")).toMatchObject([{ step: { observation: "no" }, metadata: { rejected: true } }]);
    expect(approved.find((event) => event.type === "step")?.metadata?.rejected).toBeUndefined();
  });
});

describe("awaiting a run", () => {
  it("await invoke subscribes once and resolves with the result; awaiting again does not run it again", async () => {
    const { agent, inputs } = scriptedAgent([finish("one"), finish("two")]);
    const run = new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" });
    const result = await run;
    expect(result).toMatchObject({ input: "go", output: "one" });
    expect(await run).toBe(result);
    expect(inputs).toHaveLength(1);
    // Subscribing is still a run of its own.
    expect((await lastValueFrom(run)).output).toBe("two");
  });

  it("await resume resolves with the result, inputs from the resumed run", async () => {
    const ran: string[] = [];
    const { agent } = scriptedAgent([act("send", { to: "cy" }), finish("sent")]);
    const executor = new AgentExecutor({ agent, tools: [send(ran)] });
    const paused = await executor.invoke({ input: "mail cy" }, { runId: "m" });
    expect(paused.interrupts).toHaveLength(1);
    const result = await executor.resume("m", { decisions: { "call-0-0": "approve" } });
    expect(result).toMatchObject({ input: "mail cy", output: "sent", runId: "m" });
    await expect(executor.invoke(null as never)).rejects.toThrow(/inputs/);
  });
});
