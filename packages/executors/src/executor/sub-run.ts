import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { AgentStep } from "@agentrx/core";
import type { AgentStreamEvent, UsageEvent } from "./events";

/**
 * The `config.configurable` key under which a run hands its tool calls a sink for the events of
 * sub-runs (executors called as tools, `asTool`).
 *
 * @internal
 */
export const SUB_RUN_KEY = "__agentrx_sub_run";

/**
 * The `config.configurable` key under which a run hands each tool call its id (the action's
 * `toolCallId`, else `"<iteration>:<index>"`): a sub-run's events carry it in `subRunCallIds`.
 *
 * @internal
 */
export const SUB_RUN_CALL_KEY = "__agentrx_sub_run_call";

/**
 * The `config.configurable` key under which a resumed run hands a `handoff` (or `asTool`) call the
 * decisions a person gave on its paused sub-run's interrupts, by the sub-run's own interrupt ids:
 * the tool resumes its sub-run with them (see docs/agent-types.md, "Pauses inside a handoff").
 *
 * @internal
 */
export const SUB_RUN_DECISIONS_KEY = "__agentrx_sub_run_decisions";

/**
 * The `config.configurable` key under which a tool that runs an executor hands the sub-run where
 * its model calls go (a run above it records them). The sub-run takes it out of what it passes on.
 *
 * @internal
 */
export const SUB_RUN_MODEL_CALLS_KEY = "__agentrx_sub_run_model_calls";

/**
 * The `config.configurable` key under which a sub-run carries its path from the top run: the names
 * of the tools that started it and the sub-runs above it (`["to_b", "to_a"]`), so that a `handoff`
 * or `asTool` call knows how deep the sub-run it would start is (`maxDepth`).
 *
 * @internal
 */
export const SUB_RUN_PATH_KEY = "__agentrx_sub_run_path";

/** How deep nested sub-runs go unless a tool's `maxDepth` says otherwise. @internal */
export const DEFAULT_MAX_SUB_RUN_DEPTH = 10;

/** The path of the sub-run `config` belongs to (see {@link SUB_RUN_PATH_KEY}); empty for a top run. @internal */
export function subRunPathOf(config: RunnableConfig | undefined): string[] {
  const path = config?.configurable?.[SUB_RUN_PATH_KEY] as unknown;
  return Array.isArray(path) ? path.filter((name): name is string => typeof name === "string") : [];
}

/**
 * A finished model call of a sub-run, on its way up to the run that records it. `subRun` and
 * `subRunCallIds` are relative to the run it reaches (empty: that run's own sub-run itself).
 *
 * @internal
 */
export interface SubRunModelCall {
  subRun: string[];
  subRunCallIds: string[];
  /** Its position among the model calls of its sub-run (in that sub-run's segment). */
  call: number;
  /** The sub-run's iteration it belongs to. */
  iteration: number;
  input: BaseMessage[];
  message: BaseMessage;
  startedAt: number;
}

/** Where a sub-run's model calls go. @internal */
export type SubRunModelCalls = (call: SubRunModelCall) => void;

/** Where a sub-run's events go: the calling run. @internal */
export interface SubRunSink {
  /** An event of a sub-run; its `subRun` path is relative to the calling run. */
  emit(event: AgentStreamEvent): void;
  /** The calling run's conversation so far: its inputs and completed steps (what a handoff passes on). */
  conversation?(): { inputs: Record<string, unknown>; steps: readonly AgentStep[] };
  /** Where sub-runs' model calls go, when the calling run (or a run above it) records them. */
  modelCalls?(): SubRunModelCalls | undefined;
  /** Counts a sub-run's `usage` event toward the calling run's usage, without emitting or recording it. */
  countUsage?(event: UsageEvent): void;
}

/**
 * The sink of a tool call started early (`eagerTools`): its sub-run's events wait until the turn
 * keeps the call and its `action` event is out (`release`), so that no sub-run event comes before
 * the action that asked for it; a call the turn does not keep (`drop`) leaves none in the stream
 * or the record, its model calls still counted in the run's usage.
 *
 * @internal
 */
export class HeldSubRunSink implements SubRunSink {
  private held: AgentStreamEvent[] | undefined = [];
  private dropped = false;

  constructor(private readonly sink: SubRunSink) {}

  emit(event: AgentStreamEvent): void {
    if (this.dropped) {
      if (event.type === "usage") this.sink.countUsage?.(event);
    } else if (this.held !== undefined) this.held.push(event);
    else this.sink.emit(event);
  }

  conversation(): { inputs: Record<string, unknown>; steps: readonly AgentStep[] } {
    return this.sink.conversation?.() ?? { inputs: {}, steps: [] };
  }

  modelCalls(): SubRunModelCalls | undefined {
    return this.sink.modelCalls?.();
  }

  countUsage(event: UsageEvent): void {
    this.sink.countUsage?.(event);
  }

  /** The call is the turn's and its action is out: the events held so far go on, and the next ones straight through. */
  release(): void {
    const held = this.held;
    this.held = undefined;
    if (held !== undefined && !this.dropped) for (const event of held) this.sink.emit(event);
  }

  /** The call is not the turn's: its events are left out (their usage counted). */
  drop(): void {
    if (this.dropped) return;
    this.dropped = true;
    const held = this.held;
    this.held = undefined;
    if (held !== undefined) for (const event of held) if (event.type === "usage") this.sink.countUsage?.(event);
  }
}

/** The sink the calling run put in `config`, if the tool is called by a run. @internal */
export function subRunSinkOf(config: RunnableConfig | undefined): SubRunSink | undefined {
  const sink = config?.configurable?.[SUB_RUN_KEY] as SubRunSink | undefined;
  return typeof sink?.emit === "function" ? sink : undefined;
}

/**
 * How a tool that runs an executor as sub-run `name` (`asTool`, `handoff`) passes the sub-run on to
 * the calling run: `forward` sends each of its events up (with `subRun` and `subRunCallIds`
 * prefixed), `modelCalls` (for the sub-run's config: `childConfig`) its model calls,
 * when some run above records them.
 *
 * @internal
 */
export function subRunLink(config: RunnableConfig | undefined, name: string): { forward(event: AgentStreamEvent): void; modelCalls: SubRunModelCalls | undefined } {
  const sink = subRunSinkOf(config);
  if (sink === undefined) return { forward: noop, modelCalls: undefined };
  const callId = config?.configurable?.[SUB_RUN_CALL_KEY];
  const id = typeof callId === "string" ? callId : undefined;
  const up = sink.modelCalls?.();
  return {
    forward: (event) => {
      const out: AgentStreamEvent = { ...event, subRun: [name, ...(event.subRun ?? [])] };
      // Ids only when there is one for every name of the path.
      if (id !== undefined && (event.subRun === undefined || event.subRunCallIds?.length === event.subRun.length)) out.subRunCallIds = [id, ...(event.subRunCallIds ?? [])];
      else delete out.subRunCallIds;
      sink.emit(out);
    },
    modelCalls:
      up === undefined || id === undefined
        ? undefined
        : (call) => up({ ...call, subRun: [name, ...call.subRun], subRunCallIds: [id, ...call.subRunCallIds] }),
  };
}

/**
 * Where a sub-run's model calls go (what its tool put in its `config`), and its `config` without
 * that key (so its own agent and tools do not see it); `config` itself when there is none.
 *
 * @internal
 */
export function takeSubRunModelCalls(config: RunnableConfig): { modelCalls: SubRunModelCalls | undefined; config: RunnableConfig } {
  const modelCalls = config.configurable?.[SUB_RUN_MODEL_CALLS_KEY] as SubRunModelCalls | undefined;
  if (modelCalls === undefined) return { modelCalls: undefined, config };
  const { [SUB_RUN_MODEL_CALLS_KEY]: _, ...configurable } = config.configurable as Record<string, unknown>;
  return { modelCalls: typeof modelCalls === "function" ? modelCalls : undefined, config: { ...config, configurable } };
}

function noop(): void {}
