import { defineAgentType, formatToToolMessages, ToolCallingAgentOutputParser } from "@agentrx/agents";
import { createPlanAndExecuteAgent } from "./create-plan-and-execute-agent";
import { createExecutorPrompt } from "./plan-and-execute-prompts";

/**
 * The plan-and-execute agent type, `"agentrx-community/plan-and-execute"`: register it in an
 * AgentRx agent-type registry to look it up by name.
 *
 * @example
 * ```ts
 * import { createAgentTypeRegistry } from "@agentrx/agents";
 * import { planAndExecuteAgentType } from "@agentrx-community/plan-and-execute";
 *
 * const registry = createAgentTypeRegistry().register(planAndExecuteAgentType);
 * console.log(registry.get("agentrx-community/plan-and-execute").requires); // "tool-calling"
 * ```
 */
export const planAndExecuteAgentType = /* @__PURE__ */ defineAgentType({
  name: "agentrx-community/plan-and-execute",
  version: "0.1.0",
  description: "Writes a numbered plan first, then carries it out with native tool calls.",
  requires: "tool-calling",
  create: createPlanAndExecuteAgent,
  defaultPrompt: createExecutorPrompt,
  createOutputParser: () => new ToolCallingAgentOutputParser(),
  formatScratchpad: formatToToolMessages,
});
