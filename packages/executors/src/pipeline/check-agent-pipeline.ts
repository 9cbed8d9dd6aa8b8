import { InvalidArgumentError } from "@agentrx/core";

// What the executor can tell of an agent built by hand from its runnables, at construction: a
// pipeline whose prompt never receives the steps, and tools bound to its model that differ from
// the executor's. Only what can be known reliably is refused: an agent that is a lambda, or a
// pipeline whose parts are not the plain @langchain/core ones, passes unchecked.

/** The steps of a `RunnableSequence` (or of a built-in agent's ordinary turn), else undefined. */
function pipelineSteps(agent: unknown): readonly unknown[] | undefined {
  const turn = (agent as { turn?: unknown }).turn;
  const sequence = turn !== undefined && isSequence(turn) ? turn : agent;
  return isSequence(sequence) ? (sequence as { steps: readonly unknown[] }).steps : undefined;
}

function isSequence(value: unknown): boolean {
  const candidate = value as { first?: unknown; last?: unknown; steps?: unknown } | null;
  return candidate !== null && typeof candidate === "object" && "first" in candidate && "last" in candidate && Array.isArray(candidate.steps);
}

/** A prompt template: it formats its input variables into a prompt value. */
function isPromptTemplate(value: unknown): value is { inputVariables: string[]; lc_namespace?: string[] } {
  const candidate = value as { inputVariables?: unknown; formatPromptValue?: unknown } | null;
  return candidate !== null && typeof candidate === "object" && Array.isArray(candidate.inputVariables) && typeof candidate.formatPromptValue === "function";
}

/**
 * The names of the tools bound to the pipeline's model (`llm.bindTools(tools)` binds them in a
 * `RunnableBinding`'s config), when exactly one step binds tools and every tool has a readable
 * name; else undefined.
 */
function boundToolNames(steps: readonly unknown[]): string[] | undefined {
  let found: string[] | undefined;
  for (const step of steps) {
    const names = bindingToolNames(step, 0);
    if (names === undefined) continue;
    if (found !== undefined) return undefined; // several models: not for this check
    found = names;
  }
  return found;
}

function bindingToolNames(step: unknown, depth: number): string[] | undefined {
  const binding = step as { bound?: unknown; config?: { tools?: unknown }; kwargs?: { tools?: unknown } } | null;
  if (binding === null || typeof binding !== "object" || !("bound" in binding) || depth > 5) return undefined;
  const tools = binding.config?.tools ?? binding.kwargs?.tools;
  if (Array.isArray(tools)) {
    const names = tools.map(toolName);
    return names.every((name): name is string => name !== undefined) ? names : undefined;
  }
  return bindingToolNames(binding.bound, depth + 1);
}

/** A bound tool's name: a LangChain tool's, an OpenAI function's, or an Anthropic tool's. */
function toolName(tool: unknown): string | undefined {
  const candidate = tool as { name?: unknown; function?: { name?: unknown } } | null;
  if (candidate === null || typeof candidate !== "object") return undefined;
  if (typeof candidate.name === "string") return candidate.name;
  if (typeof candidate.function?.name === "string") return candidate.function.name;
  return undefined;
}

/**
 * Refuses an agent pipeline that cannot work with the executor: a prompt that is the first step
 * of an executor with tools (it receives `{ ...inputs, steps }`, so the model never sees its tool
 * results and the run loops to `maxIterations`), or a model bound to tools other than the
 * executor's.
 *
 * @throws InvalidArgumentError naming `agent` or `tools` and what differs
 * @internal
 */
export function checkAgentPipeline(agent: unknown, toolNames: readonly string[], ignoredTools: readonly string[]): void {
  const steps = pipelineSteps(agent);
  if (steps === undefined) return;
  const first = steps[0];
  const ignored = new Set(ignoredTools);
  // Without tools there are no tool results to miss: a plain `prompt | model | parser` chat agent works.
  const hasTools = toolNames.some((name) => !ignored.has(name));
  if (hasTools && isPromptTemplate(first) && !first.inputVariables.includes("steps")) {
    const pad = first.inputVariables.includes("agent_scratchpad") ? " (its `agent_scratchpad` is never filled)" : "";
    throw new InvalidArgumentError({
      argument: "agent",
      value: agent,
      message:
        `AgentExecutor: the agent's first step is its prompt, which gets the executor's { ...inputs, steps } as they are${pad}: the model would never see its tool results and the run would loop to maxIterations. ` +
        "Put the step that fills the scratchpad first: formatAgentScratchpad().pipe(prompt).pipe(llm.bindTools(tools)).pipe(new ToolCallingAgentOutputParser()) (from @agentrx/agents), or use createToolCallingAgent. See docs/custom-agents.md.",
    });
  }
  const bound = boundToolNames(steps);
  if (bound === undefined) return;
  const executor = new Set(toolNames);
  const model = new Set(bound.filter((name) => !ignored.has(name)));
  const onlyModel = [...model].filter((name) => !executor.has(name));
  const onlyExecutor = [...executor].filter((name) => !model.has(name) && !ignored.has(name));
  if (onlyModel.length === 0 && onlyExecutor.length === 0) return;
  const parts: string[] = [];
  if (onlyModel.length > 0) parts.push(`the agent's model is bound to ${list(onlyModel)}, which the executor does not have (a call to it would fail)`);
  if (onlyExecutor.length > 0) parts.push(`the executor has ${list(onlyExecutor)}, which the model was not given (it can never call ${onlyExecutor.length === 1 ? "it" : "them"})`);
  throw new InvalidArgumentError({
    argument: "tools",
    value: toolNames,
    message: `AgentExecutor: the executor's tools differ from the ones the agent was built with: ${parts.join("; ")}. Pass the same tools to both (llm.bindTools(tools) and new AgentExecutor({ agent, tools })).`,
  });
}

/**
 * Steps that hand the prompt the run's inputs as they are, adding values: the built-in agents'
 * scratchpad step and `RunnablePassthrough` (`.assign(...)`). Any other step may rename them.
 */
const PASSTHROUGH_STEPS = new Set(["FormatAgentScratchpad", "RunnableAssign", "RunnablePassthrough"]);

function stepName(step: unknown): string | undefined {
  try {
    const type = (step as { constructor?: { lc_name?: () => unknown } } | null)?.constructor;
    const name = typeof type?.lc_name === "function" ? type.lc_name() : undefined;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The variables (input and partial) of the agent's prompt when it receives the run's inputs as
 * they were given: the pipeline's first step, or one after steps that only add values (see
 * `PASSTHROUGH_STEPS`); else undefined (an agent the executor cannot see into, or steps that may
 * rename the inputs before the prompt reads them). @internal
 */
export function promptVariablesOf(agent: unknown): ReadonlySet<string> | undefined {
  const steps = pipelineSteps(agent);
  if (steps === undefined) return undefined;
  for (const step of steps) {
    if (isPromptTemplate(step)) {
      const partial = (step as { partialVariables?: unknown }).partialVariables;
      return new Set([...step.inputVariables, ...(typeof partial === "object" && partial !== null ? Object.keys(partial) : [])]);
    }
    const name = stepName(step);
    if (name === undefined || !PASSTHROUGH_STEPS.has(name)) return undefined;
  }
  return undefined;
}

function list(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}
