export { toUIMessageChunks } from "./ui-message-stream/to-ui-message-chunks";
export type { UIMessageStreamOptions } from "./ui-message-stream/to-ui-message-chunks";
export { toUIMessageStream } from "./ui-message-stream/to-ui-message-stream";
export type { ToUIMessageStreamOptions } from "./ui-message-stream/to-ui-message-stream";
export { UI_MESSAGE_STREAM_HEADERS, toUIMessageStreamResponse } from "./ui-message-stream/to-ui-message-stream-response";
export type { UIMessageStreamResponseInit } from "./ui-message-stream/to-ui-message-stream-response";
export { uiApprovalDecisions } from "./ui-message-stream/ui-approval-decisions";
export type { UIApprovalDecisions, UIMessageLike } from "./ui-message-stream/ui-approval-decisions";
export type { AgentUIMessageMetadata, UIFinishReason, UIMessageChunk } from "./ui-message-stream/ui-message-chunk";
export { toAGUIEvents } from "./ag-ui/to-ag-ui-events";
export type { ToAGUIEventsOptions } from "./ag-ui/to-ag-ui-events";
export { createAGUIHandler } from "./ag-ui/create-ag-ui-handler";
export type { AGUIHandlerOptions } from "./ag-ui/create-ag-ui-handler";
export type { AGUIEvent, AGUIInterrupt, AGUIResumeEntry, AGUIRunState, AGUITokenUsage, BaseEvent, RunAgentInput } from "./ag-ui/ag-ui-event";
export { followRecordedRun } from "./runs/follow-recorded-run";
export type { FollowRecordedRunOptions } from "./runs/follow-recorded-run";
export { staleDecisions } from "./runs/stale-decisions";
export type { StaleDecisions } from "./runs/stale-decisions";
export { type WriteResponseOptions, writeResponse } from "./node/write-response";
export { a2aTool, createA2AHandler, A2ATaskError } from "./a2a/index";
export type {
  A2AAgentCard,
  A2AAgentCardInput,
  A2AAgentExecutor,
  A2AAgentInterface,
  A2AAgentSkill,
  A2AExecutionEventBus,
  A2AHandler,
  A2AHandlerOptions,
  A2AMessage,
  A2APart,
  A2ARequestContext,
  A2ATask,
  A2ATaskStore,
  A2AToolOptions,
} from "./a2a/index";
