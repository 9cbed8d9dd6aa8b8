import type { AgentAction, ObservedModelCall, Observation } from "@agentrx/core";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { randomUuid } from "../runs/random-uuid";
import { type Otel, loadOtel, otel as loadedOtel } from "./otel-api";
import type { TelemetryHandler } from "./telemetry-handler";

/**
 * The `config.configurable` key under which a traced run passes each tool call where its span is,
 * so that an executor run as that tool (`asTool`) is traced in the same tree, under the call.
 *
 * @internal
 */
export const TELEMETRY_PARENT_KEY = "__agentrx_telemetry_parent";

/** Where a sub-run's spans go: the caller's handler, under one of its tool-call spans. @internal */
export interface TelemetryParent {
  handler: TelemetryHandler;
  spanKey: string;
}

const SERIALIZED_EXECUTOR = { lc: 1, type: "not_implemented", id: ["agentrx", "executors", "AgentExecutor"] } as Serialized;

/**
 * One run's OpenTelemetry spans, made from what the run itself sees (its start and end, the model
 * calls its agent reports, its tool calls) rather than from `@langchain/core` callbacks: with no
 * callback handler attached, the agent's runnables build no callback runs, so tracing costs only
 * its spans. Used when the agent reports its model calls (every built-in agent does).
 *
 * @internal
 */
export class RunTelemetry {
  private otel: Otel | undefined = loadedOtel;

  constructor(
    readonly handler: TelemetryHandler,
    private readonly parent: TelemetryParent | undefined,
    /** The run's id: its span's key in the handler. */
    private readonly key: string,
    private readonly runName: string | undefined,
  ) {}

  /** Opens the run's `invoke_agent` span. */
  async begin(inputs: Record<string, unknown>): Promise<void> {
    this.otel ??= await loadOtel();
    await this.handler.handleChainStart(SERIALIZED_EXECUTOR, inputs, this.key, this.parent?.spanKey, undefined, undefined, undefined, this.runName ?? "AgentExecutor");
  }

  /** Ends the run's span with its output. */
  end(outputs: Record<string, unknown>): void {
    void this.handler.handleChainEnd(outputs, this.key);
  }

  /** Ends the run's span with an error (a cancellation is an `AbortError`). */
  fail(error: unknown): void {
    void this.handler.handleChainError(error as Error, this.key);
  }

  /** A model call of the agent, reported when it ended: its `chat` span, from its start. */
  modelCall(call: ObservedModelCall): void {
    const otel = this.otel;
    if (otel === undefined) return;
    const key = randomUuid();
    const { className, params, metadata } = describeModel(call.model);
    this.handler.startChat(otel, className, call.input, key, this.key, params, metadata, call.startedAt);
    if (call.output !== undefined) {
      const message = call.output;
      const result: LLMResult = { generations: [[{ text: textOf(message), message } as never]] };
      void this.handler.handleLLMEnd(result, key);
    } else {
      void this.handler.handleLLMError(call.error as Error, key);
    }
  }

  /**
   * Opens a tool call's `execute_tool` span; resolves the call's end. `parent` is where a sub-run
   * the tool starts should put its spans.
   */
  toolStarted(action: AgentAction): ToolSpan | undefined {
    const otel = this.otel;
    if (otel === undefined) return undefined;
    const key = randomUuid();
    const callId = (action as { toolCallId?: unknown }).toolCallId;
    const input = typeof action.toolInput === "string" ? action.toolInput : JSON.stringify(action.toolInput);
    this.handler.startTool(otel, action.tool, input, key, this.key, typeof callId === "string" && callId !== "" ? callId : undefined);
    return {
      parent: { handler: this.handler, spanKey: key },
      run: (fn) => this.handler.runIn(otel, key, fn),
      end: (observation: Observation) => void this.handler.handleToolEnd(observation, key),
      fail: (error: unknown) => void this.handler.handleToolError(error as Error, key),
    };
  }
}

/** An open tool-call span. @internal */
export interface ToolSpan {
  /** Where a sub-run started by the tool puts its spans. */
  parent: TelemetryParent;
  /** Runs `fn` (the tool call) with this span as the active OpenTelemetry context. */
  run<T>(fn: () => T): T;
  end(observation: Observation): void;
  fail(error: unknown): void;
}

interface ModelDescription {
  className: string | undefined;
  params: Record<string, unknown>;
  metadata: Record<string, unknown> | undefined;
}

/** Descriptions by model runnable: a turn's model (a binding) is the same object on every call. */
const descriptions = new WeakMap<object, ModelDescription>();

function describeModel(model: unknown): ModelDescription {
  if (typeof model !== "object" || model === null) return readModel(model);
  let description = descriptions.get(model);
  if (description === undefined) descriptions.set(model, (description = readModel(model)));
  return description;
}

/** The model's class name, settings and LangSmith parameters (`ls_model_name`, ...), through a binding (`bindTools`). */
function readModel(model: unknown): ModelDescription {
  let target = model as Record<string, unknown> | undefined;
  let kwargs: Record<string, unknown> = {};
  for (let depth = 0; depth < 4 && target && typeof target === "object" && "bound" in target; depth++) {
    kwargs = { ...(target["kwargs"] as Record<string, unknown> | undefined), ...kwargs };
    target = target["bound"] as Record<string, unknown> | undefined;
  }
  if (target === undefined || typeof target !== "object") return { className: undefined, params: {}, metadata: undefined };
  const call = <T>(name: string, ...args: unknown[]): T | undefined => {
    const method = target[name];
    if (typeof method !== "function") return undefined;
    try {
      return method.apply(target, args) as T;
    } catch {
      return undefined;
    }
  };
  const className = call<string>("getName") ?? (target.constructor as { name?: string } | undefined)?.name;
  const metadata = call<Record<string, unknown>>("getLsParams", kwargs);
  const params = call<Record<string, unknown>>("invocationParams", kwargs) ?? {};
  return { className, params, metadata };
}

function textOf(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : "";
}
