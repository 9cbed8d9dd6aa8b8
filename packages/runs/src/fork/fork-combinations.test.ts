// AgentExecutor.fork where it meets the other durable-run features: a source run that was paused
// and resumed (an approval, a call in doubt), a person's edit, messages sent to the run, and a
// turn of parallel calls.
import { type AgentAction, type AgentStep, getIdempotencyKey, isMessageStep } from "@agentrx/core";
import { AgentExecutor, renderTrace, restoreRunState, type RunStore } from "@agentrx/executors";
import { withApproval, withInDoubt } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { replayRun } from "../replay/replay-run";
import { SqliteRunStore } from "../sqlite/index";

/** The run's state rebuilt from its record. */
async function restored(store: RunStore, runId: string) {
  const info = await store.getRun(runId);
  if (info === undefined) throw new Error(`no run ${runId}`);
  return restoreRunState(info, await store.readEvents(runId));
}

/** Whether the run's record numbers its events 1, 2, 3, ... */
async function gapless(store: RunStore, runId: string): Promise<boolean> {
  return (await store.readEvents(runId)).every((event, i) => event.seq === i + 1);
}

/** An agent that refunds `amounts` one turn each, then answers with every step's input and observation. */
function refundRun(store: RunStore, amounts: number[]) {
  const refunded: number[] = [];
  const seen: string[][] = [];
  const refund = withApproval(
    tool(async ({ amount }: { amount: number }) => (refunded.push(amount), `refunded ${amount}`), {
      name: "refund",
      description: "Refunds.",
      schema: z.object({ amount: z.number() }),
    }),
  );
  const describeSteps = (steps: AgentStep[]) => steps.map((step) => `${JSON.stringify(step.action.toolInput)}=${String(step.observation)}`);
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
    seen.push(describeSteps(input.steps));
    const amount = amounts[input.steps.length];
    if (amount !== undefined) return { tool: "refund", toolInput: { amount }, log: "", toolCallId: `r${input.steps.length}` } as AgentAction;
    return { returnValues: { output: describeSteps(input.steps).join("; ") }, log: "" };
  });
  return { executor: new AgentExecutor({ agent, tools: [refund], store }), refunded, seen };
}

describe("fork of a run that was paused and resumed", () => {
  it("copies the turns on both sides of an approval pause (the pause's events are not copied, the seqs stay gapless)", async () => {
    const store = new MemoryRunStore();
    const { executor, refunded, seen } = refundRun(store, [30, 40]);
    expect((await executor.invoke({ input: "refund" }, { runId: "src" })).stopReason).toBe("interrupted");
    expect((await executor.resume("src", { decisions: { "call-0-0": "approve" } })).stopReason).toBe("interrupted");
    expect((await executor.resume("src", { decisions: { "call-1-0": "approve" } })).output).toBe('{"amount":30}=refunded 30; {"amount":40}=refunded 40');
    refunded.length = 0;
    seen.length = 0;

    const fork = await executor.fork("src", { at: 2, runId: "fork" });
    expect(fork.output).toBe('{"amount":30}=refunded 30; {"amount":40}=refunded 40');
    expect(refunded).toEqual([]); // the copied calls are not run again
    expect(seen).toHaveLength(1); // one model call: the answer after the copied turns
    expect(await gapless(store, "fork")).toBe(true);
    const types = (await store.readEvents("fork")).map((event) => event.data["type"]);
    expect(types.filter((type) => type === "interrupt" || type === "decisions")).toEqual([]);
  });

  it("forks after a call in doubt that was paused (inDoubt: \"interrupt\") and settled with a supplied result", async () => {
    const store = new MemoryRunStore();
    const charged: string[] = [];
    let hang = true;
    const charge = withInDoubt(
      tool(
        async ({ cents }: { cents: number }, config) => {
          charged.push(String(getIdempotencyKey(config)));
          if (hang) await new Promise((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
          return `charged ${cents}`;
        },
        { name: "charge", description: "Charges.", schema: z.object({ cents: z.number() }) },
      ),
      "interrupt",
    );
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0
        ? ({ tool: "charge", toolInput: { cents: 500 }, log: "", toolCallId: "pay-1" } as AgentAction)
        : { returnValues: { output: `Done: ${input.steps.map((step) => String(step.observation)).join(", ")}` }, log: "" },
    );
    const executor = new AgentExecutor({ agent, tools: [charge], store });
    const subscription = executor.stream({ input: "pay" }, { runId: "pay" }).subscribe({ error: () => {} });
    while (charged.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    subscription.unsubscribe();
    while ((await store.getRun("pay"))?.status !== "cancelled") await new Promise((resolve) => setTimeout(resolve, 2));
    hang = false;
    expect((await executor.resume("pay")).interrupts?.[0]?.reason).toBe("in_doubt");
    const settled = await executor.resume("pay", { decisions: { "call-0-0": { type: "result", observation: "charged 500 (checked)" } } });
    expect(settled.output).toBe("Done: charged 500 (checked)");

    const fork = await executor.fork("pay", { runId: "pay-fork" });
    expect(fork.output).toBe("Done: charged 500 (checked)");
    expect(charged).toHaveLength(1); // neither the resume's result nor the fork charged again
    expect(await gapless(store, "pay-fork")).toBe(true);
    expect((await restored(store, "pay-fork")).state.steps.map((step) => step.observation)).toEqual(["charged 500 (checked)"]);
  });
});

describe("fork of a run in which a person edited a call before it ran", () => {
  it("copies the call with the input it ran with, as the source's state has it", async () => {
    const store = new MemoryRunStore();
    const { executor, refunded, seen } = refundRun(store, [900, 5]);
    await executor.invoke({ input: "refund" }, { runId: "src" });
    await executor.resume("src", { decisions: { "call-0-0": { type: "edit", toolInput: { amount: 30 } } } });
    const done = await executor.resume("src", { decisions: { "call-1-0": "approve" } });
    expect(done.output).toBe('{"amount":30}=refunded 30; {"amount":5}=refunded 5');
    const source = (await restored(store, "src")).state.steps.map((step) => step.action.toolInput);
    expect(source).toEqual([{ amount: 30 }, { amount: 5 }]);
    refunded.length = 0;
    seen.length = 0;

    const fork = await executor.fork("src", { at: 2, runId: "fork" });
    expect(seen[0]).toEqual(['{"amount":30}=refunded 30', '{"amount":5}=refunded 5']); // not the 900 the person refused
    expect(fork.output).toBe('{"amount":30}=refunded 30; {"amount":5}=refunded 5');
    expect(refunded).toEqual([]);
    expect((await restored(store, "fork")).state.steps.map((step) => step.action.toolInput)).toEqual(source);
  });
});

describe("fork of a run that was sent messages", () => {
  it("has an inbox of its own: a message sent to the fork joins it", async () => {
    const store = new SqliteRunStore({ path: ":memory:" });
    try {
      let release = () => {};
      let gate = new Promise<void>((resolve) => (release = resolve));
      const search = tool(async ({ q }: { q: string }) => (await gate, `found ${q}`), { name: "search", description: "Searches.", schema: z.object({ q: z.string() }) });
      // Three searches, then an answer that lists the messages it was sent.
      const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
        const searches = input.steps.filter((step) => !isMessageStep(step)).length;
        if (searches < 3) return { tool: "search", toolInput: { q: `q${searches}` }, log: "", toolCallId: `c${searches}` } as AgentAction;
        return { returnValues: { output: input.steps.filter(isMessageStep).map((step) => String(step.observation)).join(" | ") }, log: "" };
      });
      const executor = new AgentExecutor({ agent, tools: [search], store });
      const source = executor.invoke({ input: "go" }, { runId: "src" }).then((result) => result);
      while (!(await store.readEvents("src")).some((event) => event.data["type"] === "action")) await new Promise((resolve) => setTimeout(resolve, 2));
      expect((await executor.send("src", "also Rome")).inboxSeq).toBe(1);
      release();
      expect((await source).output).toBe("also Rome");

      gate = new Promise<void>((resolve) => (release = resolve));
      const fork = executor.fork("src", { at: 2, runId: "fork" }).then((result) => result); // the message joined before iteration 1: copied
      while ((await store.readEvents("fork")).filter((event) => event.data["type"] === "action").length < 3) await new Promise((resolve) => setTimeout(resolve, 2));
      const sent = await executor.send("fork", "and Oslo");
      expect(sent).toMatchObject({ runId: "fork", inboxSeq: 1 });
      release();
      expect((await fork).output).toBe("also Rome | and Oslo");
    } finally {
      await store.close();
    }
  });
});

describe("fork with edit.observation after a turn of parallel calls", () => {
  it("changes the turn's last step in action order, whichever call finished last", async () => {
    const store = new MemoryRunStore();
    const sleep = tool(async ({ ms }: { ms: number }) => (await new Promise((resolve) => setTimeout(resolve, ms)), `slept ${ms}`), {
      name: "sleep",
      description: "Sleeps.",
      schema: z.object({ ms: z.number() }),
    });
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0
        ? ([
            { tool: "sleep", toolInput: { ms: 30 }, log: "", toolCallId: "a" },
            { tool: "sleep", toolInput: { ms: 1 }, log: "", toolCallId: "b" },
          ] as (AgentAction & { toolCallId: string })[])
        : { returnValues: { output: input.steps.map((step) => String(step.observation)).join(", ") }, log: "" },
    );
    const executor = new AgentExecutor({ agent, tools: [sleep], store });
    expect((await executor.invoke({ input: "go" }, { runId: "src" })).output).toBe("slept 30, slept 1");
    const fork = await executor.fork("src", { at: 1, edit: { observation: "woke early" }, runId: "fork" });
    expect(fork.output).toBe("slept 30, woke early");
  });
});

describe("fork of a run whose sub-run paused and was resumed", () => {
  /** A caller that hands "mail ana" to a sub-run (`asTool`), whose `send` needs approval. */
  function mailingRun(store: RunStore) {
    const sent: string[] = [];
    const send = withApproval(tool(async ({ to }: { to: string }) => (sent.push(to), `sent ${to}`), { name: "send", description: "Sends.", schema: z.object({ to: z.string() }) }));
    const mailerAgent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0 ? ({ tool: "send", toolInput: { to: "ana" }, log: "", toolCallId: "s1" } as AgentAction) : { returnValues: { output: `mailer: ${String(input.steps[0]?.observation)}` }, log: "" },
    );
    const mailer = new AgentExecutor({ agent: mailerAgent, tools: [send], store }).asTool({ name: "mailer", description: "Mails." });
    const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
      input.steps.length === 0 ? ({ tool: "mailer", toolInput: { input: "mail ana" }, log: "", toolCallId: "m1" } as AgentAction) : { returnValues: { output: `done: ${String(input.steps[0]?.observation)}` }, log: "" },
    );
    return { executor: new AgentExecutor({ agent, tools: [mailer], store }), sent };
  }

  /** What `printTrace` shows of the run's record (`replayRun` of it, rendered). */
  async function trace(store: RunStore, runId: string): Promise<string> {
    let text = "";
    await lastValueFrom(replayRun(store, runId).pipe(renderTrace({ write: (chunk) => (text += chunk), colors: false })), { defaultValue: undefined });
    return text;
  }

  it.each([{}, { at: 1 }])("copies the sub-run as if it had never paused (fork %j): one start, no interrupt, no interrupted answer", async (request) => {
    const store = new MemoryRunStore();
    const { executor, sent } = mailingRun(store);
    const paused = await executor.invoke({ input: "go" }, { runId: "src" });
    expect(paused.stopReason).toBe("interrupted");
    expect((await executor.resume("src", { decisions: { [paused.interrupts?.[0]?.id as string]: "approve" } })).output).toBe("done: mailer: sent ana");
    const sourceTypes = (await store.readEvents("src")).filter((event) => event.data["subRun"] !== undefined).map((event) => event.data["type"]);
    expect(sourceTypes.filter((type) => type === "start" || type === "interrupt" || type === "output")).toEqual(["start", "interrupt", "output", "start", "output"]);

    const fork = await executor.fork("src", { ...request, runId: "fork" });
    expect(fork.output).toBe("done: mailer: sent ana");
    expect(sent).toEqual(["ana"]); // nothing of the copy ran again
    expect(await gapless(store, "fork")).toBe(true);
    const copied = (await store.readEvents("fork")).filter((event) => event.data["subRun"] !== undefined);
    expect(copied.map((event) => event.data["type"]).filter((type) => type !== "usage" && type !== "model_call")).toEqual(["start", "action", "step", "output"]);
    expect(copied.find((event) => event.data["type"] === "start")?.data).toMatchObject({ resumed: false, subRun: ["mailer"] });
    expect(copied.find((event) => event.data["type"] === "output")?.data).toMatchObject({ output: "mailer: sent ana", stopReason: "finish" });
    // replayRun and printTrace agree with the record: the sub-run answered once, never "(interrupted)".
    const replayed = await lastValueFrom(replayRun(store, "fork").pipe(toArray()));
    expect(replayed.filter((event) => event.subRun !== undefined && (event.type === "interrupt" || event.type === "start")).map((event) => event.type)).toEqual(["start"]);
    const shown = await trace(store, "fork");
    expect(shown).not.toContain("interrupted");
    expect(shown).toContain("mailer: sent ana");
    // The fork's state is the source's: the same steps, and a resume of it gives its answer again.
    expect((await restored(store, "fork")).state.steps.map((step) => step.observation)).toEqual((await restored(store, "src")).state.steps.map((step) => step.observation));
    expect((await executor.resume("fork")).output).toBe("done: mailer: sent ana");
    expect(sent).toEqual(["ana"]);
  });

  it("does not copy a sub-run still paused at the fork point: its turn is not complete, so the fork runs it again", async () => {
    const store = new MemoryRunStore();
    const { executor, sent } = mailingRun(store);
    expect((await executor.invoke({ input: "go" }, { runId: "src" })).stopReason).toBe("interrupted");
    const refused = await executor.fork("src", { at: 1, runId: "late" }).catch((error: unknown) => error);
    expect((refused as Error).message).toContain("has no complete turn boundary at iteration 1");
    const fork = await executor.fork("src", { runId: "fork" });
    expect(fork.stopReason).toBe("interrupted"); // the sub-run ran again, live, and paused again
    const types = (await store.readEvents("fork")).filter((event) => event.data["subRun"] !== undefined).map((event) => event.data["type"]);
    expect(types.filter((type) => type === "start")).toHaveLength(1);
    expect((await executor.resume("fork", { decisions: { [fork.interrupts?.[0]?.id as string]: "approve" } })).output).toBe("done: mailer: sent ana");
    expect(sent).toEqual(["ana"]);
  });
});
