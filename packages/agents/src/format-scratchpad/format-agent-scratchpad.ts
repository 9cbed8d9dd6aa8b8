import { FORCE_FINAL_ANSWER_INSTRUCTION, InvalidArgumentError, type AgentInput, type AgentStep } from "@agentrx/core";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import { FormatScratchpadStep } from "../shared/format-scratchpad-step";
import { formatToToolMessages } from "../tool-calling/format-to-tool-messages";

/** Options of {@link formatAgentScratchpad}. */
export interface FormatAgentScratchpadOptions<Scratchpad = BaseMessage[]> {
  /**
   * Turns the steps so far into the scratchpad's value.
   * @default formatToToolMessages (the tool-calling agent's messages)
   */
  format?: (steps: AgentStep[]) => Scratchpad;
  /**
   * Ends the scratchpad with the final-answer instruction on the `forceFinalAnswer` call of
   * `earlyStoppingMethod: "generate"`.
   * @default a `HumanMessage` with `FORCE_FINAL_ANSWER_INSTRUCTION` after a message list, the
   *   sentence on a line of its own after a string; anything else is left as it is
   */
  appendFinalAnswerInstruction?: (scratchpad: Scratchpad) => Scratchpad;
  /** The prompt variable it fills. @default "agent_scratchpad" */
  key?: string;
}

/** The prompt's values for one agent call: the user's inputs and `variables`, the scratchpad under `key`. @internal */
export function scratchpadValues<Scratchpad>(
  name: string,
  format: (steps: AgentStep[]) => Scratchpad,
  appendFinalAnswerInstruction: (scratchpad: Scratchpad) => Scratchpad,
  variables: Record<string, unknown> = {},
  key = "agent_scratchpad",
): (input: AgentInput) => Record<string, unknown> {
  return (input) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      throw new InvalidArgumentError({ argument: "input", value: input, message: `${name}: the agent's input must be an object such as { input, steps }, got ${describe(input)}.` });
    }
    const { steps = [], forceFinalAnswer = false, ...inputs } = input;
    if (!Array.isArray(steps)) {
      throw new InvalidArgumentError({ argument: "steps", value: steps, message: `${name}: \`steps\` must be an array of AgentSteps, got ${describe(steps)}.` });
    }
    let scratchpad = format(steps);
    if (forceFinalAnswer) scratchpad = appendFinalAnswerInstruction(scratchpad);
    return { ...variables, ...inputs, [key]: scratchpad };
  };
}

/**
 * The first step of an agent composed by hand: it takes the executor's `{ ...inputs, steps,
 * forceFinalAnswer? }` and gives the prompt the inputs plus `agent_scratchpad`, the steps so far
 * as the model must see them (its tool calls and their results). Without it, a prompt never
 * receives the steps and the model never sees its tool results (the executor refuses such a
 * pipeline). It is the step every built-in agent starts with, shown as `FormatAgentScratchpad` by
 * tracers.
 *
 * @example
 * ```ts
 * import { formatAgentScratchpad, ToolCallingAgentOutputParser } from "@agentrx/agents";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 * import { AgentExecutor } from "@agentrx/executors";
 * import { ChatPromptTemplate } from "@langchain/core/prompts";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const add = tool(async ({ a, b }) => String(a + b), { name: "add", description: "Adds.", schema: z.object({ a: z.number(), b: z.number() }) });
 * const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "add", args: { a: 2, b: 3 } }] }, "5"] });
 * const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
 * const agent = formatAgentScratchpad().pipe(prompt).pipe(llm.bindTools([add])).pipe(new ToolCallingAgentOutputParser());
 * const result = await new AgentExecutor({ agent, tools: [add] }).invoke({ input: "2 + 3?" });
 * console.log(result.output); // "5"
 * ```
 */
export function formatAgentScratchpad<Scratchpad = BaseMessage[]>(options: FormatAgentScratchpadOptions<Scratchpad> = {}): Runnable<AgentInput, Record<string, unknown>> {
  const { format = formatToToolMessages as unknown as (steps: AgentStep[]) => Scratchpad, appendFinalAnswerInstruction = appendInstruction as (scratchpad: Scratchpad) => Scratchpad, key = "agent_scratchpad" } = options;
  for (const [option, value] of [
    ["format", format],
    ["appendFinalAnswerInstruction", appendFinalAnswerInstruction],
  ] as const) {
    if (typeof value !== "function") {
      throw new InvalidArgumentError({ argument: option, value, message: `formatAgentScratchpad: \`${option}\` must be a function.` });
    }
  }
  if (typeof key !== "string" || key === "") {
    throw new InvalidArgumentError({ argument: "key", value: key, message: "formatAgentScratchpad: `key` must be a non-empty string (the prompt variable it fills)." });
  }
  return new FormatScratchpadStep(scratchpadValues("formatAgentScratchpad", format, appendFinalAnswerInstruction, {}, key));
}

/** The final-answer instruction after a message list or a string. */
function appendInstruction(scratchpad: unknown): unknown {
  if (Array.isArray(scratchpad)) return [...scratchpad, new HumanMessage(FORCE_FINAL_ANSWER_INSTRUCTION)];
  if (typeof scratchpad === "string") return `${scratchpad}\n${FORCE_FINAL_ANSWER_INSTRUCTION}`;
  return scratchpad;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}
