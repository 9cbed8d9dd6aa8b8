// The two sides of the differential test against @langchain/classic's AgentExecutor
// (classic-differential.test.ts): fresh tools, the agents both executors run, a runner for each
// executor that reports what its run gave, and the documented differences (docs/migrating-from-
// classic.md, "Behaviour that differs on purpose") as functions from classic's outcome to AgentRx's.
// Not exported by the package.
import { createReactAgent, createReactPrompt, createToolCallingAgent } from "@agentrx/agents";
import { EARLY_STOP_OUTPUT, invalidToolObservation } from "@agentrx/core";
import type { AgentInput, AgentOutput, AgentStep } from "@agentrx/core";
import { ScriptedChatModel, type ScriptedMessage, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type AgentExecutorOptions, type StopReason } from "@agentrx/executors";
import { AgentExecutor as ClassicAgentExecutor } from "@langchain/classic/agents";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableLambda, type Runnable } from "@langchain/core/runnables";
import { DynamicTool, type StructuredToolInterface, tool } from "@langchain/core/tools";
import { expect, vi } from "vitest";
import { z } from "zod";

type ClassicAgent = ConstructorParameters<typeof ClassicAgentExecutor>[0]["agent"];
/** Which agent of @agentrx/agents a scenario runs. */
export type AgentKind = "toolCalling" | "react";

/** The options both executors take (classic JS ignores the ones it does not have). */
export type SharedOptions = Pick<
  AgentExecutorOptions,
  "maxIterations" | "maxExecutionTime" | "earlyStoppingMethod" | "handleParsingErrors" | "trimIntermediateSteps" | "returnIntermediateSteps"
> & { handleToolRuntimeErrors?: (error: Error) => string };

/** The force output of classic JS's runnable agents (`BaseSingleActionAgent.returnStoppedResponse`). */
const CLASSIC_FORCE_OUTPUT = "Agent stopped due to max iterations.";
/** The error every `failing*` tool throws. */
const FAILURE = "service unavailable";
/** The (faked) wall time each call of the `ticking` tool takes. */
const TICK_MS = 6_000;

interface StepView {
  tool: string;
  toolInput: unknown;
  observation: unknown;
  log: string;
}

/** What a run gave: its output (or the error it failed with), its steps and its model calls. */
export interface Outcome {
  output?: unknown;
  error?: string;
  steps?: StepView[];
  modelCalls: number;
  /** What the model received on each call (compared when the two runs must be the same). */
  modelInputs?: string[][];
}

/** A fresh set of tools for one run. */
export function kit() {
  const search = tool(async ({ q }: { q: string }) => `found ${q}`, {
    name: "search",
    description: "Searches.",
    schema: z.object({ q: z.string() }),
  });
  const lookup = new DynamicTool({ name: "lookup", description: "Looks a term up.", func: async (term) => `looked up ${term}` });
  const failing = tool(
    async (): Promise<string> => {
      throw new Error(FAILURE);
    },
    { name: "failing", description: "Always fails.", schema: z.object({}) },
  );
  const failingText = new DynamicTool({
    name: "failingText",
    description: "Always fails.",
    func: async (): Promise<string> => {
      throw new Error(FAILURE);
    },
  });
  const direct = tool(async ({ q }: { q: string }) => `direct ${q}`, {
    name: "direct",
    description: "Answers the user directly.",
    schema: z.object({ q: z.string() }),
    returnDirect: true,
  });
  const directText = new DynamicTool({ name: "directText", description: "Answers directly.", func: async (term) => `direct ${term}`, returnDirect: true });
  const failingDirect = new DynamicTool({
    name: "failingDirect",
    description: "Answers directly, but fails.",
    returnDirect: true,
    func: async (): Promise<string> => {
      throw new Error(FAILURE);
    },
  });
  // Each call takes TICK_MS of (faked) wall time.
  const ticking = tool(
    async ({ q }: { q: string }) => {
      vi.setSystemTime(Date.now() + TICK_MS);
      return `ticked ${q}`;
    },
    { name: "ticking", description: "Takes a while.", schema: z.object({ q: z.string() }) },
  );
  const structured = tool(async () => ({ rows: 2 }) as unknown as string, { name: "structured", description: "Returns an object.", schema: z.object({}) });
  return { search, lookup, failing, failingText, direct, directText, failingDirect, ticking, structured };
}
/** The tools of {@link kit}, by name. */
export type Kit = ReturnType<typeof kit>;

const toolCallingPrompt = ChatPromptTemplate.fromMessages([["human", "{input}"], new MessagesPlaceholder("agent_scratchpad")]);

/** The agent of a scenario, over `llm` and `tools` (the ReAct agent with its default prompt). */
export function buildAgent(kind: AgentKind, llm: ScriptedChatModel, tools: StructuredToolInterface[]): Runnable<AgentInput, AgentOutput> {
  return kind === "toolCalling" ? createToolCallingAgent({ llm, tools, prompt: toolCallingPrompt }) : createReactAgent({ llm, tools, prompt: createReactPrompt() });
}

/**
 * The agent as classic gets it. Classic treats a runnable as a multi-action agent unless it is
 * marked `singleAction`, as classic's own `createReactAgent` marks its ReAct agent: the ReAct
 * agent is marked the same way (and any agent when a scenario asks for it).
 */
export function classicAgent(agent: Runnable<AgentInput, AgentOutput>, singleAction: boolean): ClassicAgent {
  return (singleAction ? Object.assign(agent.withConfig({}), { singleAction: true }) : agent) as unknown as ClassicAgent;
}

/** The steps the agent sees under Python's `trim_intermediate_steps` (a number > 0, or a function). */
function pythonTrim(trim: number | ((steps: AgentStep[]) => AgentStep[]), steps: AgentStep[]): AgentStep[] {
  if (typeof trim === "function") return trim(steps);
  return trim > 0 ? steps.slice(-trim) : steps;
}

function describeMessage(message: BaseMessage): string {
  const calls = (message as { tool_calls?: { name: string; args: unknown; id?: string }[] }).tool_calls ?? [];
  const callText = calls.length > 0 ? ` ${JSON.stringify(calls.map((call) => [call.name, call.args, call.id]))}` : "";
  const id = (message as { tool_call_id?: string }).tool_call_id;
  return `${message.getType()}${id ? `(${id})` : ""}: ${message.text}${callText}`;
}

function stepView(step: AgentStep): StepView {
  return { tool: step.action.tool, toolInput: step.action.toolInput, observation: step.observation, log: step.action.log };
}

/** One run: the agent, the model's script, the tools (picked from a fresh {@link kit}) and the options. */
export interface RunSpec {
  kind: AgentKind;
  script: ScriptedResponse[];
  tools: (tools: Kit) => StructuredToolInterface[];
  options: SharedOptions;
}

/** Runs `spec` on AgentRx's executor: what it gave, and its stop reason. */
export async function runAgentRx(spec: RunSpec): Promise<Outcome & { stopReason?: StopReason }> {
  const tools = spec.tools(kit());
  const llm = new ScriptedChatModel({ responses: spec.script });
  const agent = buildAgent(spec.kind, llm, tools);
  try {
    const result = await new AgentExecutor({ agent, tools, ...spec.options }).invoke({ input: "go" });
    return {
      output: result.output,
      ...(result.intermediateSteps ? { steps: result.intermediateSteps.map(stepView) } : {}),
      modelCalls: llm.calls.length,
      modelInputs: llm.calls.map((call) => call.messages.map(describeMessage)),
      stopReason: result.stopReason,
    };
  } catch (error) {
    return { error: (error as Error).message, modelCalls: llm.calls.length };
  }
}

/** One run on classic's executor. */
export interface ClassicRun extends RunSpec {
  /** Marks the agent single-action (as classic's own ReAct agent is). @default true for ReAct */
  singleAction?: boolean;
  /** Trims the steps the agent sees, as Python's executor does with `trim_intermediate_steps`. */
  trim?: number | ((steps: AgentStep[]) => AgentStep[]);
}

/** Runs `spec` on @langchain/classic's executor: what it gave. */
export async function runClassic(spec: ClassicRun): Promise<Outcome> {
  const tools = spec.tools(kit());
  const llm = new ScriptedChatModel({ responses: spec.script });
  let agent = buildAgent(spec.kind, llm, tools);
  const { trim } = spec;
  if (trim !== undefined) {
    const inner = agent;
    agent = RunnableLambda.from((input: AgentInput, config) => inner.invoke({ ...input, steps: pythonTrim(trim, input.steps) }, config));
  }
  try {
    const executor = new ClassicAgentExecutor({ agent: classicAgent(agent, spec.singleAction ?? spec.kind === "react"), tools, ...spec.options } as never);
    const result = (await executor.invoke({ input: "go" })) as { output: unknown; intermediateSteps?: AgentStep[] };
    return {
      output: result.output,
      ...(result.intermediateSteps ? { steps: result.intermediateSteps.map(stepView) } : {}),
      modelCalls: llm.calls.length,
      modelInputs: llm.calls.map((call) => call.messages.map(describeMessage)),
    };
  } catch (error) {
    return { error: (error as Error).message, modelCalls: llm.calls.length };
  }
}

// --- The documented differences (docs/migrating-from-classic.md), as classic outcome -> AgentRx outcome.

/** What a difference may need to know of the scenario. */
export interface Context {
  toolNames: string[];
}
/** A documented difference: classic's outcome in, AgentRx's out (it checks that classic still differs). */
export type Difference = (classic: Outcome, context: Context) => Outcome;

function mapSteps(outcome: Outcome, what: string, change: (step: StepView) => StepView | undefined): Outcome {
  let changed = 0;
  const steps = outcome.steps?.map((step) => {
    const next = change(step);
    if (next === undefined) return step;
    changed++;
    return next;
  });
  expect(changed, `classic no longer shows the documented difference: ${what}`).toBeGreaterThan(0);
  return { ...outcome, steps };
}

/** The documented differences, by name. */
export const differences = {
  /** Classic JS's runnable agents say "Agent stopped due to max iterations."; AgentRx says LangChain's (Python's) sentence. */
  forceText: (classic) => {
    expect(classic.output).toBe(CLASSIC_FORCE_OUTPUT);
    return { ...classic, output: EARLY_STOP_OUTPUT };
  },
  /** An unknown tool: classic JS says "try another one"; AgentRx (as Python) names the tools. */
  unknownToolObservation: (classic, { toolNames }) =>
    mapSteps(classic, "unknown-tool observation", (step) =>
      step.observation === `${step.tool} is not a valid tool, try another one.` ? { ...step, observation: invalidToolObservation(step.tool, toolNames) } : undefined,
    ),
  /** Classic JS finds a tool whose name differs in case (in `invoke`, not in `stream`); AgentRx (as Python) does not. */
  exactToolNames: (classic, { toolNames }) =>
    mapSteps(classic, "tool names matched ignoring case", (step) =>
      toolNames.includes(step.tool) ? undefined : { ...step, observation: invalidToolObservation(step.tool, toolNames) },
    ),
  /** A tool that throws (the `failing*` tools): classic JS swallows the error into ""; AgentRx's observation names the tool and the error. */
  toolErrorObservation: (classic) => {
    const next = mapSteps(classic, "tool error swallowed", (step) =>
      step.observation === "" && /^failing/.test(step.tool) ? { ...step, observation: `Tool "${step.tool}" failed with error: ${FAILURE}` } : undefined,
    );
    // A returnDirect tool's observation is the answer: the error's, then.
    if (classic.output === "" && classic.steps?.at(-1)?.tool === "failingDirect") next.output = next.steps?.at(-1)?.observation;
    return next;
  },
  /** The `_Exception` step's log: classic's is the exception's message; AgentRx's is the model's raw output. */
  parsingErrorLog: (classic) =>
    mapSteps(classic, "_Exception log is the exception's message", (step) => {
      const match = /^Could not parse LLM output: ([\s\S]*?)\n\nTroubleshooting URL: /.exec(step.log);
      return step.tool === "_Exception" && match ? { ...step, log: match[1] as string } : undefined;
    }),
  /** A non-string tool result: classic passes it on as it is; AgentRx as JSON. */
  jsonToolResult: (classic) =>
    mapSteps(classic, "non-string observation", (step) => (typeof step.observation === "string" ? undefined : { ...step, observation: JSON.stringify(step.observation) })),
  /** Tool input the tool's schema refuses: classic sends `handleParsingErrors`' text; AgentRx always says what was wrong. */
  schemaFailureObservation: (classic) =>
    mapSteps(classic, "handleParsingErrors text for bad tool input", (step) =>
      step.observation === "Check your input." ? { ...step, observation: expect.stringMatching(new RegExp(`^Invalid input for tool "${step.tool}": [\\s\\S]*\\nFix the arguments and call "${step.tool}" again\\.$`)) } : undefined,
    ),
  /** A turn whose calls all return directly: AgentRx answers with all their observations (classic, run single-action, with the last). */
  joinedReturnDirect: (classic) => {
    const observations = (classic.steps ?? []).map((step) => step.observation);
    expect(classic.output).toBe(observations.at(-1));
    return { ...classic, output: observations.join("\n\n") };
  },
} satisfies Record<string, Difference>;

/** "generate": one more call, whose answer is the output, where classic (run with "force") stops. */
export function generated(answer: string): Difference {
  return (classic) => {
    expect(classic.output).toBe(CLASSIC_FORCE_OUTPUT);
    return { ...classic, output: answer, modelCalls: classic.modelCalls + 1 };
  };
}

/**
 * `maxExecutionTime`, which classic JS ignores: AgentRx stops before the agent call after `turns`
 * turns (of one call each), as Python's executor checks the time before each agent call.
 */
export function timeLimited(turns: number): Difference {
  return (classic) => {
    expect(classic.steps?.length).toBeGreaterThan(turns);
    return { ...classic, output: EARLY_STOP_OUTPUT, steps: classic.steps?.slice(0, turns), modelCalls: turns };
  };
}

/** A turn of tool calls, each `[name, args]` (args may be raw text, to script broken arguments). */
export function turn(...calls: [string, (Record<string, unknown> | string)?][]): ScriptedMessage {
  return { toolCalls: calls.map(([name, args = {}]) => ({ name, args })) };
}

/** A ReAct turn that calls `toolName` with `input`. */
export function reactAction(toolName: string, input: string): string {
  return `Thought: I should use ${toolName}.\nAction: ${toolName}\nAction Input: ${input}`;
}
