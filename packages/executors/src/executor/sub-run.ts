import type { RunnableConfig } from "@langchain/core/runnables";
import type { AgentStep } from "@agentrx/core";
import type { AgentStreamEvent } from "./events";

/**
 * The `config.configurable` key under which a run hands its tool calls a sink for the events of
 * sub-runs (executors called as tools, `asTool`).
 *
 * @internal
 */
export const SUB_RUN_KEY = "__agentrx_sub_run";

/** Where a sub-run's events go: the calling run. @internal */
export interface SubRunSink {
  /** An event of a sub-run; its `subRun` path is relative to the calling run. */
  emit(event: AgentStreamEvent): void;
  /** The calling run's conversation so far: its inputs and completed steps (what a handoff passes on). */
  conversation?(): { inputs: Record<string, unknown>; steps: readonly AgentStep[] };
}

/** The sink the calling run put in `config`, if the tool is called by a run. @internal */
export function subRunSinkOf(config: RunnableConfig | undefined): SubRunSink | undefined {
  const sink = config?.configurable?.[SUB_RUN_KEY] as SubRunSink | undefined;
  return typeof sink?.emit === "function" ? sink : undefined;
}
