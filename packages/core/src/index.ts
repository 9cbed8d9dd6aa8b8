export type {
  AgentAction,
  AgentFinish,
  AgentInput,
  AgentOutput,
  AgentStep,
  Observation,
  ToolAgentAction,
} from "./agent/types";
export { observationText } from "./agent/observation-text";
export { type ContentBlockKind, contentBlockKind, imageBlockUrl, isImageBlock } from "./agent/content-blocks";
export { type ChatCompletionsMediaPart, toChatCompletionsMediaPart } from "./openai/to-openai-user-content";
export { cutText } from "./agent/cut-text";
export { showValue } from "./agent/show-value";
export { type ValueToTextOptions, valueToText } from "./agent/value-to-text";
export { escapeControlCharacters } from "./agent/escape-control-characters";
export type { EscapeControlCharactersOptions } from "./agent/escape-control-characters";
export { type CheckOptionKeysOptions, checkOptionKeys } from "./agent/check-option-keys";
export { editDistance, nearMissOf } from "./agent/near-miss";
export { MESSAGE_TOOL_NAME, isMessageStep, messageStep } from "./agent/message-step";
export { isAgentAction, isAgentFinish, isToolAgentAction } from "./agent/types";
export {
  EARLY_STOP_OUTPUT,
  EXCEPTION_TOOL_NAME,
  FORCE_FINAL_ANSWER_INSTRUCTION,
  invalidToolObservation,
} from "./agent/constants";
export {
  AbortError,
  AgentRxError,
  InvalidArgumentError,
  InvalidToolArgumentsException,
  isAbortError,
  describeThrown,
  isThenable,
  refusePromise,
} from "./errors/index";
export type { AgentRxErrorOptions } from "./errors/index";
export { fromRunnable } from "./observable/from-runnable";
export type { FromRunnableOptions } from "./observable/from-runnable";
export { linkAbortSignal } from "./observable/link-abort-signal";
export { nextTurn, onNextTurn } from "./scheduling/on-next-turn";
export { MAX_TIMER_DELAY_MS } from "./openai/retry-delay";
export { STEP_METADATA_KEY, getStepMetadata } from "./agent/step-metadata";
export { AGENT_MODEL_KEY, AGENT_OVERRIDES, AGENT_TOOLS_KEY, acceptsOverrides, getAgentOverrides } from "./agent/agent-overrides";
export { attachOutputUsage, getOutputUsage } from "./agent/output-usage";
export { MODEL_CALL_OBSERVER_KEY, markObservesModelCalls, observesModelCalls, takeModelCallObserver } from "./agent/model-call-observer";
export type { ModelCallObserver, ObservedModelCall } from "./agent/model-call-observer";
export { getToolApproval, markToolApproval } from "./agent/tool-approval";
export { isFinalAnswerTool, markFinalAnswerTool } from "./agent/final-answer-tool-mark";
export { getToolInDoubt, isInDoubtPolicy, markToolInDoubt } from "./agent/tool-in-doubt";
export type { InDoubtPolicy } from "./agent/tool-in-doubt";
export { IDEMPOTENCY_KEY_METADATA, getIdempotencyKey, idempotencyKeyOf } from "./agent/idempotency-key";
export type { ApprovalContext, ToolApproval } from "./agent/tool-approval";
export type { StepMetadata } from "./agent/step-metadata";
export { strictToolCalls } from "./messages/strict-tool-calls";
export { unwrapSingleArgument } from "./agent/unwrap-single-argument";
export { withoutUnansweredOutput } from "./agent/without-unanswered-output";
