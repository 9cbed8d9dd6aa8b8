export { createPlanAndExecuteAgent, PLAN_METADATA_KEY } from "./create-plan-and-execute-agent";
export type { CreatePlanAndExecuteAgentOptions } from "./create-plan-and-execute-agent";
export { planAndExecuteAgentType } from "./plan-and-execute-agent-type";
export { createExecutorPrompt, createPlannerPrompt } from "./plan-and-execute-prompts";
