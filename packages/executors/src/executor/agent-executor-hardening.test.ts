import { AgentExecutor } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { act, collect, finish, scriptedAgent } from "./test-helpers";

function throwing(value: () => unknown) {
  return tool(
    async () => {
      throw value();
    },
    { name: "bad", description: "Throws.", schema: z.object({}) },
  );
}

describe("tool errors of every kind become observations", () => {
  const strange: [string, () => unknown, RegExp][] = [
    ["an object without a prototype", () => Object.create(null), /failed with error: the tool threw an object without a prototype/],
    [
      "an object whose toString throws",
      () => ({
        toString() {
          throw new Error("no");
        },
      }),
      /failed with error: /,
    ],
    [
      "an Error whose message getter throws",
      () => {
        const error = new Error("x");
        Object.defineProperty(error, "message", {
          get() {
            throw new Error("no message");
          },
        });
        return error;
      },
      /failed with error: /,
    ],
    ["a symbol", () => Symbol("odd"), /failed with error: Symbol\(odd\)/],
    ["a plain object with a message", () => ({ message: "plain" }), /failed with error: plain/],
  ];
  it.each(strange)("%s", async (_name, value, expected) => {
    const { agent, inputs } = scriptedAgent([act("bad"), finish("ok")]);
    const result = await lastValueFrom(new AgentExecutor({ agent, tools: [throwing(value)] }).invoke({ input: "go" }));
    expect(result.output).toBe("ok");
    expect(inputs[1]?.steps[0]?.observation).toMatch(expected);
  });
});

describe("maxObservationLength", () => {
  const big = tool(async () => "x".repeat(250_000), { name: "big", description: "Big.", schema: z.object({}) });

  it("truncates long observations with a note and keeps the original length in the step metadata", async () => {
    const { agent, inputs } = scriptedAgent([act("big"), finish("ok")]);
    const events = await collect(new AgentExecutor({ agent, tools: [big] }).stream({ input: "go" }));
    const observation = String(inputs[1]?.steps[0]?.observation ?? "");
    expect(observation.startsWith("x".repeat(100_000))).toBe(true);
    expect(observation).toMatch(/\[Observation truncated: the tool returned 250000 characters; only the first 100000 are shown\.\]$/);
    const step = events.find((event) => event.type === "step");
    expect(step?.type === "step" && step.metadata?.observationLength).toBe(250_000);
  });

  it("takes a limit, Infinity keeps everything, and a bad value names the option", async () => {
    const { agent, inputs } = scriptedAgent([act("big"), finish("ok"), act("big"), finish("ok")]);
    await lastValueFrom(new AgentExecutor({ agent, tools: [big], maxObservationLength: 10 }).invoke({ input: "go" }));
    expect(inputs[1]?.steps[0]?.observation).toMatch(/^x{10}\n\n\[Observation truncated/);
    await lastValueFrom(new AgentExecutor({ agent, tools: [big], maxObservationLength: Number.POSITIVE_INFINITY }).invoke({ input: "go" }));
    expect(inputs[3]?.steps[0]?.observation).toHaveLength(250_000);
    expect(() => new AgentExecutor({ agent, tools: [big], maxObservationLength: 0 })).toThrow(/maxObservationLength/);
  });

  it("keeps a returnDirect tool's observation whole: it is the run's answer", async () => {
    const report = tool(async () => "y".repeat(500), { name: "report", description: "The report, as the answer.", schema: z.object({}), returnDirect: true });
    const { agent } = scriptedAgent([act("report")]);
    const events = await collect(new AgentExecutor({ agent, tools: [report], maxObservationLength: 10 }).stream({ input: "go" }));
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "return_direct", output: "y".repeat(500) });
    const step = events.find((event) => event.type === "step");
    expect(step?.type === "step" && step.step.observation).toBe("y".repeat(500));
    expect(step?.type === "step" && step.metadata?.observationLength).toBeUndefined();
  });
});

describe("many runs under one caller signal", () => {
  afterEach(() => vi.restoreAllMocks());

  it("adds one listener to the signal however many runs watch it, and removes it when they end", async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, "addEventListener");
    const remove = vi.spyOn(controller.signal, "removeEventListener");
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const runs = Array.from({ length: 25 }, () => {
        const { agent } = scriptedAgent([finish("ok")]);
        return lastValueFrom(new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" }, { signal: controller.signal }));
      });
      await Promise.all(runs);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(add.mock.calls.filter(([type]) => type === "abort")).toHaveLength(1);
    expect(remove.mock.calls.filter(([type]) => type === "abort")).toHaveLength(1);
    expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
  });

  it("still cancels every run when the shared signal aborts", async () => {
    const controller = new AbortController();
    const runs = Array.from({ length: 12 }, () => {
      const { agent } = scriptedAgent([() => new Promise(() => {})]);
      return lastValueFrom(new AgentExecutor({ agent, tools: [] }).invoke({ input: "go" }, { signal: controller.signal })).catch((error: Error) => error.name);
    });
    controller.abort("shutdown");
    expect(await Promise.all(runs)).toEqual(Array.from({ length: 12 }, () => "AbortError"));
  });
});

describe("verbose, earlyStopOutput and returnDirect turns", () => {
  it("verbose prints the run's trace for invoke", async () => {
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true));
    try {
      const { agent } = scriptedAgent([act("echo", { text: "hi" }), finish("bye")]);
      const echo = tool(async ({ text }: { text: string }) => text, { name: "echo", description: "Echo.", schema: z.object({ text: z.string() }) });
      const result = await lastValueFrom(new AgentExecutor({ agent, tools: [echo], verbose: true }).invoke({ input: "go" }));
      expect(result.output).toBe("bye");
    } finally {
      write.mockRestore();
    }
    const trace = written.join("");
    expect(trace).toMatch(/action\s+echo \{"text":"hi"\}/);
    expect(trace).toMatch(/answer\s+bye \(finish\)/);
  });

  it("earlyStopOutput sets the sentence of a run cut short, as a string or per reason", async () => {
    const { agent } = scriptedAgent([act("echo", { text: "x" }), act("echo", { text: "y" })]);
    const echo = tool(async () => "ok", { name: "echo", description: "Echo.", schema: z.object({ text: z.string() }) });
    const fixed = await lastValueFrom(new AgentExecutor({ agent, tools: [echo], maxIterations: 1, earlyStopOutput: "Out of steps." }).invoke({ input: "go" }));
    expect(fixed.output).toBe("Out of steps.");
    const perReason = await lastValueFrom(
      new AgentExecutor({ agent, tools: [echo], maxIterations: 0, earlyStopOutput: (reason) => `stopped: ${reason}` }).invoke({ input: "go" }),
    );
    expect(perReason.output).toBe("stopped: max_iterations");
    expect(() => new AgentExecutor({ agent, tools: [echo], earlyStopOutput: 3 as never })).toThrow(/earlyStopOutput/);
  });

  it("a turn whose every call is of a returnDirect tool returns directly; a mixed one does not", async () => {
    const a = tool(async () => "from a", { name: "a", description: "A.", schema: z.object({}), returnDirect: true });
    const b = tool(async () => "from b", { name: "b", description: "B.", schema: z.object({}), returnDirect: true });
    const c = tool(async () => "from c", { name: "c", description: "C.", schema: z.object({}) });
    const { agent, inputs } = scriptedAgent([[act("a"), act("b")], [act("a"), act("c")], finish("after mixed")]);
    const executor = new AgentExecutor({ agent, tools: [a, b, c] });
    const events = await collect(executor.stream({ input: "go" }));
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "return_direct", output: "from a\n\nfrom b" });
    const mixed = await lastValueFrom(executor.invoke({ input: "go" }));
    expect(mixed.output).toBe("after mixed");
    expect(inputs).toHaveLength(3);
  });
});

describe("step messages", () => {
  it("a legacy function-call action's step carries a FunctionMessage", async () => {
    const { FunctionMessage } = await import("@langchain/core/messages");
    const echo = tool(async () => "pong", { name: "ping", description: "Ping.", schema: z.object({}) });
    const { agent } = scriptedAgent([{ tool: "ping", toolInput: {}, log: "", messageLog: [], resultMessageType: "function" } as never, finish("ok")]);
    const events = await collect(new AgentExecutor({ agent, tools: [echo] }).stream({ input: "go" }));
    const step = events.find((event) => event.type === "step");
    expect(step?.type === "step" && step.messages[0]).toBeInstanceOf(FunctionMessage);
    expect(step?.type === "step" && step.messages[0]?.name).toBe("ping");
  });
});
