import { STEP_METADATA_KEY, invalidToolObservation, isToolAgentAction } from "@agentrx/core";
import type { AgentAction, AgentStep, StepMetadata } from "@agentrx/core";
import { type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { StepEvent } from "./events";
import type { ExecutorRun } from "./executor-run";
import {
  invalidInputObservation,
  isToolInputParsingException,
  stringInputObservation,
  toObservation,
  toolErrorObservation,
} from "./observations";

/**
 * Runs the tool calls of one turn (SPEC §4.5): concurrently up to `maxConcurrency`, steps
 * returned in action order, `step` events emitted in completion order.
 *
 * @internal
 */
export class ToolRunner {
  private config: RunnableConfig = {};
  private pending: (AgentStep | undefined)[] = [];
  private listenersLifted = false;

  constructor(private readonly run: ExecutorRun) {}

  /** Sets the config every tool call starts from (callbacks, signal, configurable). */
  configure(config: RunnableConfig): void {
    this.config = config;
  }

  /** Runs every action; resolves with the steps in action order. */
  runAll(actions: AgentAction[], iteration: number): Promise<AgentStep[]> {
    const count = actions.length;
    const results = new Array<AgentStep | undefined>(count);
    this.pending = results;
    const limit = Math.min(count, this.run.options.maxConcurrency);
    // Each concurrent call listens on the run's signals (the tool, @langchain/core's own race):
    // lift Node's 10-listener leak warning for these short-lived, per-run signals.
    if (limit > 3 && !this.listenersLifted) {
      this.listenersLifted = true;
      liftListenerLimit(this.run.work.signal);
    }
    if (count === 1) {
      // The common case, without the scheduling below.
      return this.runOne(actions[0] as AgentAction, iteration, results, 0).then(() => results as AgentStep[]);
    }
    return new Promise<AgentStep[]>((resolve, reject) => {
      let next = 0;
      let settled = 0;
      let failed = false;
      const launch = (): void => {
        const index = next++;
        this.runOne(actions[index] as AgentAction, iteration, results, index).then(
          () => {
            if (failed || this.run.interrupted) return;
            if (++settled === count) resolve(results as AgentStep[]);
            else if (next < count) launch();
          },
          (error: unknown) => {
            if (failed) return;
            failed = true;
            reject(error);
          },
        );
      };
      for (let i = 0; i < limit; i++) launch();
    });
  }

  /** The steps of the current turn that completed before the loop was halted, in action order. */
  completed(): AgentStep[] {
    return this.pending.filter((step): step is AgentStep => step !== undefined);
  }

  /** Whether the action's tool returns its observation directly. */
  returnsDirect(action: AgentAction): boolean {
    return this.run.options.toolsByName.get(action.tool)?.returnDirect === true;
  }

  /**
   * The `step` event of a step. Its `messages` (a `ToolMessage` for tool calls, else a
   * `HumanMessage`) are built on first read: many consumers never look at them.
   */
  stepEvent(step: AgentStep, iteration: number, durationMs: number): StepEvent {
    let messages: BaseMessage[] | undefined;
    return {
      type: "step",
      iteration,
      step,
      get messages() {
        return (messages ??= resultMessages(step));
      },
      set messages(value) {
        messages = value;
      },
      durationMs,
    };
  }

  /** Runs one action; records its step in `results[index]` unless the run was interrupted meanwhile. */
  private async runOne(
    action: AgentAction,
    iteration: number,
    results: (AgentStep | undefined)[],
    index: number,
  ): Promise<void> {
    const { options, observed } = this.run;
    const start = observed ? performance.now() : 0;
    const tool = options.toolsByName.get(action.tool);
    let observation: string;
    let metadata: StepMetadata | undefined;
    if (tool === undefined) {
      observation = invalidToolObservation(action.tool, options.toolNames);
    } else {
      metadata = {};
      const config: RunnableConfig = {
        ...this.config,
        configurable: { ...this.config.configurable, [STEP_METADATA_KEY]: metadata },
      };
      observation = await this.invoke(tool, action, config);
    }
    const step: AgentStep = { action, observation };
    if (this.run.interrupted) return;
    results[index] = step;
    if (observed) {
      const event = this.stepEvent(step, iteration, performance.now() - start);
      if (metadata !== undefined && hasKeys(metadata)) event.metadata = metadata;
      this.run.emit(event);
    }
  }

  private async invoke(tool: StructuredToolInterface, action: AgentAction, config: RunnableConfig): Promise<string> {
    const input = action.toolInput as unknown;
    try {
      return toObservation(await tool.invoke(input as never, config));
    } catch (error) {
      if (this.run.interrupted) throw error;
      if (!isToolInputParsingException(error)) return toolErrorObservation(this.run.options, error, action);
      if (typeof input !== "string") return invalidInputObservation(action.tool, error);
      // A string given to a tool that takes named arguments: accept it when it is a JSON object.
      const parsed = parseObject(input);
      if (typeof parsed === "string") return stringInputObservation(action.tool, input, parsed);
      if (parsed === undefined) return stringInputObservation(action.tool, input);
      try {
        return toObservation(await tool.invoke(parsed as never, config));
      } catch (retryError) {
        if (this.run.interrupted) throw retryError;
        return isToolInputParsingException(retryError)
          ? invalidInputObservation(action.tool, retryError)
          : toolErrorObservation(this.run.options, retryError, action);
      }
    }
  }
}

/**
 * The JSON object in `text`; else, when `text` looks like JSON (starts with `{` or `[`), what is
 * wrong with it; else undefined (plain text).
 */
function parseObject(text: string): Record<string, unknown> | string | undefined {
  const looksLikeJson = /^\s*[[{]/.test(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return looksLikeJson ? `invalid JSON: ${(error as Error).message}` : undefined;
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  return looksLikeJson ? "got an array" : undefined;
}

function hasKeys(record: object): boolean {
  for (const _ in record) return true;
  return false;
}

function resultMessages(step: AgentStep): BaseMessage[] {
  const { action, observation } = step;
  return isToolAgentAction(action)
    ? [new ToolMessage({ content: observation, tool_call_id: action.toolCallId })]
    : [new HumanMessage(observation)];
}

type SetMaxListeners = (n: number, ...targets: EventTarget[]) => void;
let setMaxListeners: SetMaxListeners | null | undefined;

/** `events.setMaxListeners(0, ...signals)` on Node; nothing elsewhere. */
function liftListenerLimit(...signals: AbortSignal[]): void {
  if (setMaxListeners === undefined) {
    const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
      ?.getBuiltinModule;
    const events = getBuiltinModule?.("node:events") as { setMaxListeners?: SetMaxListeners } | undefined;
    setMaxListeners = events?.setMaxListeners ?? null;
  }
  setMaxListeners?.(0, ...signals);
}
