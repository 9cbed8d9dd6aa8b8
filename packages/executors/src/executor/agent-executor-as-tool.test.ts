import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, type RecordedModelCall, RunEventDecoder, type StoredRunEvent, SubRunInterruptedError, finalAnswerTokens, renderTrace, restoreRunState, tokenBudget } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { collect, finish, scriptedAgent, toolCall } from "./test-helpers";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const usage = { inputTokens: 10, outputTokens: 5 };

function specialist(answer: string, options: { slow?: { aborted: string[]; started?: () => void; stopped?: () => void } } = {}) {
  const lookup = tool(
    async ({ q }: { q: string }, config) => {
      if (options.slow) {
        await new Promise<void>((_, reject) => {
          config?.signal?.addEventListener("abort", () => {
            options.slow?.aborted.push(q);
            options.slow?.stopped?.();
            reject(new Error("aborted"));
          });
          options.slow?.started?.();
        });
      }
      return `facts about ${q}`;
    },
    { name: "lookup", description: "Looks facts up.", schema: z.object({ q: z.string() }) },
  );
  const llm = new ScriptedChatModel({ streaming: true, onExhausted: "cycle", responses: [{ toolCalls: [{ name: "lookup", args: { q: "tides" } }], usage }, { content: answer, usage }] });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup] });
}

function supervisor(researcher: AgentExecutor, options: ConstructorParameters<typeof AgentExecutor>[0]["stopWhen"] = undefined) {
  const research = researcher.asTool({ name: "researcher", description: "Researches a topic." });
  const llm = new ScriptedChatModel({
    streaming: true,
    onExhausted: "cycle",
    responses: [{ toolCalls: [{ name: "researcher", args: { input: "tides" } }], usage }, (messages) => ({ content: `Summary: ${messages.at(-1)?.text}`, usage })],
  });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [research], prompt }), tools: [research], ...(options ? { stopWhen: options } : {}) });
}

describe("executor.asTool", () => {
  it("runs the executor as a sub-run: its events reach the caller labelled with subRun, the caller's output last", async () => {
    const events = await collect(supervisor(specialist("Tides follow the moon.")).stream({ input: "Explain tides" }));
    const sub = events.filter((event) => event.subRun !== undefined);
    expect(sub.map((event) => event.type)).toEqual(expect.arrayContaining(["start", "action", "step", "output"]));
    expect(sub.every((event) => event.subRun?.[0] === "researcher")).toBe(true);
    expect(sub.find((event) => event.type === "output")).toMatchObject({ output: "Tides follow the moon.", subRun: ["researcher"] });
    const last = events.at(-1) as Extract<AgentStreamEvent, { type: "output" }>;
    expect(last).toMatchObject({ type: "output", output: "Summary: Tides follow the moon." });
    expect(last.subRun).toBeUndefined();
    // The caller's usage includes the sub-run's two model calls.
    expect(last.usage).toMatchObject({ total_tokens: 60 });
    // Sub-run events come between the caller's action and its step.
    const types = events.filter((event) => event.subRun === undefined).map((event) => event.type);
    expect(types.filter((type) => type !== "token" && type !== "usage")).toEqual(["start", "action", "step", "output"]);
  });

  it("invoke's result adds the sub-run's usage too; finalAnswerTokens keeps to the caller's answer; renderTrace shows the sub-run", async () => {
    const result = await supervisor(specialist("Moon.")).invoke({ input: "Explain tides" });
    expect(result.output).toBe("Summary: Moon.");
    expect(result.usage).toMatchObject({ total_tokens: 60 });
    const tokens = await lastValueFrom(supervisor(specialist("Moon.")).stream({ input: "x" }).pipe(finalAnswerTokens(), toArray()));
    expect(tokens.join("")).toBe("Summary: Moon.");
    let trace = "";
    await lastValueFrom(supervisor(specialist("Moon.")).stream({ input: "x" }).pipe(renderTrace({ write: (text) => (trace += text), colors: false })));
    expect(trace).toMatch(/\[researcher\] action\s+lookup \{"q":"tides"\}/);
    expect(trace).toMatch(/\[researcher\] answer\s+Moon\. \(finish\)/);
    expect(trace).toMatch(/^answer\s+Summary: Moon\. \(finish\)$/m);
  });

  it("cancelling the caller cancels the sub-run's tools; a budget on the caller counts the sub-run's tokens", async () => {
    const aborted: string[] = [];
    // Unsubscribes once the sub-run's tool is running (no timers: a loaded machine runs late).
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    let stopped: () => void = () => undefined;
    const abortedOnce = new Promise<void>((resolve) => (stopped = resolve));
    const run = supervisor(specialist("never", { slow: { aborted, started, stopped } })).stream({ input: "x" });
    const seen: AgentStreamEvent[] = [];
    const subscription = run.subscribe((event) => seen.push(event));
    await running;
    subscription.unsubscribe();
    await abortedOnce;
    expect(aborted).toEqual(["tides"]);

    // The caller's 20-token budget is spent inside the sub-run (its first call reports 15 more).
    const events = await collect(supervisor(specialist("Moon."), tokenBudget(20)).stream({ input: "x" }));
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "budget" });
  });

  it("a sub-run that pauses for approval fails its tool call (its run is the specialist's to decide), rather than answer \"\"", async () => {
    const sent: string[] = [];
    const send = withApproval(tool(async ({ to }: { to: string }) => (sent.push(to), `sent to ${to}`), { name: "send", description: "Sends.", schema: z.object({ to: z.string() }) }));
    const llm = new ScriptedChatModel({ onExhausted: "repeat-last", responses: [{ toolCalls: [{ name: "send", args: { to: "ana" } }] }] });
    const mailer = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [send], prompt }), tools: [send] });
    const mail = mailer.asTool({ name: "mailer", description: "Sends mail." });
    const supervisorLlm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "mailer", args: { input: "mail ana" } }] }, (messages) => `Done: ${messages.at(-1)?.text}`] });
    const caller = new AgentExecutor({ agent: createToolCallingAgent({ llm: supervisorLlm, tools: [mail], prompt }), tools: [mail] });
    const events = await collect(caller.stream({ input: "x" }));
    const step = events.find((event) => event.type === "step" && event.subRun === undefined);
    const observation = step?.type === "step" ? String(step.step.observation) : "";
    expect(observation).toContain("paused for approval");
    expect(observation).toContain('"send"');
    const paused = events.find((event) => event.type === "output" && event.subRun !== undefined);
    expect(paused).toMatchObject({ stopReason: "interrupted" });
    expect(observation).toContain(paused?.type === "output" ? paused.runId : "?");
    expect(sent).toEqual([]);
    // Without handling of tool errors, the caller fails with the error, which names the paused run.
    const strictLlm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "mailer", args: { input: "mail ana" } }] }] });
    const strict = new AgentExecutor({ agent: createToolCallingAgent({ llm: strictLlm, tools: [mail], prompt }), tools: [mail], handleToolRuntimeErrors: false });
    const error = await strict.invoke({ input: "x" }).then(() => undefined, (thrown: unknown) => thrown);
    expect(SubRunInterruptedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ tool: "mailer", waitingOn: ["send"] });
  });

  it("validates its options", () => {
    const executor = specialist("x");
    expect(() => executor.asTool({ name: "has space", description: "d" })).toThrow(/`name`/);
    expect(() => executor.asTool({ name: "ok", description: "" })).toThrow(/`description`/);
  });
});

/** A specialist whose model looks its question up once, then answers; `gate` holds its lookups until both calls of a parallel turn started. */
function parallelSpecialist(gate: { started: number; open: () => void; opened: Promise<void> }) {
  const lookup = tool(
    async ({ q }: { q: string }) => {
      if (++gate.started === 2) gate.open();
      await gate.opened;
      return `facts about ${q}`;
    },
    { name: "lookup", description: "Looks facts up.", schema: z.object({ q: z.string() }) },
  );
  const llm = new ScriptedChatModel({
    streaming: true,
    onExhausted: "cycle",
    responses: [
      (messages) =>
        messages.at(-1)?.getType() === "tool"
          ? { content: `answer: ${messages.at(-1)?.text}`, usage }
          : { toolCalls: [{ name: "lookup", args: { q: String(messages.at(-1)?.text) } }], usage },
    ],
  });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup] });
}

function recordedSupervisor(researcher: AgentExecutor, store: InProcessRunStore, responses: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"], extra: StructuredToolInterface[] = []) {
  const research = researcher.asTool({ name: "researcher", description: "Researches a topic." });
  const tools = [research, ...extra];
  const llm = new ScriptedChatModel({ streaming: true, responses });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, store });
}

const decodeAll = (events: readonly StoredRunEvent[], runId: string) => {
  const decoder = new RunEventDecoder(runId);
  // A caller that records no tool intents nor decisions: its events and model calls.
  return events.map((stored) => decoder.decode(stored) as AgentStreamEvent | RecordedModelCall);
};

describe("executor.asTool, in a recorded caller", () => {
  it.each(["invoke", "stream"] as const)("records the sub-run's model calls in the caller's record (%s), marked with its path and the caller's tool call id", async (how) => {
    const store = new InProcessRunStore();
    const caller = recordedSupervisor(specialist("Moon."), store, [{ toolCalls: [{ name: "researcher", args: { input: "tides" }, id: "r1" }], usage }, { content: "Summary.", usage }]);
    if (how === "invoke") await caller.invoke({ input: "x" }, { runId: "sup" });
    else await collect(caller.stream({ input: "x" }, { runId: "sup" }));
    const stored = await store.readEvents("sup");
    const calls = stored.filter((event) => event.type === "model_call").map((event) => event.data);
    // The caller's own calls keep their numbering; the sub-run's two are marked, with its own.
    expect(calls.filter((call) => call["subRun"] === undefined).map((call) => call["call"])).toEqual([0, 1]);
    const sub = calls.filter((call) => call["subRun"] !== undefined);
    expect(sub).toHaveLength(2);
    expect(sub.map((call) => [call["subRun"], call["subRunCallIds"], call["call"], call["iteration"]])).toEqual([
      [["researcher"], ["r1"], 0, 0],
      [["researcher"], ["r1"], 1, 1],
    ]);
    // Every recorded sub-run event names the tool call too; decoding keeps both paths.
    const decoded = decodeAll(stored, "sup");
    const subEvents = decoded.filter((event) => event.subRun !== undefined);
    expect(subEvents.map((event) => event.type)).toEqual(expect.arrayContaining(["start", "action", "step", "output", "model_call"]));
    expect(subEvents.every((event) => event.subRunCallIds?.join() === "r1")).toBe(true);
    const decodedCall = decoded.find((event) => event.type === "model_call" && event.subRun !== undefined);
    expect(decodedCall).toMatchObject({ type: "model_call", subRun: ["researcher"], subRunCallIds: ["r1"], call: 0, inputCount: 1 });
    // A resume counts only the caller's own model calls; usage is counted once (the usage events).
    const info = await store.getRun("sup");
    const restored = restoreRunState(info as NonNullable<typeof info>, stored);
    expect(restored.modelCalls).toBe(2);
    expect(restored.state.usage).toMatchObject({ total_tokens: 60 });
  });

  it("invoke of a recorded caller emits one result, the caller's own (not its sub-run's)", async () => {
    const store = new InProcessRunStore();
    const caller = recordedSupervisor(specialist("Moon."), store, [{ toolCalls: [{ name: "researcher", args: { input: "tides" }, id: "r1" }], usage }, { content: "Summary.", usage }]);
    const results = await lastValueFrom(caller.invoke({ input: "x" }, { runId: "sup-one" }).pipe(toArray()));
    expect(results.map((result) => result.output)).toEqual(["Summary."]);
    expect(results[0]).toMatchObject({ input: "x", runId: "sup-one", stopReason: "finish" });
  });

  it("two calls of one sub-agent tool at once: each sub-run's events and model calls carry their own call's id", async () => {
    const store = new InProcessRunStore();
    let open = () => {};
    const gate = { started: 0, open: () => open(), opened: new Promise<void>((resolve) => (open = resolve)) };
    const caller = recordedSupervisor(parallelSpecialist(gate), store, [
      {
        toolCalls: [
          { name: "researcher", args: { input: "tides" }, id: "a" },
          { name: "researcher", args: { input: "waves" }, id: "b" },
        ],
        usage,
      },
      { content: "Both.", usage },
    ]);
    const events = await collect(caller.stream({ input: "x" }, { runId: "par" }));
    // Live: each sub-run's start names the call that started it.
    const starts = events.filter((event): event is Extract<AgentStreamEvent, { type: "start" }> => event.type === "start" && event.subRun !== undefined);
    expect(Object.fromEntries(starts.map((event) => [event.inputs["input"], event.subRunCallIds]))).toEqual({ tides: ["a"], waves: ["b"] });
    // Recorded: the sub-runs interleave, and each event and model call is told apart by its id.
    const decoded = decodeAll(await store.readEvents("par"), "par").filter((event) => event.subRun !== undefined);
    const byId = (id: string) => decoded.filter((event) => event.subRunCallIds?.[0] === id);
    expect(byId("a").length + byId("b").length).toBe(decoded.length);
    for (const [id, topic] of [["a", "tides"], ["b", "waves"]] as const) {
      const own = byId(id);
      expect(own.find((event) => event.type === "start")).toMatchObject({ inputs: { input: topic } });
      expect(own.find((event) => event.type === "action")).toMatchObject({ action: { toolInput: { q: topic } } });
      expect(own.filter((event) => event.type === "model_call")).toHaveLength(2);
      expect(own.find((event) => event.type === "output")).toMatchObject({ output: `answer: facts about ${topic}` });
    }
    const seqOf = (id: string, type: string) => decoded.findIndex((event) => event.subRunCallIds?.[0] === id && event.type === type);
    expect(seqOf("b", "start")).toBeLessThan(seqOf("a", "output")); // they did run at once
  });

  it("two calls of one sub-agent tool with the same id (an agent of your own that repeats one): told apart as <id>#<index>", async () => {
    let open = () => {};
    const gate = { started: 0, open: () => open(), opened: new Promise<void>((resolve) => (open = resolve)) };
    const researcher = parallelSpecialist(gate).asTool({ name: "researcher", description: "Researches." });
    const { agent } = scriptedAgent([[toolCall("researcher", { input: "tides" }, "same"), toolCall("researcher", { input: "waves" }, "same")], finish("Both.")]);
    const events = await collect(new AgentExecutor({ agent, tools: [researcher] }).stream({ input: "x" }));
    const starts = events.filter((event): event is Extract<AgentStreamEvent, { type: "start" }> => event.type === "start" && event.subRun !== undefined);
    expect(Object.fromEntries(starts.map((event) => [event.inputs["input"], event.subRunCallIds]))).toEqual({ tides: ["same"], waves: ["same#1"] });
  });

  it("nested sub-runs: the path of names and the parallel path of call ids", async () => {
    const store = new InProcessRunStore();
    const inner = specialist("Deep.");
    const middleLlm = new ScriptedChatModel({ streaming: true, onExhausted: "cycle", responses: [{ toolCalls: [{ name: "checker", args: { input: "t" }, id: "m1" }], usage }, { content: "Checked.", usage }] });
    const checker = inner.asTool({ name: "checker", description: "Checks." });
    const middle = new AgentExecutor({ agent: createToolCallingAgent({ llm: middleLlm, tools: [checker], prompt }), tools: [checker] });
    const caller = recordedSupervisor(middle, store, [{ toolCalls: [{ name: "researcher", args: { input: "x" }, id: "o1" }], usage }, { content: "Done.", usage }]);
    await caller.invoke({ input: "x" }, { runId: "nest" });
    const calls = (await store.readEvents("nest")).filter((event) => event.type === "model_call").map((event) => [event.data["subRun"], event.data["subRunCallIds"]]);
    expect(calls).toEqual([
      [undefined, undefined],
      [["researcher"], ["o1"]],
      [["researcher", "checker"], ["o1", "m1"]],
      [["researcher", "checker"], ["o1", "m1"]],
      [["researcher"], ["o1"]],
      [undefined, undefined],
    ]);
    const nested = decodeAll(await store.readEvents("nest"), "nest").filter((event) => event.subRun?.length === 2);
    expect(nested.length).toBeGreaterThan(4);
    expect(nested.every((event) => event.subRunCallIds?.join(">") === "o1>m1")).toBe(true);
  });

  it("a fork of the caller copies the sub-run of a copied turn whole, with its model calls", async () => {
    const store = new InProcessRunStore();
    const first = [{ toolCalls: [{ name: "researcher", args: { input: "tides" }, id: "r1" }], usage }, { content: "Summary.", usage }];
    await recordedSupervisor(specialist("Moon."), store, first).invoke({ input: "x" }, { runId: "src" });
    // By default the fork copies every complete turn of the caller's own (the sub-run's turns are not the caller's).
    const forked = await recordedSupervisor(specialist("unused"), store, [{ content: "Forked.", usage }]).fork("src", { runId: "fork" });
    expect(forked.output).toBe("Forked.");
    const copied = (await store.readEvents("fork")).filter((event) => event.data["subRun"] !== undefined);
    const source = (await store.readEvents("src")).filter((event) => event.data["subRun"] !== undefined);
    expect(copied.map((event) => event.data)).toEqual(source.map((event) => event.data));
    expect(copied.map((event) => event.type)).toEqual(expect.arrayContaining(["start", "model_call", "action", "step", "output"]));
  });

  it("a resumed caller numbers its own model calls on from its own, and replays nothing of the sub-run", async () => {
    const store = new InProcessRunStore();
    const sent: string[] = [];
    const send = withApproval(tool(async ({ to }: { to: string }) => (sent.push(to), `sent to ${to}`), { name: "send", description: "Sends.", schema: z.object({ to: z.string() }) }));
    const caller = recordedSupervisor(
      specialist("Moon."),
      store,
      [{ toolCalls: [{ name: "researcher", args: { input: "tides" }, id: "r1" }], usage }, { toolCalls: [{ name: "send", args: { to: "ana" }, id: "s1" }], usage }, { content: "Sent.", usage }],
      [send],
    );
    const paused = await caller.invoke({ input: "x" }, { runId: "res" });
    expect(paused.interrupts).toHaveLength(1);
    const done = await caller.resume("res", { decisions: { [paused.interrupts?.[0]?.id as string]: "approve" } });
    expect(done.output).toBe("Sent.");
    expect(sent).toEqual(["ana"]);
    const calls = (await store.readEvents("res")).filter((event) => event.type === "model_call").map((event) => event.data);
    expect(calls.filter((call) => call["subRun"] === undefined).map((call) => call["call"])).toEqual([0, 1, 2]);
    expect(calls.filter((call) => call["subRun"] !== undefined)).toHaveLength(2);
  });
});
