import { createToolCallingAgent } from "@agentrx/agents";
import type { AgentStep } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentMiddleware, MiddlewareError, type MiddlewareEvent, stopRun, type ToolCallRequest } from "@agentrx/executors";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { withApproval } from "@agentrx/tools";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, collect, deferred, echoTool, finish, scriptedAgent } from "../executor/test-helpers";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);
const upper = tool(async ({ text }: { text: string }) => text.toUpperCase(), { name: "upper", description: "Upper-cases.", schema: z.object({ text: z.string() }) });

describe("prepareStep", () => {
  it("changes the inputs and steps of the next agent call only; the run keeps every step", async () => {
    const { agent, inputs } = scriptedAgent([act("echo", { text: "a" }), act("echo", { text: "b" }), finish("done")]);
    const seen: { iteration: number; steps: number }[] = [];
    const middleware: AgentMiddleware = {
      prepareStep({ iteration, steps, inputs: given }) {
        seen.push({ iteration, steps: steps.length });
        return iteration === 2 ? { inputs: { ...given, input: "changed" }, steps: steps.slice(-1) } : undefined;
      },
    };
    const executor = new AgentExecutor({ agent, tools: [echoTool], middleware: [middleware], returnIntermediateSteps: true });
    const result = await executor.invoke({ input: "hi" });
    expect(seen).toEqual([{ iteration: 0, steps: 0 }, { iteration: 1, steps: 1 }, { iteration: 2, steps: 2 }]);
    expect(inputs[2]?.["input"]).toBe("changed");
    expect(inputs[2]?.steps.map((step) => step.observation)).toEqual(["b"]);
    expect(inputs[1]?.["input"]).toBe("hi");
    expect(result.intermediateSteps?.map((step) => step.observation)).toEqual(["a", "b"]);
  });

  it("swaps the model and the tools offered of a built-in agent for one call", async () => {
    const own = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }, "own model's answer"] });
    const other = new ScriptedChatModel({ responses: ["other model's answer"] });
    const agent = createToolCallingAgent({ llm: own, tools: [echoTool, upper], prompt });
    const middleware: AgentMiddleware = {
      prepareStep: ({ iteration }) => (iteration === 0 ? { tools: [echoTool] } : { model: other }),
    };
    const result = await new AgentExecutor({ agent, tools: [echoTool, upper], middleware: [middleware] }).invoke({ input: "hi" });
    expect(result.output).toBe("other model's answer");
    expect(own.calls.map((call) => call.toolNames)).toEqual([["echo"]]);
    expect(other.calls[0]?.toolNames).toEqual(["echo", "upper"]);
  });

  it("refuses a model swap for an agent that always uses its own model, naming the middleware", async () => {
    const { agent } = scriptedAgent([finish("never")]);
    const other = new ScriptedChatModel({ responses: ["x"] });
    const executor = new AgentExecutor({ agent, tools: [], middleware: [{ name: "swapper", prepareStep: () => ({ model: other }) }] });
    const error = await executor.invoke({ input: "hi" }).then(() => undefined, (caught: unknown) => caught);
    expect(MiddlewareError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/Middleware "swapper" failed in prepareStep: .*always uses its own/);
  });

  it("refuses tools that are not the executor's", async () => {
    const agent = createToolCallingAgent({ llm: new ScriptedChatModel({ responses: ["x"] }), tools: [echoTool], prompt });
    const executor = new AgentExecutor({ agent, tools: [echoTool], middleware: [{ prepareStep: () => ({ tools: [upper] }) }] });
    await expect(executor.invoke({ input: "hi" })).rejects.toThrow(/middleware\[0\]" failed in prepareStep: `tools` may only hold the executor's own tools \(echo\); got "upper"/);
  });
});

describe("what a hook hands back", () => {
  it("refuses a prepareStep result with a misspelt key instead of ignoring it", async () => {
    const { agent, inputs } = scriptedAgent([finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [], middleware: [{ name: "trim", prepareStep: ({ steps }) => ({ step: steps.slice(-1) }) as never }] });
    await expect(executor.invoke({ input: "hi" })).rejects.toThrow(/Middleware "trim" failed in prepareStep: prepareStep returned an unknown key `step` \(it would be ignored\); it may return inputs, steps, model, tools, compaction/);
    expect(inputs).toHaveLength(0);
  });

  it("takes a prepareStep result spread from its arguments, but refuses one that changes what it cannot", async () => {
    const { agent, inputs } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
    const spread: AgentMiddleware = { prepareStep: (args) => ({ ...args, steps: args.steps.slice(-1) }) };
    const result = await new AgentExecutor({ agent, tools: [echoTool], middleware: [spread] }).invoke({ input: "hi" });
    expect(result.output).toBe("done");
    expect(inputs.map((input) => input.steps.length)).toEqual([0, 1]);
    const { agent: other } = scriptedAgent([finish("never")]);
    const changed: AgentMiddleware = { name: "skip", prepareStep: (args) => ({ ...args, iteration: args.iteration + 1 }) as never };
    await expect(new AgentExecutor({ agent: other, tools: [], middleware: [changed] }).invoke({ input: "hi" })).rejects.toThrow(
      /Middleware "skip" failed in prepareStep: prepareStep returned `iteration` changed, but it cannot change it/,
    );
  });

  it("refuses a request passed to next with a misspelt or unchangeable key, naming the hook", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
    const misspelt: AgentMiddleware = { name: "inputs", wrapModelCall: (request, next) => next({ ...request, input: { input: "other" } } as never) };
    await expect(new AgentExecutor({ agent, tools: [echoTool], middleware: [misspelt] }).invoke({ input: "hi" })).rejects.toThrow(
      /Middleware "inputs" failed in wrapModelCall: next\(\) was given the request with an unknown key `input` \(it would be ignored\); it may change inputs, steps, model, tools, signal/,
    );
    const { agent: toolAgent } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
    let ran = 0;
    const counted = tool(async ({ text }: { text: string }) => (ran++, text), { name: "echo", description: "Echoes.", schema: z.object({ text: z.string() }) });
    const renumbered: AgentMiddleware = { name: "renumber", wrapToolCall: (call, next) => next({ ...call, index: 7 }) };
    await expect(new AgentExecutor({ agent: toolAgent, tools: [counted], middleware: [renumbered] }).invoke({ input: "hi" })).rejects.toThrow(
      /Middleware "renumber" failed in wrapToolCall: next\(\) was given the request with `index` changed, which a tool call cannot change/,
    );
    expect(ran).toBe(0);
    // The request as given, or a copy with what may change, passes.
    const { agent: fine } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
    const rewrite: AgentMiddleware = {
      wrapModelCall: (request, next) => next({ ...request, inputs: { ...request.inputs, input: "changed" } }),
      wrapToolCall: (call, next) => next({ ...call, action: { ...call.action, toolInput: { text: "b" } } }),
    };
    const result = await new AgentExecutor({ agent: fine, tools: [echoTool], middleware: [rewrite], returnIntermediateSteps: true }).invoke({ input: "hi" });
    expect(result.intermediateSteps?.map((step) => step.observation)).toEqual(["b"]);
  });

  it("refuses a request passed to next whose action, inputs, steps or signal is of the wrong type, naming the hook", async () => {
    const refused = async (middleware: AgentMiddleware, message: RegExp) => {
      const { agent, inputs } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
      let ran = 0;
      const counted = tool(async ({ text }: { text: string }) => (ran++, text), { name: "echo", description: "Echoes.", schema: z.object({ text: z.string() }) });
      await expect(new AgentExecutor({ agent, tools: [counted], middleware: [{ name: "bad", ...middleware }] }).invoke({ input: "hi" })).rejects.toThrow(message);
      return { ran, agentCalls: inputs.length };
    };
    // A tool name where the action goes: the call would have failed quietly as an unknown tool.
    expect(await refused({ wrapToolCall: (call, next) => next({ ...call, action: "echo" as never }) }, /Middleware "bad" failed in wrapToolCall: next\(\) was given the request with `action` set to a string; it must be an AgentAction/)).toEqual({ ran: 0, agentCalls: 1 });
    await refused({ wrapToolCall: (call, next) => next({ ...call, action: null as never }) }, /`action` set to null; it must be an AgentAction/);
    await refused({ wrapToolCall: (call, next) => next({ ...call, signal: "stop" as never }) }, /`signal` set to a string; it must be an AbortSignal/);
    // The prompt would have been blamed for a missing variable.
    expect(await refused({ wrapModelCall: (request, next) => next({ ...request, inputs: null as never }) }, /Middleware "bad" failed in wrapModelCall: next\(\) was given the request with `inputs` set to null; it must be an object/)).toEqual({ ran: 0, agentCalls: 0 });
    await refused({ wrapModelCall: (request, next) => next({ ...request, steps: { length: 0 } as never }) }, /`steps` set to an object with keys length; it must be an array of AgentSteps/);
    await refused({ wrapModelCall: ({ inputs, steps }, next) => next({ inputs, steps } as never) }, /`signal` missing; it must be an AbortSignal/);
  });

  it("fails a wrap hook that resolves to nothing, naming it, instead of recording an empty observation", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
    const forgot: AgentMiddleware = {
      name: "audit",
      async wrapToolCall(call: ToolCallRequest, next: (call: ToolCallRequest) => Promise<unknown>) {
        await next(call); // no return
      },
    } as unknown as AgentMiddleware;
    await expect(new AgentExecutor({ agent, tools: [echoTool], middleware: [forgot] }).invoke({ input: "hi" })).rejects.toThrow(
      /Middleware "audit" failed in wrapToolCall: wrapToolCall must resolve to the tool call's observation .*, got undefined \(a missing `return`\?\)/,
    );
    const { agent: other } = scriptedAgent([finish("done")]);
    const model = { name: "measure", wrapModelCall: async () => undefined } as unknown as AgentMiddleware;
    await expect(new AgentExecutor({ agent: other, tools: [], middleware: [model] }).invoke({ input: "hi" })).rejects.toThrow(
      /Middleware "measure" failed in wrapModelCall: wrapModelCall must resolve to the agent's output/,
    );
  });
});

describe("order", () => {
  it("runs the first middleware outermost in every hook", async () => {
    const log: string[] = [];
    const traced = (name: string): AgentMiddleware => ({
      name,
      prepareStep: ({ iteration }) => void log.push(`${name}.prepare#${iteration}`),
      async wrapModelCall(request, next) {
        log.push(`${name}>model`);
        const output = await next(request);
        log.push(`${name}<model`);
        return output;
      },
      async wrapToolCall(call, next) {
        log.push(`${name}>tool`);
        const observation = await next(call);
        log.push(`${name}<tool`);
        return observation;
      },
      afterTurn: ({ turnSteps }) => void log.push(`${name}.afterTurn(${turnSteps.length})`),
    });
    const { agent } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
    await new AgentExecutor({ agent, tools: [echoTool], middleware: [traced("A"), traced("B")] }).invoke({ input: "hi" });
    expect(log).toEqual([
      "A.prepare#0", "B.prepare#0", "A>model", "B>model", "B<model", "A<model",
      "A>tool", "B>tool", "B<tool", "A<tool", "A.afterTurn(1)", "B.afterTurn(1)",
      "A.prepare#1", "B.prepare#1", "A>model", "B>model", "B<model", "A<model",
    ]);
  });

  it("makes the \"generate\" call of early stopping as every agent call: prepareStep, then wrapModelCall, first middleware outermost", async () => {
    const log: string[] = [];
    const seen: { forceFinalAnswer: unknown; steps: number }[] = [];
    const agent = RunnableLambda.from((input: { steps: AgentStep[]; forceFinalAnswer?: boolean }) => {
      seen.push({ forceFinalAnswer: input.forceFinalAnswer, steps: input.steps.length });
      return input.forceFinalAnswer ? { returnValues: { output: "final" }, log: "" } : { tool: "echo", toolInput: { text: "a" }, log: "", toolCallId: `c${seen.length}` };
    });
    const traced = (name: string): AgentMiddleware => ({
      name,
      prepareStep: ({ iteration }) => void log.push(`${name}.prepare#${iteration}`),
      async wrapModelCall(request, next) {
        log.push(`${name}>model#${request.iteration}${request.inputs["forceFinalAnswer"] === true ? " (final)" : ""}`);
        const output = await next(request);
        log.push(`${name}<model`);
        // The outer middleware changes the final answer: proof its result is the run's.
        return name === "A" && request.inputs["forceFinalAnswer"] === true ? { returnValues: { output: "final, checked by A" }, log: "" } : output;
      },
    });
    const executor = new AgentExecutor({ agent, tools: [echoTool], middleware: [traced("A"), traced("B")], maxIterations: 1, earlyStoppingMethod: "generate" });
    const result = await executor.invoke({ input: "hi" });
    expect(result.output).toBe("final, checked by A");
    expect(result.stopReason).toBe("max_iterations");
    expect(seen).toEqual([{ forceFinalAnswer: undefined, steps: 0 }, { forceFinalAnswer: true, steps: 1 }]);
    expect(log).toEqual([
      "A.prepare#0", "B.prepare#0", "A>model#0", "B>model#0", "B<model", "A<model",
      "A.prepare#1", "B.prepare#1", "A>model#1 (final)", "B>model#1 (final)", "B<model", "A<model",
    ]);
  });

  it("runs afterTurn once for a turn a pause left pending, when the resume finishes it", async () => {
    const log: string[] = [];
    const note = tool(async ({ text }: { text: string }) => `noted ${text}`, { name: "note", description: "Notes.", schema: z.object({ text: z.string() }) });
    const mail = withApproval(tool(async ({ to }: { to: string }) => `sent to ${to}`, { name: "send", description: "Sends.", schema: z.object({ to: z.string() }) }));
    const { agent } = scriptedAgent([[act("note", { text: "a" }), act("send", { to: "ana" })], act("note", { text: "b" }), finish("done")]);
    const middleware: AgentMiddleware = {
      afterTurn: ({ iteration, turnSteps }) => void log.push(`afterTurn#${iteration}: ${turnSteps.map((step) => step.observation).join(", ")}`),
    };
    const executor = new AgentExecutor({ agent, tools: [note, mail], middleware: [middleware] });
    const paused = await executor.invoke({ input: "note and mail" }, { runId: "after-turn-resume" });
    expect(paused.interrupts).toHaveLength(1);
    expect(log).toEqual([]);
    const done = await executor.resume("after-turn-resume", { decisions: { "call-0-1": "approve" } });
    expect(done.output).toBe("done");
    expect(log).toEqual(["afterTurn#0: noted a, sent to ana", "afterTurn#1: noted b"]);
  });

  it("lets wrapToolCall change the result and wrapModelCall retry the call", async () => {
    let calls = 0;
    const { agent } = scriptedAgent([
      () => {
        calls++;
        throw new Error("flaky");
      },
      act("echo", { text: "secret 123" }),
      finish("done"),
    ]);
    const retry: AgentMiddleware = {
      async wrapModelCall(request, next) {
        try {
          return await next(request);
        } catch {
          return next(request);
        }
      },
    };
    const redact: AgentMiddleware = { wrapToolCall: async (call, next) => String(await next(call)).replace(/\d/g, "#") };
    const result = await new AgentExecutor({ agent, tools: [echoTool], middleware: [retry, redact], returnIntermediateSteps: true }).invoke({ input: "hi" });
    expect(calls).toBe(1);
    expect(result.intermediateSteps?.[0]?.observation).toBe("secret ###");
    expect(result.output).toBe("done");
  });
});

describe("errors", () => {
  it("fails the run with a MiddlewareError naming the middleware and the hook", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
    const broken: AgentMiddleware = {
      name: "audit",
      afterTurn() {
        throw new Error("disk full");
      },
    };
    const error = (await new AgentExecutor({ agent, tools: [echoTool], middleware: [broken] }).invoke({ input: "hi" }).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as MiddlewareError;
    expect(MiddlewareError.isInstance(error)).toBe(true);
    expect(error.middleware).toBe("audit");
    expect(error.hook).toBe("afterTurn");
    expect(error.message).toBe('Middleware "audit" failed in afterTurn: disk full');
    expect((error.cause as Error).message).toBe("disk full");
  });

  it("does not blame a middleware for an error that only passed through it", async () => {
    const { agent } = scriptedAgent([new Error("model down")]);
    const passThrough: AgentMiddleware = { name: "measure", wrapModelCall: (request, next) => next(request) };
    const error = await new AgentExecutor({ agent, tools: [], middleware: [passThrough] }).invoke({ input: "hi" }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(MiddlewareError.isInstance(error)).toBe(false);
    expect((error as Error).message).toBe("model down");
  });

  it("does not blame a middleware for a thrown value that is not an object (a string) that only passed through it", async () => {
    const agent = RunnableLambda.from(() => {
      throw "model down"; // a string, not an Error
    });
    const passThrough: AgentMiddleware = { name: "measure", wrapModelCall: (request, next) => next(request) };
    const error = await new AgentExecutor({ agent, tools: [], middleware: [passThrough] }).invoke({ input: "hi" }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBe("model down");
    // A middleware that throws a string of its own is blamed.
    const own: AgentMiddleware = { name: "strict", wrapModelCall: () => Promise.reject("not allowed") };
    const blamed = await new AgentExecutor({ agent, tools: [], middleware: [own] }).invoke({ input: "hi" }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(MiddlewareError.isInstance(blamed)).toBe(true);
  });

  it("refuses bad middleware at construction, naming the problem", () => {
    const { agent } = scriptedAgent([]);
    expect(() => new AgentExecutor({ agent, tools: [], middleware: {} as never })).toThrow(/`middleware` must be an array/);
    expect(() => new AgentExecutor({ agent, tools: [], middleware: [{ prepareSteps: () => undefined } as never] })).toThrow(
      /middleware\[0\] has an unknown key `prepareSteps`/,
    );
    expect(() => new AgentExecutor({ agent, tools: [], middleware: [{ name: "x", afterTurn: 3 } as never] })).toThrow(/`middleware\[0\] \("x"\)\.afterTurn` must be a function/);
  });

  it("ends the run gracefully when a hook calls stopRun", async () => {
    const { agent, inputs } = scriptedAgent([act("echo", { text: "a" }), act("echo", { text: "b" }), finish("done")]);
    const limit: AgentMiddleware = {
      name: "modelCallLimit",
      prepareStep({ iteration }) {
        if (iteration >= 1) stopRun({ reason: "budget", message: "Agent stopped: one model call.", details: { limit: 1 } });
      },
    };
    const result = await new AgentExecutor({ agent, tools: [echoTool], middleware: [limit], earlyStoppingMethod: "force" }).invoke({ input: "hi" });
    expect(inputs).toHaveLength(1);
    expect(result.stopReason).toBe("budget");
    expect(result.stoppedBy).toEqual({ middleware: "modelCallLimit", limit: 1, message: "Agent stopped: one model call." });
    // The output is the message it gave, as for every reason a middleware may stop with.
    expect(result.output).toBe("Agent stopped: one model call.");
  });

  it("a stopRun with max_iterations: its message is the output and stoppedBy names the middleware", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "a" }), act("echo", { text: "b" }), finish("done")]);
    const limit: AgentMiddleware = {
      name: "turnLimit",
      prepareStep({ iteration }) {
        if (iteration >= 1) stopRun({ reason: "max_iterations", message: "Stopped after one turn." });
      },
    };
    const result = await new AgentExecutor({ agent, tools: [echoTool], middleware: [limit] }).invoke({ input: "hi" });
    expect([result.stopReason, result.output]).toEqual(["max_iterations", "Stopped after one turn."]);
    expect(result.stoppedBy).toEqual({ middleware: "turnLimit", message: "Stopped after one turn." });
  });

  it("a stopRun a run cannot report fails the run with a MiddlewareError whose cause names what is wrong", async () => {
    for (const [options, problem] of [
      [{ reason: "finish", message: "Done." }, /`reason` must be one of max_iterations, budget, guardrail, repeated_call .*got "finish"/],
      [{ reason: "nope", message: "x" }, /`reason` must be one of .*got "nope"/],
      [{ reason: "budget", message: 42 }, /`message` \(the run's output\) must be a non-empty string, got 42/],
      [{ reason: "budget" }, /`message` .* got undefined/],
      [{ reason: "budget", message: "x", details: [1] }, /`details` must be an object .* got an array/],
    ] as const) {
      const { agent } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
      const stopper: AgentMiddleware = { name: "stopper", prepareStep: () => stopRun(options as never) };
      const error = await new AgentExecutor({ agent, tools: [echoTool], middleware: [stopper] }).invoke({ input: "hi" }).then(() => undefined, (e: unknown) => e);
      expect(MiddlewareError.isInstance(error), JSON.stringify(options)).toBe(true);
      expect(String((error as Error & { cause?: Error }).cause?.message), JSON.stringify(options)).toMatch(problem);
    }
  });
});

describe("cancellation", () => {
  it("aborts the signal a wrapModelCall sees when the run is cancelled, and starts nothing more", async () => {
    const started = deferred<AbortSignal>();
    const { agent, inputs } = scriptedAgent([() => new Promise(() => {})]);
    let after = 0;
    const watcher: AgentMiddleware = {
      wrapModelCall(request, next) {
        started.resolve(request.signal);
        return next(request);
      },
      afterTurn: () => void after++,
    };
    const controller = new AbortController();
    const run = new AgentExecutor({ agent, tools: [], middleware: [watcher] }).invoke({ input: "hi" }, { signal: controller.signal });
    const outcome = run.then(() => "finished", (error: unknown) => (error as Error).name);
    const signal = await started.promise;
    expect(signal.aborted).toBe(false);
    controller.abort();
    expect(await outcome).toBe("AbortError");
    expect(signal.aborted).toBe(true);
    expect(inputs).toHaveLength(1);
    expect(after).toBe(0);
  });

  it("aborts a wrapToolCall's signal when the tool call is cancelled by unsubscribing", async () => {
    const seen = deferred<AbortSignal>();
    const slow = tool(async (_input, config) => new Promise<string>((_resolve, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted")))), {
      name: "slow",
      description: "Never ends.",
      schema: z.object({}),
    });
    const { agent } = scriptedAgent([act("slow", {})]);
    const watcher: AgentMiddleware = {
      wrapToolCall(call, next) {
        seen.resolve(call.signal);
        return next(call);
      },
    };
    const subscription = new AgentExecutor({ agent, tools: [slow], middleware: [watcher] }).stream({ input: "hi" }).subscribe({ error: () => undefined });
    const signal = await seen.promise;
    subscription.unsubscribe();
    expect(signal.aborted).toBe(true);
  });

  it("aborts the signal afterTurn sees when a resumed run is cancelled while it ends the turn a pause left pending", async () => {
    const note = tool(async ({ text }: { text: string }) => `noted ${text}`, { name: "note", description: "Notes.", schema: z.object({ text: z.string() }) });
    const mail = withApproval(tool(async ({ to }: { to: string }) => `sent to ${to}`, { name: "send", description: "Sends.", schema: z.object({ to: z.string() }) }));
    const { agent } = scriptedAgent([[act("note", { text: "a" }), act("send", { to: "ana" })], finish("done")]);
    const seen = deferred<AbortSignal>();
    const hanging: AgentMiddleware = {
      afterTurn: ({ signal }) => {
        seen.resolve(signal);
        return new Promise<void>(() => {});
      },
    };
    const executor = new AgentExecutor({ agent, tools: [note, mail], middleware: [hanging] });
    const paused = await executor.invoke({ input: "note and mail" }, { runId: "after-turn-cancelled" });
    expect(paused.interrupts).toHaveLength(1);
    const controller = new AbortController();
    const outcome = executor.resume("after-turn-cancelled", { decisions: { "call-0-1": "approve" }, signal: controller.signal }).then(() => "finished", (error: unknown) => (error as Error).name);
    const signal = await seen.promise;
    expect(signal.aborted).toBe(false);
    controller.abort();
    expect(await outcome).toBe("AbortError");
    expect(signal.aborted).toBe(true);
  });
});

describe("report", () => {
  it("records a middleware event named after the middleware", async () => {
    const { agent } = scriptedAgent([finish("done")]);
    const measure: AgentMiddleware = {
      name: "measure",
      async wrapModelCall(request, next) {
        const output = await next(request);
        request.report({ calls: 1 });
        return output;
      },
    };
    const events = await collect(new AgentExecutor({ agent, tools: [], middleware: [measure] }).stream({ input: "hi" }));
    const reported = events.filter((event): event is MiddlewareEvent => event.type === "middleware");
    expect(reported.map(({ name, iteration, data }) => ({ name, iteration, data }))).toEqual([{ name: "measure", iteration: 0, data: { calls: 1 } }]);
    expect(events.map((event) => event.type)).toEqual(["start", "middleware", "output"]);
  });
});

describe("no middleware", () => {
  it("calls the agent with exactly the run's steps (no middleware machinery)", async () => {
    const { agent, inputs } = scriptedAgent([act("echo", { text: "a" }), finish("done")]);
    await new AgentExecutor({ agent, tools: [echoTool], middleware: [] }).invoke({ input: "hi" });
    expect((inputs[1]?.steps as AgentStep[]).map((step) => step.observation)).toEqual(["a"]);
  });
});
