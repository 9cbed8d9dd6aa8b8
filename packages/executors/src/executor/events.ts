import type { AgentAction, AgentStep, StepMetadata } from "@agentrx/core";
import type { BaseMessage } from "@langchain/core/messages";
import type { RunUsage } from "../cost/cost";

/** Why a run ended. */
export type StopReason =
  | "finish"
  | "return_direct"
  | "max_iterations"
  | "max_execution_time"
  /** A stop condition (`stopWhen`, e.g. a token, tool-call or time budget) ended the run. */
  | "budget"
  /** The run paused for a person's approval of tool calls; `resume(runId, { decisions })` continues it. */
  | "interrupted"
  /** A `guardrail` middleware tripped; the output event's `stoppedBy` says which and why. */
  | "guardrail"
  /** `detectRepeatedCalls`: the model asked again for a call it had been told not to repeat. */
  | "repeated_call";

/** The first `steps` steps of a run, summarized (see `compactSteps`). */
export interface StepsCompaction {
  /** How many of the run's first steps the summary replaces. */
  steps: number;
  /** The summary the agent sees instead of them. */
  summary: string;
}

/** A tool call waiting for a person's decision. */
export interface Interrupt {
  /** Identifies the interrupt in `resume(runId, { decisions: { [id]: decision } })`. */
  id: string;
  /** The tool call's id, for tool-calling agents. */
  toolCallId?: string;
  /** The tool the agent asked for. */
  tool: string;
  /** The exact input an approval would run the tool with. */
  toolInput: unknown;
  /** The iteration (agent call) that asked for it. */
  iteration: number;
  /** The tool call's position among the actions of that turn. */
  index: number;
  /**
   * Why the run waits: `"approval"` (the call needs a person's approval before it runs) or
   * `"in_doubt"` (the call was started before a crash or a cancellation and has no recorded
   * result: approve to run it again, reject it, or supply its result with `{ type: "result" }`).
   * Absent on interrupts recorded before this field existed (they are approvals).
   */
  reason?: "approval" | "in_doubt";
  /**
   * Set when the call that waits is not this run's own but a sub-run's: a `handoff` (or `asTool`)
   * whose other agent paused (see docs/agent-types.md, "Pauses inside a handoff"). This run paused with it,
   * and lists the sub-run's waiting call here: `tool`, `toolInput` and `toolCallId` are that
   * call's, `iteration` and `index` those of this run's call that ran the sub-run, and `id` is
   * `<that call's interrupt id>/<interruptId>` (e.g. `"call-0-0/call-0-0"`). A decision for `id`
   * goes to the sub-run as its decision for `interruptId` when this run is resumed; `reason` is
   * the sub-run's. Absent on this run's own calls.
   */
  subRun?: {
    /** The name of this run's tool that ran the sub-run (the handoff's or `asTool`'s `name`). */
    tool: string;
    /** The paused sub-run's id (`handoff:<the call's idempotency key>`, or `as-tool:<key>`), in the other executor's store. */
    runId: string;
    /** The interrupt's id in the sub-run. */
    interruptId: string;
  };
}

/**
 * A person's decision on an interrupt: approve it (the tool runs with the input shown), reject it
 * (`message` becomes the tool's observation), or edit its input (validated against the tool's
 * schema; then the tool runs with it).
 */
export type Decision =
  | "approve"
  | { type: "approve" }
  | { type: "reject"; message?: string }
  | { type: "edit"; toolInput: unknown }
  | { type: "result"; observation: string };

/** The run paused: these tool calls wait for decisions. Comes just before the `output` event with `stopReason: "interrupted"`. */
export interface InterruptEvent {
  type: "interrupt";
  runId: string;
  interrupts: Interrupt[];
  /** When it happened, epoch milliseconds. */
  at: number;
  /** Set on the events of a sub-run (an executor called as a tool, `asTool`): the path of tool names to it. */
  subRun?: string[];
  /**
   * Set with `subRun`: the tool calls that started the sub-runs of the path, one per name (the
   * first is the calling run's call: its action's `toolCallId`, else `"<iteration>:<index>"`), so
   * two calls of one sub-agent tool running at once are told apart. See docs/executor-options.md.
   */
  subRunCallIds?: string[];
}

/** The run started (or a recorded run was resumed); always the first event. */
export interface StartEvent {
  type: "start";
  /** The run's id: `config.runId` when given, else a fresh UUID; `resume` keeps the recorded id. */
  runId: string;
  /** The conversation the run belongs to (`config.threadId` or `config.configurable.thread_id`). */
  threadId?: string;
  /** The run's inputs. */
  inputs: Record<string, unknown>;
  /** Whether this segment continues a recorded run (`executor.resume`). */
  resumed: boolean;
  /** On a fork's start: the run it was forked from, and the iteration its copied prefix ends before. */
  forkOf?: { runId: string; iteration: number };
  /** When it happened, epoch milliseconds. */
  at: number;
  /** Set on the events of a sub-run (an executor called as a tool, `asTool`): the path of tool names to it. */
  subRun?: string[];
  /**
   * Set with `subRun`: the tool calls that started the sub-runs of the path, one per name (the
   * first is the calling run's call: its action's `toolCallId`, else `"<iteration>:<index>"`), so
   * two calls of one sub-agent tool running at once are told apart. See docs/executor-options.md.
   */
  subRunCallIds?: string[];
}

/** The agent chose a tool call; emitted before the tool runs. */
export interface ActionEvent {
  type: "action";
  /** 0-based index of the agent call (iteration) this event belongs to. */
  iteration: number;
  /** When it happened, epoch milliseconds. */
  at: number;
  /** Set on the events of a sub-run (an executor called as a tool, `asTool`): the path of tool names to it. */
  subRun?: string[];
  /**
   * Set with `subRun`: the tool calls that started the sub-runs of the path, one per name (the
   * first is the calling run's call: its action's `toolCallId`, else `"<iteration>:<index>"`), so
   * two calls of one sub-agent tool running at once are told apart. See docs/executor-options.md.
   */
  subRunCallIds?: string[];
  /**
   * The action's position in its turn: what names the call (with `iteration`) when it has no
   * `toolCallId`, as an interrupt's id does (`call-<iteration>-<index>`).
   */
  index?: number;
  /** The action (a `ToolAgentAction` for tool-calling agents). */
  action: AgentAction;
  /** The action's message log, else `[new AIMessage(action.log)]`. */
  messages: BaseMessage[];
  /** With `eagerTools`: the tool started while the model still streamed, before this event. */
  early?: boolean;
  /**
   * With `eagerTools`: the action is one of a turn made of early calls rather than of the model's
   * whole answer (the calls that finished before a halt, or calls in doubt a resume settled). Such
   * a turn never returns directly: the run stops, or the model is asked again, after it.
   */
  partialTurn?: boolean;
  /**
   * The call's idempotency key (what `getIdempotencyKey` gives its tool, see docs/runs.md): set on
   * a run's own action events, and recorded with them, so a resumed call keeps its key. Absent
   * in records written before keys were recorded.
   */
  idempotencyKey?: string;
}

/** A tool call finished (events come in completion order). */
export interface StepEvent {
  type: "step";
  /** 0-based index of the agent call (iteration) this event belongs to. */
  iteration: number;
  /** When it happened, epoch milliseconds. */
  at: number;
  /** Set on the events of a sub-run (an executor called as a tool, `asTool`): the path of tool names to it. */
  subRun?: string[];
  /**
   * Set with `subRun`: the tool calls that started the sub-runs of the path, one per name (the
   * first is the calling run's call: its action's `toolCallId`, else `"<iteration>:<index>"`), so
   * two calls of one sub-agent tool running at once are told apart. See docs/executor-options.md.
   */
  subRunCallIds?: string[];
  /**
   * The position of the step's action in its turn (absent for a parsing-error step, which belongs
   * to no turn): a step that comes without its action in the same stream (a resumed run's approved
   * or in-doubt call) names its call by it.
   */
  index?: number;
  /** The action and its observation. */
  step: AgentStep;
  /** The tool-result message (`ToolMessage` for tool calls, else `HumanMessage`). */
  messages: BaseMessage[];
  /** Wall time of the tool call in milliseconds. */
  durationMs: number;
  /** What tool policies reported about the call (see `STEP_METADATA_KEY`), if anything. */
  metadata?: StepMetadata;
}

/** The model streamed text. */
export interface TokenEvent {
  type: "token";
  /** 0-based index of the agent call (iteration) this event belongs to. */
  iteration: number;
  /** When it happened, epoch milliseconds. */
  at: number;
  /** Set on the events of a sub-run (an executor called as a tool, `asTool`): the path of tool names to it. */
  subRun?: string[];
  /**
   * Set with `subRun`: the tool calls that started the sub-runs of the path, one per name (the
   * first is the calling run's call: its action's `toolCallId`, else `"<iteration>:<index>"`), so
   * two calls of one sub-agent tool running at once are told apart. See docs/executor-options.md.
   */
  subRunCallIds?: string[];
  /** The text delta. */
  text: string;
}

/** A model call finished and reported token usage. */
export interface UsageEvent {
  type: "usage";
  /** 0-based index of the agent call (iteration) this event belongs to. */
  iteration: number;
  /** When it happened, epoch milliseconds. */
  at: number;
  /** Set on the events of a sub-run (an executor called as a tool, `asTool`): the path of tool names to it. */
  subRun?: string[];
  /**
   * Set with `subRun`: the tool calls that started the sub-runs of the path, one per name (the
   * first is the calling run's call: its action's `toolCallId`, else `"<iteration>:<index>"`), so
   * two calls of one sub-agent tool running at once are told apart. See docs/executor-options.md.
   */
  subRunCallIds?: string[];
  /** The usage of that one model call, with its `cost` when the executor's `prices` know the model (`unpricedCalls: 1` when they do not). */
  usage: RunUsage;
  /** The model's name, when the model reported one (what `prices` looks up). */
  model?: string;
}

/** The run ended; always the last event. */
export interface OutputEvent {
  type: "output";
  /** The run's id. */
  runId: string;
  /** When it happened, epoch milliseconds. */
  at: number;
  /** Set on the events of a sub-run (an executor called as a tool, `asTool`): the path of tool names to it. */
  subRun?: string[];
  /**
   * Set with `subRun`: the tool calls that started the sub-runs of the path, one per name (the
   * first is the calling run's call: its action's `toolCallId`, else `"<iteration>:<index>"`), so
   * two calls of one sub-agent tool running at once are told apart. See docs/executor-options.md.
   */
  subRunCallIds?: string[];
  /** The final answer (always a string). */
  output: string;
  /** All return values of the `AgentFinish` (including `output`). */
  returnValues: Record<string, unknown>;
  /** Every step of the run; present only with `returnIntermediateSteps`. */
  intermediateSteps?: AgentStep[];
  /** The final message(s): `[new AIMessage(output)]` unless the agent gave a message log. */
  messages: BaseMessage[];
  /** Why the run ended. */
  stopReason: StopReason;
  /** How many agent calls the run had made when it ended (set on an output read back from a record). */
  iterations?: number;
  /**
   * With `stopReason: "budget"`: the value the stop condition emitted (for the built-in budgets a
   * `BudgetSpent`, saying which budget fired), so callers can tell which condition ended the run.
   * A run a middleware stopped (`"guardrail"`, `"repeated_call"`, `stopRun`): `{ middleware, message, ...details }`.
   */
  stoppedBy?: unknown;
  /** The run's total usage, summed over its model calls (over every segment of a resumed run); absent when no model reported usage. */
  usage?: RunUsage;
  /**
   * With the executor's `outputSchema`: the final answer, parsed and validated. Typed `unknown`: a
   * run's stream also carries its sub-runs' `output` events (`subRun` set), whose answers follow
   * their own executors' schemas. The awaited result of `stream()` has it typed from the schema
   * (see docs/structured-output.md).
   */
  structuredOutput?: unknown;
  /** With `earlyStoppingMethod: "generate"`: why the final-answer call failed, when it did (the output then says so). */
  generateError?: string;
}

/**
 * A middleware summarized the run's first steps (`compactSteps`): the agent sees the summary in
 * their place from now on. Recorded, so a resumed run reads it instead of summarizing again.
 */
export interface CompactionEvent extends StepsCompaction {
  type: "compaction";
  /** The 0-based iteration of the agent call it was made for. */
  iteration: number;
  /** The middleware that made it. */
  middleware: string;
  /** When it happened, epoch milliseconds. */
  at: number;
  /** Set on the events of a sub-run (an executor called as a tool, `asTool`): the path of tool names to it. */
  subRun?: string[];
  /**
   * Set with `subRun`: the tool calls that started the sub-runs of the path, one per name (the
   * first is the calling run's call: its action's `toolCallId`, else `"<iteration>:<index>"`), so
   * two calls of one sub-agent tool running at once are told apart. See docs/executor-options.md.
   */
  subRunCallIds?: string[];
}

/** A middleware reported something (`request.report(data)`): a model fallback, a measurement. */
export interface MiddlewareEvent {
  type: "middleware";
  /** The middleware's name. */
  name: string;
  /** The 0-based iteration it belongs to. */
  iteration: number;
  /** What it reported (JSON-serializable). */
  data: Record<string, unknown>;
  /** When it happened, epoch milliseconds. */
  at: number;
  /** Set on the events of a sub-run (an executor called as a tool, `asTool`): the path of tool names to it. */
  subRun?: string[];
  /**
   * Set with `subRun`: the tool calls that started the sub-runs of the path, one per name (the
   * first is the calling run's call: its action's `toolCallId`, else `"<iteration>:<index>"`), so
   * two calls of one sub-agent tool running at once are told apart. See docs/executor-options.md.
   */
  subRunCallIds?: string[];
}

/**
 * A message sent to the run (`executor.send`, `RunClient.send`) joined it between two turns: the
 * agent sees it as a new human message after the steps before it (see docs/steering.md).
 */
export interface RunMessageEvent {
  type: "message";
  /** The message (a `HumanMessage`). */
  message: BaseMessage;
  /** Its position in the run's inbox, when it was sent through a store (what a resume skips). */
  inboxSeq?: number;
  /** The iteration (agent call) it comes before. */
  iteration: number;
  /**
   * Set when the message arrived as the run was ending and no agent call came after it (the run
   * had no iteration left, or it ended by a `returnDirect` tool, a guardrail, a repeated call or
   * `"force"` early stopping): it is in the record, but the answer does not address it.
   */
  unanswered?: true;
  /** When it joined the run, epoch milliseconds. */
  at: number;
  /** Set on the events of a sub-run (an executor called as a tool, `asTool`): the path of tool names to it. */
  subRun?: string[];
  /**
   * Set with `subRun`: the tool calls that started the sub-runs of the path, one per name (the
   * first is the calling run's call: its action's `toolCallId`, else `"<iteration>:<index>"`), so
   * two calls of one sub-agent tool running at once are told apart. See docs/executor-options.md.
   */
  subRunCallIds?: string[];
}

/** An event of `AgentExecutor.stream()`; switch on `type`. */
export type AgentStreamEvent =
  | StartEvent
  | ActionEvent
  | StepEvent
  | TokenEvent
  | UsageEvent
  | CompactionEvent
  | MiddlewareEvent
  | InterruptEvent
  | RunMessageEvent
  | OutputEvent;
