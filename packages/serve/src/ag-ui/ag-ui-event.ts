// The AG-UI events `toAGUIEvents` emits, as plain objects: the same wire shapes as `@ag-ui/core`'s
// event types (whose `EventType` is a runtime enum), so this package needs no runtime dependency
// on it. Tests validate every event with `@ag-ui/core`'s own schemas.
import type { Interrupt } from "@agentrx/executors";

/**
 * Fields every AG-UI event carries.
 *
 * @example
 * ```ts
 * import type { BaseEvent } from "@agentrx/serve";
 *
 * const event: BaseEvent = { type: "RUN_STARTED", timestamp: Date.now() };
 * ```
 */
export interface BaseEvent {
  /** Which event this is (`EventType` of `@ag-ui/core`). */
  type: string;
  /** When the event was created, epoch milliseconds. */
  timestamp?: number;
  /** Extra information. */
  metadata?: Record<string, unknown>;
}

/**
 * Token counts of a run, in AG-UI's accounting.
 *
 * @example
 * ```ts
 * import type { AGUITokenUsage } from "@agentrx/serve";
 *
 * const usage: AGUITokenUsage = { inputTokens: 12, outputTokens: 5, totalTokens: 17 };
 * ```
 */
export interface AGUITokenUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/**
 * Something a paused run waits for: here, a person's decision on a tool call.
 *
 * @example
 * ```ts
 * import type { AGUIInterrupt } from "@agentrx/serve";
 *
 * const interrupt: AGUIInterrupt = { id: "call-0-0", reason: "approval", toolCallId: "call_1" };
 * ```
 */
export interface AGUIInterrupt {
  /** The executor's interrupt id; a resume entry answers it by this id. */
  id: string;
  /** `"approval"` (or `"in_doubt"` for a call whose outcome is unknown). */
  reason: string;
  message?: string;
  toolCallId?: string;
  /** The tool and the input an approval would run it with. */
  metadata?: Record<string, unknown>;
}

export interface RunStartedEvent extends BaseEvent { type: "RUN_STARTED"; threadId: string; runId: string }
export interface RunFinishedEvent extends BaseEvent {
  type: "RUN_FINISHED";
  threadId: string;
  runId: string;
  /** The final answer. */
  result?: unknown;
  /** Why the run ended: it succeeded, paused for interrupts, or was cancelled (stopped, not failed). */
  outcome?: { type: "success" } | { type: "interrupt"; interrupts: AGUIInterrupt[] } | { type: "cancelled" };
  usage?: AGUITokenUsage[];
}
export interface RunErrorEvent extends BaseEvent { type: "RUN_ERROR"; message: string; code?: string }
export interface StepStartedEvent extends BaseEvent { type: "STEP_STARTED"; stepName: string }
export interface StepFinishedEvent extends BaseEvent { type: "STEP_FINISHED"; stepName: string }
export interface TextMessageStartEvent extends BaseEvent { type: "TEXT_MESSAGE_START"; messageId: string; role: "assistant" }
export interface TextMessageContentEvent extends BaseEvent { type: "TEXT_MESSAGE_CONTENT"; messageId: string; delta: string }
export interface TextMessageEndEvent extends BaseEvent { type: "TEXT_MESSAGE_END"; messageId: string }
export interface ToolCallStartEvent extends BaseEvent { type: "TOOL_CALL_START"; toolCallId: string; toolCallName: string; parentMessageId?: string }
export interface ToolCallArgsEvent extends BaseEvent { type: "TOOL_CALL_ARGS"; toolCallId: string; delta: string }
export interface ToolCallEndEvent extends BaseEvent { type: "TOOL_CALL_END"; toolCallId: string }
export interface ToolCallResultEvent extends BaseEvent { type: "TOOL_CALL_RESULT"; messageId: string; toolCallId: string; content: string; role: "tool" }
/** The state of a paused run: `{ agentrx: { runId, status: "interrupted", interrupts } }`. */
export interface StateSnapshotEvent extends BaseEvent { type: "STATE_SNAPSHOT"; snapshot: AGUIRunState }

/**
 * The state `toAGUIEvents` reports for a paused run (and reads back on resume).
 *
 * @example
 * ```ts
 * import type { AGUIRunState } from "@agentrx/serve";
 *
 * const state: AGUIRunState = { agentrx: { runId: "run-1", status: "interrupted", interrupts: [{ id: "call-0-0", tool: "refund", toolInput: { order: "A1" } }] } };
 * ```
 */
export interface AGUIRunState {
  agentrx: {
    runId: string;
    status: "interrupted";
    /**
     * The calls the run waits on. One of another agent's (a paused `handoff`: `subRun`, see
     * docs/serving.md) has the tool and input of that agent's call, and the `toolCallId` of the
     * handoff's call, the one the client has.
     */
    interrupts: { id: string; tool: string; toolInput: unknown; toolCallId?: string; subRun?: Interrupt["subRun"] }[];
  };
}

/**
 * An AG-UI event emitted by `toAGUIEvents`.
 *
 * @example
 * ```ts
 * import type { AGUIEvent } from "@agentrx/serve";
 *
 * const event: AGUIEvent = { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Hi" };
 * ```
 */
export type AGUIEvent =
  | RunStartedEvent
  | RunFinishedEvent
  | RunErrorEvent
  | StepStartedEvent
  | StepFinishedEvent
  | TextMessageStartEvent
  | TextMessageContentEvent
  | TextMessageEndEvent
  | ToolCallStartEvent
  | ToolCallArgsEvent
  | ToolCallEndEvent
  | ToolCallResultEvent
  | StateSnapshotEvent;

/**
 * An answer to one interrupt, on the run that continues from it.
 *
 * @example
 * ```ts
 * import type { AGUIResumeEntry } from "@agentrx/serve";
 *
 * const entry: AGUIResumeEntry = { interruptId: "call-0-0", status: "resolved", payload: { approved: true } };
 * ```
 */
export interface AGUIResumeEntry {
  interruptId: string;
  status: "resolved" | "cancelled";
  /** A decision (`"approve"`, `{ type: "reject", message }`, `{ type: "edit", toolInput }`) or `{ approved: boolean, reason? }`. */
  payload?: unknown;
}

/**
 * The body of an AG-UI run request (`RunAgentInput` of `@ag-ui/core`), the fields read here.
 *
 * @example
 * ```ts
 * import type { RunAgentInput } from "@agentrx/serve";
 *
 * const input: RunAgentInput = { threadId: "t1", runId: "r1", messages: [{ id: "m1", role: "user", content: "Hi" }] };
 * ```
 */
export interface RunAgentInput {
  threadId: string;
  runId: string;
  parentRunId?: string;
  state?: unknown;
  messages: { id?: string; role: string; content?: unknown }[];
  tools?: unknown[];
  context?: unknown[];
  forwardedProps?: unknown;
  resume?: AGUIResumeEntry[];
}
