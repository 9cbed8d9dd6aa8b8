export { a2aTool } from "./a2a-tool";
export type { A2AToolOptions } from "./a2a-tool";
export { A2ATaskError } from "./a2a-task-error";
export { createA2AHandler } from "./create-a2a-handler";
export type { A2AAgentCardInput, A2AHandler, A2AHandlerOptions } from "./create-a2a-handler";
export type {
  A2AAgentCard,
  A2AAgentExecutor,
  A2AAgentInterface,
  A2AAgentSkill,
  A2AExecutionEventBus,
  A2AMessage,
  A2APart,
  A2ARequestContext,
  A2ATask,
  A2ATaskStore,
} from "./a2a-types";
