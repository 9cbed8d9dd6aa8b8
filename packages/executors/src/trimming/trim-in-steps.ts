import type { AgentStep } from "@agentrx/core";
import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { sameTurn } from "./same-turn";

/** Options of {@link trimInSteps}. */
export interface TrimInStepsOptions {
  /** The fewest steps the agent sees once the run is long enough (an integer >= 1). */
  keep: number;
  /**
   * How many steps the cut moves by at a time (an integer >= 1): the agent sees between `keep` and
   * `keep + every - 1` steps, and the prompt's prefix stays the same for `every` calls in a row.
   * @default keep
   */
  every?: number;
}

/**
 * A `trimIntermediateSteps` function whose cut moves in steps, so that the prompt keeps the same
 * prefix from one model call to the next (and providers bill it from their prompt cache, at about
 * a tenth of the price), rather than changing at every call as "keep the last N steps" does. The
 * agent sees the steps after the cut: the cut is a multiple of `every` steps from the start, the
 * largest that leaves at least `keep`, moved back to the start of its turn so that the calls of one
 * turn (one model message) are never split, in a run restored from its record (a resume, a fork)
 * too.
 *
 * @example
 * ```ts
 * import { AgentExecutor, trimInSteps } from "@agentrx/executors";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 * import { createToolCallingAgent } from "@agentrx/agents";
 * import { ChatPromptTemplate } from "@langchain/core/prompts";
 *
 * const llm = new ScriptedChatModel({ responses: ["Done."] });
 * const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
 * const executor = new AgentExecutor({
 *   agent: createToolCallingAgent({ llm, tools: [], prompt }),
 *   tools: [],
 *   trimIntermediateSteps: trimInSteps({ keep: 8, every: 8 }), // sees 8 to 15 steps
 * });
 * ```
 */
export function trimInSteps(options: TrimInStepsOptions): (steps: AgentStep[]) => AgentStep[] {
  checkOptionKeys("trimInSteps", options, ["keep", "every"] satisfies (keyof TrimInStepsOptions)[]);
  const { keep, every = options?.keep } = options ?? ({} as TrimInStepsOptions);
  for (const [name, value] of [
    ["keep", keep],
    ["every", every],
  ] as const) {
    if (!Number.isInteger(value) || (value as number) < 1) {
      throw new InvalidArgumentError({ argument: name, value, message: `trimInSteps: \`${name}\` must be an integer >= 1, got ${String(value)}.` });
    }
  }
  return (steps) => {
    if (steps.length < keep + every) return steps;
    let cut = Math.floor((steps.length - keep) / every) * every;
    while (cut > 0 && sameTurn(steps[cut - 1] as AgentStep, steps[cut] as AgentStep)) cut--;
    return cut === 0 ? steps : steps.slice(cut);
  };
}
