/**
 * Which budget a {@link BudgetSpent} value reports.
 *
 * @example
 * ```ts
 * import type { BudgetKind, OutputEvent } from "@agentrx/executors";
 *
 * declare const output: OutputEvent;
 * const kind = (output.stoppedBy as { budget?: BudgetKind } | undefined)?.budget; // "tokens" | "tool_calls" | "time" | "cost"
 * ```
 */
export type BudgetKind = "tokens" | "tool_calls" | "time" | "cost";

/**
 * What a budget emits when it is spent. The executor only needs the emission to stop the run;
 * the value tells a reader (or a test) which budget fired and by how much.
 *
 * @example
 * ```ts
 * import { toolCallBudget, type AgentStreamEvent, type BudgetSpent } from "@agentrx/executors";
 * import { lastValueFrom, of } from "rxjs";
 *
 * const action = (tool: string): AgentStreamEvent => ({
 *   type: "action",
 *   iteration: 0,
 *   action: { tool, toolInput: {}, log: "" },
 *   messages: [],
 * });
 * const spent: BudgetSpent = await lastValueFrom(of(action("a"), action("b")).pipe(toolCallBudget(1)));
 * console.log(spent); // { budget: "tool_calls", limit: 1, used: 2 }
 * ```
 */
export interface BudgetSpent {
  /** The budget that fired. */
  budget: BudgetKind;
  /** The budget's limit (tokens, tool calls, milliseconds or US dollars). */
  limit: number;
  /**
   * How much had been used when it fired: tokens counted so far, tool calls requested so far
   * (including the one refused), the milliseconds waited, or the dollars spent.
   */
  used: number;
}
