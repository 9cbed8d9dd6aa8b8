import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { InvalidArgumentError, getIdempotencyKey } from "@agentrx/core";
import { AgentExecutor, type AgentStreamEvent, finalAnswerTool, toolCallBudget } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { DynamicTool, tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { collect, unhandledDuring } from "./test-helpers";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

function setup(options: { eagerTools?: boolean; approve?: boolean } = {}) {
  const log: string[] = [];
  const work = tool(
    async ({ name }: { name: string }) => {
      log.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      return `${name} done`;
    },
    { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
  );
  const tools = [options.approve ? withApproval(work) : work];
  const llm = new ScriptedChatModel({
    tokenDelayMs: 25,
    responses: [
      { toolCalls: [{ name: "work", args: { name: "a" } }, { name: "work", args: { name: "b" } }, { name: "work", args: { name: "c" } }] },
      "All done.",
    ],
  });
  const inner = createToolCallingAgent({ llm, tools, prompt });
  // Notes when the agent's answer is back, to see which tools started before it.
  const agent = RunnableLambda.from(async (input: Record<string, unknown>, config) => {
    const output = await inner.invoke(input as never, config);
    log.push("agent returned");
    return output;
  });
  const executor = new AgentExecutor({ agent, tools, ...(options.eagerTools ? { eagerTools: true } : {}) });
  return { executor, log, llm };
}

describe("eagerTools", () => {
  it("starts each tool call as soon as the stream moves on from it, keeps the events' contract", async () => {
    const { executor, log } = setup({ eagerTools: true });
    const events = await collect(executor.stream({ input: "go" }));
    const returned = log.indexOf("agent returned");
    // a and b were complete (the next call started streaming) before the model's answer was back.
    expect(log.indexOf("start a")).toBeLessThan(returned);
    expect(log.indexOf("start b")).toBeLessThan(returned);
    expect(log.filter((entry) => entry.startsWith("start"))).toHaveLength(3); // each ran once
    const actions = events.filter((event): event is Extract<AgentStreamEvent, { type: "action" }> => event.type === "action");
    expect(actions.every((event) => event.early === true)).toBe(true);
    // Every step comes after its action; the output is last.
    for (const step of events.filter((event) => event.type === "step")) {
      const observation = String((step as Extract<AgentStreamEvent, { type: "step" }>).step.observation);
      const action = actions.find((event) => observation.startsWith((event.action.toolInput as { name: string }).name));
      expect(events.indexOf(action as AgentStreamEvent)).toBeLessThan(events.indexOf(step));
    }
    expect(events.at(-1)).toMatchObject({ type: "output", output: "All done." });
  });

  it("is off by default: tools start after the answer, and invoke does not make the model stream", async () => {
    const { executor, log, llm } = setup();
    await executor.invoke({ input: "go" });
    expect(log.indexOf("start a")).toBeGreaterThan(log.indexOf("agent returned"));
    expect(llm.calls.every((call) => !call.streamed)).toBe(true);
  });

  it("counts each model call's usage once under invoke, as without eager dispatch", async () => {
    const plain = await setup().executor.invoke({ input: "go" });
    const eager = await setup({ eagerTools: true }).executor.invoke({ input: "go" });
    expect(plain.usage?.total_tokens).toBeGreaterThan(0);
    const { input_tokens, output_tokens, total_tokens } = plain.usage ?? {};
    expect(eager.usage).toMatchObject({ input_tokens, output_tokens, total_tokens });
  });

  it("never starts a tool that needs approval early", async () => {
    const { executor, log } = setup({ eagerTools: true, approve: true });
    const result = await executor.invoke({ input: "go" });
    expect(result.interrupts).toHaveLength(3);
    expect(log).toEqual(["agent returned"]);
  });

  it("aborts the early calls when the run is cancelled mid-stream", async () => {
    const { executor, log } = setup({ eagerTools: true });
    const subscription = executor.stream({ input: "go" }).subscribe();
    await new Promise((resolve) => setTimeout(resolve, 60));
    subscription.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(log).not.toContain("agent returned");
    expect(log.length).toBeLessThanOrEqual(2);
  });

  it.for([1, 2])("runs at most maxConcurrency (%i) calls at once, the early ones included; every call runs once", async (maxConcurrency) => {
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const fetchPage = tool(
      async ({ page }: { page: number }) => {
        started.push(page);
        peak = Math.max(peak, ++running);
        await new Promise((resolve) => setTimeout(resolve, 60));
        running--;
        return `page ${page}`;
      },
      { name: "fetch_page", description: "Fetches a page.", schema: z.object({ page: z.number() }) },
    );
    const llm = new ScriptedChatModel({ tokenDelayMs: 5, responses: [{ toolCalls: [1, 2, 3, 4, 5].map((page) => ({ name: "fetch_page", args: { page } })) }, "done"] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [fetchPage], prompt }), tools: [fetchPage], eagerTools: true, maxConcurrency, returnIntermediateSteps: true });
    const events = await collect(executor.stream({ input: "go" }));
    expect(peak).toBe(maxConcurrency);
    expect([...started].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(events.filter((event) => event.type === "action" && event.early === true).length).toBeGreaterThanOrEqual(1); // some did start early
    expect((events.at(-1) as Extract<AgentStreamEvent, { type: "output" }>).intermediateSteps?.map((step) => step.observation)).toEqual(["page 1", "page 2", "page 3", "page 4", "page 5"]);
  });

  it("validates the option", () => {
    const { executor } = setup();
    expect(executor).toBeDefined();
    expect(() => new AgentExecutor({ agent: RunnableLambda.from(() => ({ returnValues: { output: "" }, log: "" })), tools: [], eagerTools: "yes" as never })).toThrow(/eagerTools/);
  });

  it("counts early calls toward a tool-call budget before they start: a budget of 2 starts 2 of 3 calls", async () => {
    const { executor, log } = setup({ eagerTools: true });
    const events = await collect(executor.stream({ input: "go" }, { stopWhen: toolCallBudget(2) }));
    expect(log.filter((entry) => entry.startsWith("start"))).toEqual(["start a", "start b"]);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "budget" });
  });

  it("keeps the early calls that ran before a budget halted the stream as a partial turn: their events, their steps, what the generate call sees", async () => {
    const started: string[] = [];
    const work = tool(
      async ({ name }: { name: string }) => {
        started.push(name);
        return `${name} done`;
      },
      { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
    );
    // Four calls streamed 30 ms apart: a and b start (and finish) while c and d still stream; c
    // would be call 3 of a budget of 2, and the halt comes before d is complete.
    const llm = new ScriptedChatModel({ tokenDelayMs: 30, responses: [{ toolCalls: ["a", "b", "c", "d"].map((name) => ({ name: "work", args: { name } })) }, "From two results."] });
    const agent = createToolCallingAgent({ llm, tools: [work], prompt });
    const executor = new AgentExecutor({ agent, tools: [work], eagerTools: true, earlyStoppingMethod: "generate", returnIntermediateSteps: true });
    const events = await collect(executor.stream({ input: "go" }, { stopWhen: toolCallBudget(2) }));
    expect(started).toEqual(["a", "b"]); // calls past the budget never start
    const kept = events.filter((event) => event.type === "action" || event.type === "step");
    expect(kept.map((event) => event.type)).toEqual(["action", "action", "step", "step"]);
    const actions = kept.slice(0, 2) as Extract<AgentStreamEvent, { type: "action" }>[];
    expect(actions.map((event) => [event.action.toolInput, event.early, event.iteration])).toEqual([
      [{ name: "a" }, true, 0],
      [{ name: "b" }, true, 0],
    ]);
    expect(actions.every((event) => typeof event.idempotencyKey === "string")).toBe(true);
    const output = events.at(-1);
    expect(output).toMatchObject({ type: "output", stopReason: "budget", output: "From two results.", stoppedBy: { budget: "tool_calls", limit: 2 } });
    expect(output?.type === "output" && output.intermediateSteps?.map((step) => step.observation)).toEqual(["a done", "b done"]);
    // The generate call sees one model message asking for a and b, and their two results.
    const seen = llm.calls[1]?.messages ?? [];
    const asked = seen.flatMap((message) => (message as { tool_calls?: { id?: string }[] }).tool_calls ?? []);
    const answered = seen.filter((message) => message.getType() === "tool");
    expect(asked.map((call) => call.id)).toEqual(actions.map((event) => (event.action as { toolCallId?: string }).toolCallId));
    expect(answered.map((message) => [(message as { tool_call_id?: string }).tool_call_id, message.text])).toEqual(asked.map((call, i) => [call.id, `${["a", "b"][i]} done`]));
  });

  it("a partial turn of returnDirect calls never returns directly: live it stops through generate, resumed (after a crash at the generate call) the model is asked", async () => {
    const work = tool(async ({ name }: { name: string }) => `${name} ok`, { name: "work", description: "Works.", schema: z.object({ name: z.string() }), returnDirect: true });
    const streamed = { toolCalls: ["a", "b", "c", "d"].map((name) => ({ name: "work", args: { name } })) };
    // Run "whole": the calls, then the generate call's answer; run "cut": the calls, then its
    // process dies at the generate call; then the resumed "cut".
    const cut = new AbortController();
    const dies = () => {
      cut.abort(); // the run stops at its generate call, as a process that died there
      return "never seen";
    };
    const llm = new ScriptedChatModel({ tokenDelayMs: 30, responses: [streamed, "Generated from a and b.", streamed, dies, "Asked again after the resume."] });
    const store = new InProcessRunStore();
    const agent = createToolCallingAgent({ llm, tools: [work], prompt });
    const executor = new AgentExecutor({ agent, tools: [work], eagerTools: true, earlyStoppingMethod: "generate", store });
    const live = await collect(executor.stream({ input: "go" }, { runId: "whole", stopWhen: toolCallBudget(2) }));
    expect(live.at(-1)).toMatchObject({ type: "output", stopReason: "budget", output: "Generated from a and b." });
    const partial = live.filter((event): event is Extract<AgentStreamEvent, { type: "action" }> => event.type === "action");
    expect(partial.map((event) => event.partialTurn)).toEqual([true, true]);
    // The same run, its process gone at the generate call: the record ends with the partial turn's steps.
    await collect(executor.stream({ input: "go" }, { runId: "cut", stopWhen: toolCallBudget(2), signal: cut.signal })).catch(() => undefined);
    expect((await store.getRun("cut"))?.status).toBe("cancelled");
    const resumed = await collect(executor.resume("cut"));
    expect(resumed.at(-1)).toMatchObject({ type: "output", stopReason: "finish", output: "Asked again after the resume." });
  });

  it("fails the run with the error of an early call that threw before a budget halted the stream, as a kept call's error does", async () => {
    const work = tool(
      async ({ name }: { name: string }) => {
        if (name === "b") throw new Error("b broke");
        return `${name} done`;
      },
      { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
    );
    const llm = new ScriptedChatModel({ tokenDelayMs: 30, responses: [{ toolCalls: ["a", "b", "c", "d"].map((name) => ({ name: "work", args: { name } })) }, "never"] });
    const agent = createToolCallingAgent({ llm, tools: [work], prompt });
    const executor = new AgentExecutor({ agent, tools: [work], eagerTools: true, handleToolRuntimeErrors: false });
    await expect(collect(executor.stream({ input: "go" }, { stopWhen: toolCallBudget(2) }))).rejects.toThrow("b broke");
  });

  it("records an early call before it starts (write-ahead), so a crash leaves it in the record", async () => {
    const store = new InProcessRunStore();
    const typesAtStart: string[][] = [];
    const work = tool(
      async ({ name }: { name: string }) => {
        typesAtStart.push((await store.readEvents("eager")).map((event) => event.type));
        return `${name} done`;
      },
      { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
    );
    const llm = new ScriptedChatModel({ tokenDelayMs: 20, responses: [{ toolCalls: [{ name: "work", args: { name: "a" } }, { name: "work", args: { name: "b" } }] }, "ok"] });
    const agent = createToolCallingAgent({ llm, tools: [work], prompt });
    await collect(new AgentExecutor({ agent, tools: [work], eagerTools: true, store }).stream({ input: "go" }, { runId: "eager" }));
    expect(typesAtStart).toHaveLength(2);
    expect(typesAtStart[0]).toContain("tool_intent");
    expect(typesAtStart[0]).not.toContain("action"); // it started before the model's answer was complete
  });
});

describe("eagerTools, calls without ids", () => {
  it("gives each early call without a tool-call id its own idempotency key, and its own key apart from the turn's other calls", async () => {
    const keys: string[] = [];
    const work = tool(
      async ({ name }: { name: string }, config) => {
        keys.push(`${name} ${getIdempotencyKey(config)}`);
        return `${name} done`;
      },
      { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
    );
    const slow = tool(async () => "slow done", { name: "slow", description: "Never early.", schema: z.object({}) });
    // The provider streamed no ids: two calls of `work` start early, `slow` (not eager) after the answer.
    const llm = new ScriptedChatModel({
      tokenDelayMs: 10,
      responses: [{ toolCalls: [{ name: "work", args: { name: "a" }, id: "" }, { name: "work", args: { name: "b" }, id: "" }, { name: "slow", args: {}, id: "" }, { name: "work", args: { name: "c" }, id: "" }] }, "ok"],
    });
    const agent = createToolCallingAgent({ llm, tools: [work, slow], prompt });
    const events = await collect(new AgentExecutor({ agent, tools: [work, slow], eagerTools: (candidate) => candidate.name === "work" }).stream({ input: "go" }, { runId: "keyless" }));
    expect(events.at(-1)).toMatchObject({ type: "output", output: "ok" });
    expect(keys, keys.join(" | ")).toHaveLength(3);
    const actions = events.filter((event): event is Extract<AgentStreamEvent, { type: "action" }> => event.type === "action");
    const actionKeys = actions.map((event) => event.idempotencyKey);
    // Four calls, four keys; each tool call ran with the key its action event carries.
    expect(new Set(actionKeys).size).toBe(4);
    for (const entry of keys) {
      const [name, key] = entry.split(" ");
      const action = actions.find((event) => (event.action.toolInput as { name?: string }).name === name);
      expect(action?.idempotencyKey).toBe(key);
    }
  });
});

describe("eagerTools, a tool that takes a string", () => {
  it("runs a string tool's early call once: its streamed `{ __arg1 }` is the string the turn's action carries", async () => {
    const inputs: unknown[] = [];
    const echo = new DynamicTool({ name: "echo", description: "Echoes.", func: async (input: string) => (inputs.push(input), `echo ${input}`) });
    const llm = new ScriptedChatModel({ tokenDelayMs: 10, responses: [{ toolCalls: [{ name: "echo", args: { __arg1: "hi" } }, { name: "echo", args: { __arg1: "there" } }] }, "ok"] });
    const agent = createToolCallingAgent({ llm, tools: [echo], prompt });
    const events = await collect(new AgentExecutor({ agent, tools: [echo], eagerTools: true }).stream({ input: "go" }));
    expect(inputs).toEqual(["hi", "there"]);
    const actions = events.filter((event): event is Extract<AgentStreamEvent, { type: "action" }> => event.type === "action");
    expect(actions.map((event) => [event.action.toolInput, event.early])).toEqual([["hi", true], ["there", true]]);
  });
});

describe("eagerTools, calls the turn does not keep", () => {
  it("aborts an early call the model streamed next to its final answer (outputSchema): the answer has no turn", async () => {
    const log: string[] = [];
    const charge = tool(
      async (_input: { cents: number }, config) => {
        log.push("charge started");
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, 300);
          config?.signal?.addEventListener("abort", () => (clearTimeout(timer), log.push("charge aborted"), reject(new Error("aborted"))), { once: true });
        });
        log.push("charge finished");
        return "charged";
      },
      { name: "charge", description: "Charges.", schema: z.object({ cents: z.number() }) },
    );
    const Answer = z.object({ answer: z.string() });
    const llm = new ScriptedChatModel({ tokenDelayMs: 20, responses: [{ toolCalls: [{ name: "charge", args: { cents: 5 } }, { name: "final_answer", args: { answer: "hi" } }] }] });
    const agent = createToolCallingAgent({ llm, tools: [charge, finalAnswerTool(Answer)], prompt });
    const result = await new AgentExecutor({ agent, tools: [charge], eagerTools: true, outputSchema: Answer }).invoke({ input: "go" });
    expect(result.structuredOutput).toEqual({ answer: "hi" });
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(log).toEqual(["charge started", "charge aborted"]);
  });

  it("leaves no listener on the run's signal for each early call a turn kept", async () => {
    const counts: number[] = [];
    const work = tool(
      async ({ n }: { n: number }) => {
        counts.push(n);
        return `done ${n}`;
      },
      { name: "work", description: "Works.", schema: z.object({ n: z.number() }) },
    );
    const turns = 15;
    const llm = new ScriptedChatModel({ tokenDelayMs: 1, responses: [...Array.from({ length: turns }, (_, n) => ({ toolCalls: [{ name: "work", args: { n } }] })), "ok"] });
    const agent = createToolCallingAgent({ llm, tools: [work], prompt });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      const result = await new AgentExecutor({ agent, tools: [work], eagerTools: true, maxIterations: 50 }).invoke({ input: "go" });
      expect(result.output).toBe("ok");
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(counts).toHaveLength(turns);
    // Fifteen kept calls each left a listener on the run's signal before: past ten, Node warns.
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });
});

describe("eagerTools and a sub-run started early", () => {
  function researcher() {
    const reply = { content: "Sunny.", usage: { inputTokens: 7, outputTokens: 3 } };
    const llm = new ScriptedChatModel({ responses: [reply, reply] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [] });
    return executor.asTool({ name: "researcher", description: "Researches." });
  }

  it("streams the sub-run's events after the action that asked for it, and records them so", async () => {
    const research = researcher();
    const llm = new ScriptedChatModel({ tokenDelayMs: 15, responses: [{ toolCalls: [{ name: "researcher", args: { input: "Paris?" } }, { name: "researcher", args: { input: "Rome?" } }] }, "Both sunny."] });
    const store = new InProcessRunStore();
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [research], prompt }), tools: [research], eagerTools: true, store });
    const events = await collect(executor.stream({ input: "Weather?" }, { runId: "held" }));
    const firstAction = events.findIndex((event) => event.type === "action" && event.subRun === undefined);
    const firstSubRun = events.findIndex((event) => event.subRun !== undefined);
    expect(firstAction).toBeGreaterThan(-1);
    expect(firstSubRun).toBeGreaterThan(firstAction);
    expect(events.filter((event) => event.type === "output" && event.subRun !== undefined)).toHaveLength(2);
    const recorded = (await store.readEvents("held")).map((event) => event.data as unknown as AgentStreamEvent);
    const recordedAction = recorded.findIndex((event) => event.type === "action" && event.subRun === undefined);
    // (A sub-run's model calls are recorded as they end, as the run's own are: what they cost.)
    expect(recorded.findIndex((event) => event.subRun !== undefined && (event.type as string) !== "model_call")).toBeGreaterThan(recordedAction);
  });

  it("leaves no event of a dropped early call's sub-run in the stream, and counts its model call's usage", async () => {
    const research = researcher();
    const Answer = z.object({ answer: z.string() });
    const llm = new ScriptedChatModel({
      tokenDelayMs: 20,
      responses: [{ toolCalls: [{ name: "researcher", args: { input: "Paris?" } }, { name: "final_answer", args: { answer: "I did not need it after all." } }], usage: { inputTokens: 100, outputTokens: 10 } }],
    });
    const agent = createToolCallingAgent({ llm, tools: [research, finalAnswerTool(Answer)], prompt });
    const events = await collect(new AgentExecutor({ agent, tools: [research], eagerTools: true, outputSchema: Answer }).stream({ input: "Weather?" }));
    expect(events.filter((event) => event.subRun !== undefined)).toEqual([]);
    const output = events.at(-1) as Extract<AgentStreamEvent, { type: "output" }>;
    expect(output.structuredOutput).toEqual({ answer: "I did not need it after all." });
    expect(output.usage).toMatchObject({ input_tokens: 107, output_tokens: 13 });
  });
});

describe("eagerTools and a model call that fails after an early call finished", () => {
  it("runs the call once: the next attempt (a modelFallback's backup) that asks for the same call takes its result", async () => {
    const { modelFallback } = await import("@agentrx/executors");
    let charged!: () => void;
    const firstCharged = new Promise<void>((resolve) => (charged = resolve));
    /** A model whose stream breaks (a dropped connection) after 12 chunks, once the first call has finished. */
    class BreaksMidStream extends ScriptedChatModel {
      override async *_streamResponseChunks(...args: Parameters<ScriptedChatModel["_streamResponseChunks"]>) {
        let chunks = 0;
        for await (const chunk of super._streamResponseChunks(...args)) {
          yield chunk;
          if (++chunks >= 12) {
            await firstCharged; // the first call ran; a macrotask later its result is in
            await new Promise((resolve) => setTimeout(resolve, 50));
            throw new Error("stream broke");
          }
        }
      }
    }
    const ran: string[] = [];
    const charge = tool(async ({ id }: { id: string }) => (ran.push(id), charged(), `charged ${id}`), { name: "charge", description: "Charges.", schema: z.object({ id: z.string() }) });
    const call = (id: string, callId: string) => ({ name: "charge", args: { id }, id: callId });
    const primary = new BreaksMidStream({ toolCallChunkSize: 4, responses: [{ toolCalls: [call("a", "c1"), call("b".repeat(40), "c2")] }] });
    const backup = new ScriptedChatModel({ responses: [{ toolCalls: [call("a", "c1")] }, "done"] });
    const agent = createToolCallingAgent({ llm: primary, tools: [charge], prompt });
    const store = new InProcessRunStore();
    const result = await new AgentExecutor({ agent, tools: [charge], eagerTools: true, store, middleware: [modelFallback([backup])] }).invoke({ input: "x" }, { runId: "fallback-eager" });
    expect(result.output).toBe("done");
    expect(ran).toEqual(["a"]);
    const intents = (await store.readEvents("fallback-eager")).filter((event) => event.type === "tool_intent");
    expect(intents).toHaveLength(1);
  });
});

describe("an eagerTools function", () => {
  const ping = tool(async () => "pong", { name: "ping", description: "Pings.", schema: z.object({}) });
  /** A run whose model streams `calls` calls of `ping` (usage 10 + 5 each model call), recorded as `runId`. */
  async function eagerRun(eagerTools: unknown, runId: string, calls = 1) {
    const store = new InProcessRunStore();
    const llm = new ScriptedChatModel({
      model: "m1",
      responses: [{ toolCalls: Array.from({ length: calls }, () => ({ name: "ping", args: {} })), usage: { inputTokens: 10, outputTokens: 5 } }, "done"],
    });
    const agent = createToolCallingAgent({ llm, tools: [ping], prompt });
    const { unhandled, error } = await unhandledDuring(() => new AgentExecutor({ agent, tools: [ping], store, eagerTools: eagerTools as never }).invoke({ input: "go" }, { runId }));
    const types = (await store.readEvents(runId)).map((event) => event.type);
    return { error, unhandled, types };
  }

  it.each([1, 2])("that throws fails the run naming `eagerTools` (its error as the cause), and the model call's usage and record are kept (%s calls)", async (calls) => {
    const thrown = new Error("eager broke");
    const { error, types } = await eagerRun(() => {
      throw thrown;
    }, `eager-throws-${calls}`, calls);
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("eagerTools");
    expect((error as Error).message).toBe('AgentExecutor: the `eagerTools` function threw for tool "ping": eager broke');
    expect((error as Error).cause).toBe(thrown);
    expect(types.slice(0, 3)).toEqual(["start", "usage", "model_call"]);
    expect(types).not.toContain("action");
  });

  it.each([
    ["an async function", async () => true, "a Promise"],
    ["one that rejects", () => Promise.reject(new Error("eager rejected")), "a Promise"],
    ["one that returns nothing", () => undefined, "undefined"],
    ["one that returns a string", () => "yes", '"yes"'],
  ])("%s fails the run naming `eagerTools`, with no unhandled rejection", async (_, eagerTools, got) => {
    const { error, unhandled, types } = await eagerRun(eagerTools, "eager-refused");
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("eagerTools");
    expect((error as Error).message).toContain(`the \`eagerTools\` function must return a boolean (whether tool "ping" may start while the model streams), got ${got}`);
    expect(unhandled).toEqual([]);
    expect(types.slice(0, 3)).toEqual(["start", "usage", "model_call"]);
  });

  it("that returns a boolean decides, as ever", async () => {
    const { error, types } = await eagerRun((candidate: { name: string }) => candidate.name === "ping", "eager-ok");
    expect(error).toBeUndefined();
    expect(types).toContain("output");
  });
});
