import type { AgentInput } from "@agentrx/core";
import { Runnable, type RunnableConfig } from "@langchain/core/runnables";

/**
 * The first step of an agent pipeline: turns the agent's input (`{ ...inputs, steps,
 * forceFinalAnswer }`) into the prompt's values. A plain function traced as its own run, lighter
 * than a `RunnableLambda` (which also sets up an async context for nested runnables this step
 * does not have).
 *
 * @internal Built by `createAgentRunnable`.
 */
export class FormatScratchpadStep extends Runnable<AgentInput, Record<string, unknown>> {
  lc_namespace = ["agentrx", "agents"];

  static override lc_name(): string {
    return "FormatAgentScratchpad";
  }

  /** `format` gives the prompt's values, at once or as a promise. */
  constructor(private readonly format: (input: AgentInput) => Record<string, unknown> | Promise<Record<string, unknown>>) {
    super();
    this.name = "FormatAgentScratchpad";
  }

  override invoke(input: AgentInput, options?: Partial<RunnableConfig>): Promise<Record<string, unknown>> {
    return this._callWithConfig(async (value: AgentInput) => this.format(value), input, options);
  }
}
