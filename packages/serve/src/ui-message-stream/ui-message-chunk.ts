import type { RunUsage, StopReason } from "@agentrx/executors";

/**
 * What `toUIMessageStream` puts in the message's metadata (the `start`, `message-metadata` and
 * `finish` chunks): the run, its conversation, the usage so far and, at the end, why it stopped.
 *
 * @example
 * ```ts
 * import type { AgentUIMessageMetadata } from "@agentrx/serve";
 * import type { UIMessage } from "ai";
 *
 * type ChatMessage = UIMessage<AgentUIMessageMetadata>;
 * ```
 */
export interface AgentUIMessageMetadata {
  /** The run's id (`executor.resume(runId, ...)` continues it). */
  runId: string;
  /** The conversation the run belongs to, when it has one. */
  threadId?: string;
  /**
   * The run's usage, summed over its model calls as the executor sums it: the token counts, their
   * details (cache reads and writes, reasoning tokens) and the `cost` when the executor's `prices`
   * know the model.
   */
  usage?: RunUsage;
  /** Why the run ended (on the `finish` chunk). */
  stopReason?: StopReason;
}

/**
 * Why the message finished, in the AI SDK's words.
 *
 * @example
 * ```ts
 * import type { UIFinishReason } from "@agentrx/serve";
 *
 * const reason: UIFinishReason = "tool-calls"; // a run paused for approval
 * ```
 */
export type UIFinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other";

/**
 * One chunk of the AI SDK's UI message stream (what `useChat` reads), the chunk types
 * `toUIMessageStream` emits. Each is assignable to the `ai` package's `UIMessageChunk`, so the
 * package needs no runtime dependency on `ai`.
 *
 * @example
 * ```ts
 * import type { UIMessageChunk } from "@agentrx/serve";
 *
 * const chunk: UIMessageChunk = { type: "text-delta", id: "text-1", delta: "Hello" };
 * ```
 */
export type UIMessageChunk =
  | { type: "start"; messageId?: string; messageMetadata?: AgentUIMessageMetadata }
  | { type: "start-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "tool-input-start"; toolCallId: string; toolName: string; dynamic: true }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown; dynamic: true }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string }
  | { type: "tool-output-available"; toolCallId: string; output: unknown; dynamic: true }
  | { type: "tool-output-error"; toolCallId: string; errorText: string; dynamic: true }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: "finish-step" }
  | { type: "message-metadata"; messageMetadata: AgentUIMessageMetadata }
  | { type: "finish"; finishReason?: UIFinishReason; messageMetadata?: AgentUIMessageMetadata }
  | { type: "error"; errorText: string }
  | { type: "abort" };
