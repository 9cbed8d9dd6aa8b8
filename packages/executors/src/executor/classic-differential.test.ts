// Differential tests against @langchain/classic's AgentExecutor: each scenario runs the same agent
// (createToolCallingAgent or createReactAgent from @agentrx/agents over a ScriptedChatModel playing
// the same script), the same tools and the same options on both executors, and compares the final
// output (or the error), the steps (tool, toolInput, observation, log) and how many model calls
// each made, and, for runs that must be the same, what the model received. Where they differ on
// purpose, the scenario names the difference (classic-differential-harness.ts): a function that
// turns classic's outcome into AgentRx's, each one a row of docs/migrating-from-classic.md
// ("Behaviour that differs on purpose"), and each checks that classic still does what that row
// says (so a difference that goes away is noticed too).
import { FORCE_FINAL_ANSWER_INSTRUCTION } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type StopReason } from "@agentrx/executors";
import { AgentExecutor as ClassicAgentExecutor } from "@langchain/classic/agents";
import { tool } from "@langchain/core/tools";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  type ClassicRun,
  type Difference,
  type Outcome,
  type RunSpec,
  buildAgent,
  classicAgent,
  differences,
  generated,
  kit,
  reactAction,
  runAgentRx,
  runClassic,
  timeLimited,
  turn,
} from "./classic-differential-harness";

afterEach(() => {
  vi.useRealTimers();
});

interface Scenario extends RunSpec {
  name: string;
  /** AgentRx's stop reason, or "error" for a run that fails. */
  stopReason: StopReason | "error";
  /** The documented differences, in order; none: the runs must be the same, model inputs included. */
  differences?: Difference[];
  /** How classic runs for the comparison, when it cannot run this scenario as it is (see `classicAlone`). */
  classic?: Partial<Omit<ClassicRun, "kind" | "script" | "tools">>;
  /** With `classic`: what classic does with the scenario as it is (the documented difference). */
  classicAlone?: (outcome: Outcome) => void;
  /** Runs with a faked `Date` (the `ticking` tool moves it on). */
  fakeDate?: boolean;
}

const steps = { returnIntermediateSteps: true } as const;

const scenarios: Scenario[] = [
  // --- each option alone
  {
    name: "no option: a turn of two calls (parallel), then an answer",
    kind: "toolCalling",
    script: [turn(["search", { q: "a" }], ["search", { q: "b" }]), "a and b"],
    tools: (t) => [t.search],
    options: steps,
    stopReason: "finish",
  },
  {
    name: "returnIntermediateSteps off: no steps in either result",
    kind: "toolCalling",
    script: [turn(["search", { q: "a" }]), "done"],
    tools: (t) => [t.search],
    options: {},
    stopReason: "finish",
  },
  {
    name: "maxIterations reached (tool calling, force)",
    kind: "toolCalling",
    script: [turn(["search", { q: "a" }]), turn(["search", { q: "b" }]), "never asked"],
    tools: (t) => [t.search],
    options: { ...steps, maxIterations: 2, earlyStoppingMethod: "force" },
    stopReason: "max_iterations",
    differences: [differences.forceText],
  },
  {
    name: "maxIterations reached (ReAct)",
    kind: "react",
    script: [reactAction("lookup", "a"), reactAction("lookup", "b"), "Final Answer: never asked"],
    tools: (t) => [t.lookup],
    options: { ...steps, maxIterations: 2 },
    stopReason: "max_iterations",
    differences: [differences.forceText],
  },
  {
    name: "maxIterations: 0 never calls the agent",
    kind: "react",
    script: ["Final Answer: never asked"],
    tools: (t) => [t.lookup],
    options: { ...steps, maxIterations: 0 },
    stopReason: "max_iterations",
    differences: [differences.forceText],
  },
  {
    name: "maxIterations: Infinity is no limit (Python's None)",
    kind: "toolCalling",
    script: [turn(["search", { q: "a" }]), turn(["search", { q: "b" }]), "done"],
    tools: (t) => [t.search],
    options: { ...steps, maxIterations: Number.POSITIVE_INFINITY },
    stopReason: "finish",
  },
  {
    name: "maxExecutionTime: checked before each agent call (classic JS has none and goes on)",
    kind: "toolCalling",
    script: [turn(["ticking", { q: "a" }]), turn(["ticking", { q: "b" }]), turn(["ticking", { q: "c" }]), "done"],
    tools: (t) => [t.ticking],
    options: { ...steps, maxExecutionTime: 10_000 },
    stopReason: "max_execution_time",
    fakeDate: true,
    differences: [timeLimited(2)],
  },
  {
    name: 'earlyStoppingMethod "generate" (tool calling): one more call answers',
    kind: "toolCalling",
    script: [turn(["search", { q: "a" }]), "From what I found: a."],
    tools: (t) => [t.search],
    options: { ...steps, maxIterations: 1, earlyStoppingMethod: "generate" },
    stopReason: "max_iterations",
    classic: { options: { ...steps, maxIterations: 1, earlyStoppingMethod: "force" } },
    classicAlone: (outcome) => expect(outcome.error).toBe("Invalid stopping method: generate"),
    differences: [generated("From what I found: a.")],
  },
  {
    name: "handleParsingErrors: true sends the parser's observation",
    kind: "react",
    script: ["I am not sure what to do.", "Final Answer: ok"],
    tools: (t) => [t.lookup],
    options: { ...steps, handleParsingErrors: true },
    stopReason: "finish",
  },
  {
    name: "handleParsingErrors: a string",
    kind: "react",
    script: ["I am not sure what to do.", "Final Answer: ok"],
    tools: (t) => [t.lookup],
    options: { ...steps, handleParsingErrors: "Use the format." },
    stopReason: "finish",
    differences: [differences.parsingErrorLog],
  },
  {
    name: "handleParsingErrors: a function",
    kind: "react",
    script: ["I am not sure what to do.", "Final Answer: ok"],
    tools: (t) => [t.lookup],
    options: { ...steps, handleParsingErrors: (error) => `Bad output (${error.llmOutput}).` },
    stopReason: "finish",
    differences: [differences.parsingErrorLog],
  },
  {
    name: "handleParsingErrors: false fails the run with the parser's error",
    kind: "react",
    script: ["I am not sure what to do.", "Final Answer: ok"],
    tools: (t) => [t.lookup],
    options: steps,
    stopReason: "error",
  },
  {
    name: "trimIntermediateSteps: a number (Python's semantics; classic JS has no such option)",
    kind: "toolCalling",
    script: [turn(["search", { q: "a" }]), turn(["search", { q: "b" }]), turn(["search", { q: "c" }]), "done"],
    tools: (t) => [t.search],
    options: { ...steps, trimIntermediateSteps: 1 },
    stopReason: "finish",
    classic: { trim: 1 },
    classicAlone: (outcome) => expect(outcome.modelInputs?.at(-1)?.filter((line) => line.startsWith("tool"))).toHaveLength(3),
  },
  {
    name: "trimIntermediateSteps: a function",
    kind: "react",
    script: [reactAction("lookup", "a"), reactAction("lookup", "b"), reactAction("lookup", "c"), "Final Answer: done"],
    tools: (t) => [t.lookup],
    options: { ...steps, trimIntermediateSteps: (all) => all.filter((step) => step.action.toolInput !== "b") },
    stopReason: "finish",
    classic: { trim: (all) => all.filter((step) => step.action.toolInput !== "b") },
    classicAlone: (outcome) => expect(outcome.modelInputs?.at(-1)?.join("\n")).toContain("looked up b"),
  },
  {
    name: "returnDirect (ReAct): the observation is the answer",
    kind: "react",
    script: [reactAction("lookup", "a"), reactAction("directText", "b"), "Final Answer: never asked"],
    tools: (t) => [t.lookup, t.directText],
    options: {},
    stopReason: "return_direct",
  },
  // --- combinations that interact
  {
    name: "returnIntermediateSteps with returnDirect (ReAct)",
    kind: "react",
    script: [reactAction("lookup", "a"), reactAction("directText", "b"), "Final Answer: never asked"],
    tools: (t) => [t.lookup, t.directText],
    options: steps,
    stopReason: "return_direct",
  },
  {
    name: "returnDirect on the last allowed iteration still returns directly",
    kind: "react",
    script: [reactAction("lookup", "a"), reactAction("directText", "b"), "Final Answer: never asked"],
    tools: (t) => [t.lookup, t.directText],
    options: { ...steps, maxIterations: 2 },
    stopReason: "return_direct",
  },
  {
    name: "returnDirect with a tool-calling (multi-action) agent, returnIntermediateSteps on",
    kind: "toolCalling",
    script: [turn(["direct", { q: "a" }]), "never asked"],
    tools: (t) => [t.search, t.direct],
    options: steps,
    stopReason: "return_direct",
    classic: { singleAction: true },
    classicAlone: (outcome) => expect(outcome.error).toBe("Tool with return direct direct not supported for multi-action agent."),
  },
  {
    name: "a returnDirect tool and a normal tool in one turn: back to the agent",
    kind: "toolCalling",
    script: [turn(["direct", { q: "a" }], ["search", { q: "b" }]), "after both"],
    tools: (t) => [t.search, t.direct],
    options: steps,
    stopReason: "finish",
    classic: { singleAction: true },
    classicAlone: (outcome) => expect(outcome.error).toBe("Tool with return direct direct not supported for multi-action agent."),
  },
  {
    name: "a turn whose calls all return directly answers with all their observations",
    kind: "toolCalling",
    script: [turn(["direct", { q: "a" }], ["direct", { q: "b" }]), "never asked"],
    tools: (t) => [t.search, t.direct],
    options: steps,
    stopReason: "return_direct",
    classic: { singleAction: true },
    classicAlone: (outcome) => expect(outcome.error).toBe("Tool with return direct direct not supported for multi-action agent."),
    differences: [differences.joinedReturnDirect],
  },
  {
    name: 'maxIterations reached with "generate" (ReAct): the final call has every step and the instruction',
    kind: "react",
    script: [reactAction("lookup", "a"), reactAction("lookup", "b"), "Thought: I know enough.\nFinal Answer: a and b"],
    tools: (t) => [t.lookup],
    options: { ...steps, maxIterations: 2, earlyStoppingMethod: "generate" },
    stopReason: "max_iterations",
    classic: { options: { ...steps, maxIterations: 2, earlyStoppingMethod: "force" } },
    classicAlone: (outcome) => expect(outcome.error).toBe("Invalid stopping method: generate"),
    differences: [generated("a and b")],
  },
  {
    name: "a parsing error on the last allowed iteration counts as one, then force",
    kind: "react",
    script: [reactAction("lookup", "a"), "I am not sure what to do.", "Final Answer: never asked"],
    tools: (t) => [t.lookup],
    options: { ...steps, maxIterations: 2, handleParsingErrors: true },
    stopReason: "max_iterations",
    differences: [differences.forceText],
  },
  {
    name: 'a parsing error on the last allowed iteration, then "generate"',
    kind: "react",
    script: [reactAction("lookup", "a"), "I am not sure what to do.", "Final Answer: from a"],
    tools: (t) => [t.lookup],
    options: { ...steps, maxIterations: 2, handleParsingErrors: true, earlyStoppingMethod: "generate" },
    stopReason: "max_iterations",
    classic: { options: { ...steps, maxIterations: 2, handleParsingErrors: true, earlyStoppingMethod: "force" } },
    classicAlone: (outcome) => expect(outcome.error).toBe("Invalid stopping method: generate"),
    differences: [generated("from a")],
  },
  {
    name: "handleParsingErrors: a function that throws fails the run with its error",
    kind: "react",
    script: ["I am not sure what to do.", "Final Answer: ok"],
    tools: (t) => [t.lookup],
    options: {
      ...steps,
      handleParsingErrors: () => {
        throw new Error("the handler failed");
      },
    },
    stopReason: "error",
  },
  {
    name: "tool-call arguments that are not JSON, handleParsingErrors unset",
    kind: "toolCalling",
    script: [turn(["search", "{not json"]), "after"],
    tools: (t) => [t.search],
    options: steps,
    stopReason: "finish",
    classic: { options: { ...steps, handleParsingErrors: true } },
    classicAlone: (outcome) => expect(outcome.error).toMatch(/^The model called tool "search" with arguments that cannot be used/),
  },
  {
    name: "tool input the schema refuses, handleParsingErrors unset",
    kind: "toolCalling",
    script: [turn(["search", { query: "a" }]), "after"],
    tools: (t) => [t.search],
    options: steps,
    stopReason: "finish",
    classic: { options: { ...steps, handleParsingErrors: "Check your input." } },
    classicAlone: (outcome) => expect(outcome.error).toMatch(/^Received tool input did not match expected schema/),
    differences: [differences.schemaFailureObservation],
  },
  {
    name: "a tool that throws, handleToolRuntimeErrors unset (tool calling)",
    kind: "toolCalling",
    script: [turn(["failing"], ["search", { q: "b" }]), "after"],
    tools: (t) => [t.search, t.failing],
    options: steps,
    stopReason: "finish",
    differences: [differences.toolErrorObservation],
  },
  {
    name: "a tool that throws, handleToolRuntimeErrors unset (ReAct)",
    kind: "react",
    script: [reactAction("failingText", "x"), "Final Answer: it failed"],
    tools: (t) => [t.failingText],
    options: steps,
    stopReason: "finish",
    differences: [differences.toolErrorObservation],
  },
  {
    name: "a tool that throws, handleToolRuntimeErrors a function",
    kind: "toolCalling",
    script: [turn(["failing"]), "after"],
    tools: (t) => [t.failing],
    options: { ...steps, handleToolRuntimeErrors: (error) => `Try later (${error.message}).` },
    stopReason: "finish",
  },
  {
    name: "a returnDirect tool that throws: its handled error is the answer",
    kind: "react",
    script: [reactAction("failingDirect", "x"), "Final Answer: never asked"],
    tools: (t) => [t.failingDirect],
    options: steps,
    stopReason: "return_direct",
    differences: [differences.toolErrorObservation],
  },
  {
    name: "a tool name the agent invents (tool calling, next to a real call)",
    kind: "toolCalling",
    script: [turn(["websearch", { q: "a" }], ["search", { q: "b" }]), "after"],
    tools: (t) => [t.search, t.lookup],
    options: steps,
    stopReason: "finish",
    differences: [differences.unknownToolObservation],
  },
  {
    name: "a tool name the agent invents (ReAct)",
    kind: "react",
    script: [reactAction("websearch", "a"), "Final Answer: ok"],
    tools: (t) => [t.lookup],
    options: steps,
    stopReason: "finish",
    differences: [differences.unknownToolObservation],
  },
  {
    name: "a tool name in the wrong case",
    kind: "toolCalling",
    script: [turn(["Search", { q: "a" }]), "after"],
    tools: (t) => [t.search],
    options: steps,
    stopReason: "finish",
    differences: [differences.exactToolNames],
  },
  {
    name: "an empty tool list (tool calling)",
    kind: "toolCalling",
    script: ["hello"],
    tools: () => [],
    options: steps,
    stopReason: "finish",
  },
  {
    name: "an empty tool list, and the agent invents a tool (ReAct)",
    kind: "react",
    script: [reactAction("websearch", "a"), "Final Answer: hello"],
    tools: () => [],
    options: steps,
    stopReason: "finish",
    differences: [differences.unknownToolObservation],
  },
  {
    name: "a tool that returns an object",
    kind: "toolCalling",
    script: [turn(["structured"]), "after"],
    tools: (t) => [t.structured],
    options: steps,
    stopReason: "finish",
    differences: [differences.jsonToolResult],
  },
];

describe("AgentExecutor and @langchain/classic's AgentExecutor, scenario by scenario", () => {
  it.each(scenarios.map((scenario) => [scenario.name, scenario] as const))("%s", async (_name, scenario) => {
    if (scenario.fakeDate) vi.useFakeTimers({ toFake: ["Date"] });
    const spec: RunSpec = { kind: scenario.kind, script: scenario.script, tools: scenario.tools, options: scenario.options };
    const agentrx = await runAgentRx(spec);
    const classic = await runClassic({ ...spec, ...scenario.classic, options: scenario.classic?.options ?? scenario.options });
    if (scenario.classic !== undefined) {
      expect(scenario.classicAlone, "a scenario with a classic baseline says what classic does with it as it is").toBeDefined();
      scenario.classicAlone?.(await runClassic(spec));
    }

    const { stopReason, modelInputs, ...seen } = agentrx;
    expect(stopReason ?? "error", seen.error).toBe(scenario.stopReason);
    const context = { toolNames: spec.tools(kit()).map((t) => t.name) };
    const { modelInputs: classicInputs, ...classicSeen } = classic;
    if (scenario.differences === undefined) {
      // The same run: the same answer, steps and model calls, and the model saw the same messages.
      expect(seen).toEqual(classicSeen);
      expect(modelInputs).toEqual(classicInputs);
    } else {
      expect(seen).toEqual(scenario.differences.reduce((outcome, difference) => difference(outcome, context), classicSeen as Outcome));
    }
  });

  it('"generate" on ReAct sends every step and the final-answer instruction to the model', async () => {
    const run = await runAgentRx({
      kind: "react",
      script: [reactAction("lookup", "a"), reactAction("lookup", "b"), "Final Answer: a and b"],
      tools: (t) => [t.lookup],
      options: { maxIterations: 2, earlyStoppingMethod: "generate", trimIntermediateSteps: 1 },
    });
    const last = run.modelInputs?.at(-1)?.join("\n") ?? "";
    expect(last).toContain("looked up a");
    expect(last).toContain("looked up b");
    expect(last.trimEnd().endsWith(FORCE_FINAL_ANSWER_INSTRUCTION)).toBe(true);
  });

  it("runs the tool calls of one turn concurrently, as classic's invoke does", async () => {
    const runOne = async (executor: "agentrx" | "classic"): Promise<string[]> => {
      const events: string[] = [];
      const probe = tool(
        async ({ id }: { id: string }) => {
          events.push(`start ${id}`);
          await new Promise((resolve) => setImmediate(resolve));
          events.push(`end ${id}`);
          return id;
        },
        { name: "probe", description: "Records when it runs.", schema: z.object({ id: z.string() }) },
      );
      const llm = new ScriptedChatModel({ responses: [turn(["probe", { id: "a" }], ["probe", { id: "b" }]), "done"] });
      const agent = buildAgent("toolCalling", llm, [probe]);
      if (executor === "agentrx") await new AgentExecutor({ agent, tools: [probe] }).invoke({ input: "go" });
      else await new ClassicAgentExecutor({ agent: classicAgent(agent, false), tools: [probe] }).invoke({ input: "go" });
      return events;
    };
    for (const executor of ["agentrx", "classic"] as const) {
      const events = await runOne(executor);
      expect(events.slice(0, 2).sort(), executor).toEqual(["start a", "start b"]);
    }
  });
});
