import { observationText, checkOptionKeys, showValue } from "@agentrx/core";
import type { AgentStep } from "@agentrx/core";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import type { StepsCompaction } from "../executor/events";
import type { AgentMiddleware } from "./agent-middleware";
import { sameTurn } from "../trimming/same-turn";
import { badOption, isInvokable, replyText } from "./middleware-helpers";

/** The tool name of the step that stands for summarized steps (the agent sees it; no tool runs). */
export const COMPACTED_STEPS_TOOL = "_compacted_steps";

/** Options of {@link compactSteps}. */
export interface CompactStepsOptions {
  /** The chat model that writes the summary (a small, cheap one does). */
  model: Runnable<BaseLanguageModelInput, unknown>;
  /** When the steps the agent would see pass this many tokens, the oldest are summarized. */
  maxTokens: number;
  /**
   * How many of the latest steps always stay as they are (moved back to the start of their turn,
   * so a tool call is never separated from the other calls of its model message).
   * @default 4
   */
  keep?: number;
  /**
   * Counts the tokens of a text; it must return a finite number >= 0 (anything else fails the run
   * with an `InvalidArgumentError` naming `countTokens`).
   * @default about 4 characters a token
   */
  countTokens?: (text: string) => number;
  /** The summarizer's instructions (not blank). @default instructions to keep every fact the agent may need */
  instructions?: string;
}

const DEFAULT_INSTRUCTIONS =
  "You compress the working notes of an AI agent that uses tools. Summarize the steps below: what the agent tried, every fact, number, name and identifier the tools returned that may still matter, and what is left to do. Be concise; never invent results.";

/**
 * Keeps a long run's context bounded (see docs/middleware.md). Before each agent call, when the
 * steps the agent would see pass `maxTokens`, `model` summarizes the oldest of them (all but the
 * last `keep`, cut at a turn boundary, so tool calls are never separated from their results or
 * from their turn) into one step the agent sees instead; later compactions fold the previous
 * summary in. The summary is recorded as a `compaction` event: a resumed or forked run reads it
 * and does not summarize again. The run's own steps (results, events, `returnIntermediateSteps`)
 * are never changed. The summarizer's calls are not counted in the run's usage.
 *
 * @example
 * ```ts
 * import { AgentExecutor, compactSteps } from "@agentrx/executors";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 * import { RunnableLambda } from "@langchain/core/runnables";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const read = tool(async ({ page }) => `page ${page}: ${"lorem ipsum ".repeat(50)}`, { name: "read", description: "Reads a page.", schema: z.object({ page: z.number() }) });
 * let pages = 0; // the agent sees the compacted steps, so it counts its pages itself
 * let largest = 0;
 * const agent = RunnableLambda.from((input: { steps: { observation: unknown }[] }) => {
 *   largest = Math.max(largest, JSON.stringify(input.steps).length);
 *   return pages >= 12 ? { returnValues: { output: "done" }, log: "" } : { tool: "read", toolInput: { page: pages++ }, log: "" };
 * });
 * const summarizer = new ScriptedChatModel({ responses: Array.from({ length: 20 }, () => "Read pages so far: nothing notable.") });
 * const executor = new AgentExecutor({ agent, tools: [read], maxIterations: 20, middleware: [compactSteps({ model: summarizer, maxTokens: 800, keep: 2 })] });
 * await executor.invoke({ input: "read it all" });
 * console.log(largest < 12 * 600); // true: the agent never saw every page at once
 * ```
 */
export function compactSteps(options: CompactStepsOptions): AgentMiddleware {
  if (typeof options !== "object" || options === null || Array.isArray(options)) badOption("compactSteps", "options", options, "pass an options object { model, maxTokens, keep? }.");
  checkOptionKeys("compactSteps", options, ["model", "maxTokens", "keep", "countTokens", "instructions"] satisfies (keyof CompactStepsOptions)[]);
  const { model, maxTokens, keep = 4, countTokens = approximateTokens, instructions = DEFAULT_INSTRUCTIONS } = options;
  if (!isInvokable(model)) badOption("compactSteps", "model", model, "`model` must be a @langchain/core chat model (it writes the summaries).");
  if (!Number.isInteger(maxTokens) || maxTokens < 1) badOption("compactSteps", "maxTokens", maxTokens, `\`maxTokens\` must be an integer >= 1, got ${showValue(maxTokens)}.`);
  if (!Number.isInteger(keep) || keep < 0) badOption("compactSteps", "keep", keep, `\`keep\` must be an integer >= 0, got ${showValue(keep)}.`);
  if (typeof countTokens !== "function") badOption("compactSteps", "countTokens", countTokens, "`countTokens` must be a function (text) => number.");
  if (typeof instructions !== "string" || instructions.trim() === "") badOption("compactSteps", "instructions", instructions, "`instructions` must be a string that is not blank.");

  const tokensOf = (steps: readonly AgentStep[]): number => {
    let total = 0;
    for (const step of steps) {
      const tokens: unknown = countTokens(stepText(step));
      // A count that is not a number would make every comparison with `maxTokens` wrong: refused.
      if (typeof tokens !== "number" || !Number.isFinite(tokens) || tokens < 0) {
        badOption("compactSteps", "countTokens", tokens, `\`countTokens\` must return a finite number >= 0 (the tokens of the text it is given), got ${showValue(tokens)}.`);
      }
      total += tokens;
    }
    return total;
  };
  return {
    name: "compactSteps",
    async prepareStep({ steps, runSteps, compaction, signal }) {
      // The steps the agent would see (what the middleware before this one left of the run's), by
      // the run step each stands for: a compaction counts the run's steps (what is recorded).
      const at = runIndexes(steps, runSteps);
      const seen = viewOf(steps, at, compaction);
      if (tokensOf(seen) <= maxTokens) return compaction === undefined ? undefined : { steps: seen };
      const from = compaction?.steps ?? 0;
      const cut = turnStart(runSteps, runSteps.length - keep);
      if (cut <= from) return compaction === undefined ? undefined : { steps: seen };
      // Only what the agent would have seen of the steps folded in is summarized.
      const notes = steps.flatMap((step, i) => {
        const index = at[i];
        return index !== undefined && index >= from && index < cut ? [`Step ${index + 1}: ${stepText(step)}`] : [];
      });
      if (notes.length === 0) return compaction === undefined ? undefined : { steps: seen };
      const earlier = compaction === undefined ? "" : `Summary of the steps before:\n${compaction.summary}\n\n`;
      const reply = await model.invoke([new SystemMessage(instructions), new HumanMessage(`${earlier}Steps:\n${notes.join("\n\n")}`)], { signal });
      const next: StepsCompaction = { steps: cut, summary: replyText(reply).trim() };
      return { compaction: next, steps: viewOf(steps, at, next) };
    },
  };
}

/**
 * What the agent sees: `steps` with the summary step in place of those that stand for the run's
 * first `compaction.steps` steps (where the first of them was, else first).
 */
function viewOf(steps: readonly AgentStep[], at: readonly (number | undefined)[], compaction: StepsCompaction | undefined): AgentStep[] {
  if (compaction === undefined) return steps as AgentStep[];
  const summary: AgentStep = {
    action: { tool: COMPACTED_STEPS_TOOL, toolInput: { steps: compaction.steps }, log: "(My earlier steps were summarized to save space.)" },
    observation: `Summary of the earlier steps:\n${compaction.summary}`,
  };
  const view: AgentStep[] = [];
  let placed = false;
  steps.forEach((step, i) => {
    const index = at[i];
    if (index === undefined || index >= compaction.steps) return void view.push(step);
    if (!placed) view.push(summary);
    placed = true;
  });
  if (!placed) view.unshift(summary);
  return view;
}

/**
 * For each of `steps`, the index of the run step it stands for: the same step or the same action
 * (a middleware that changed an observation keeps its action); when none is found so and the two
 * lists are as long, by position (a middleware that rebuilt every step). Undefined: a step of its own.
 */
function runIndexes(steps: readonly AgentStep[], runSteps: readonly AgentStep[]): (number | undefined)[] {
  if (steps === runSteps) return steps.map((_, i) => i);
  const byAction = new Map<unknown, number>();
  runSteps.forEach((step, i) => byAction.set(step.action, i));
  const at = steps.map((step) => byAction.get(step.action));
  if (steps.length === runSteps.length && at.every((index) => index === undefined)) return steps.map((_, i) => i);
  return at;
}

/** `index`, moved back while it would split a turn (steps whose calls came in one model message). */
function turnStart(steps: readonly AgentStep[], index: number): number {
  let at = Math.max(0, index);
  while (at > 0 && at < steps.length && sameTurn(steps[at - 1] as AgentStep, steps[at] as AgentStep)) at--;
  return at;
}

/** A step as the summarizer (and the token count) reads it. */
function stepText(step: AgentStep): string {
  const { action } = step;
  const input = typeof action.toolInput === "string" ? action.toolInput : JSON.stringify(action.toolInput);
  return `${action.log ? `${action.log}\n` : ""}${action.tool}(${input}) -> ${observationText(step.observation)}`;
}


function approximateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
