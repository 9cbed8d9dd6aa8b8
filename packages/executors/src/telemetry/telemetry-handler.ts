import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage, UsageMetadata } from "@langchain/core/messages";
import type { ChatGeneration, LLMResult } from "@langchain/core/outputs";
import type { ChainValues } from "@langchain/core/utils/types";
import type { Attributes, Context, Span, SpanKind, Tracer } from "@opentelemetry/api";
import { attributeText, inputMessagesJson, outputMessagesJson, textMessageJson } from "./gen-ai-messages";
import { type Otel, SPAN_KIND, STATUS_ERROR, loadOtel, otel as loadedOtel } from "./otel-api";
import type { TelemetryOptions } from "./telemetry-options";

const EXECUTOR_ID = "agentrx/executors/AgentExecutor";
const DEFAULT_RUN_NAME = "AgentExecutor";

interface OpenSpan {
  span: Span;
  context: Context;
  /** Set on `invoke_agent` spans: the usage of the model calls under it. */
  usage?: { input: number; output: number; seen: boolean };
}

interface PendingToolCall {
  id: string;
  name: string;
  args: string;
}

/**
 * A `@langchain/core` callback handler that turns one executor run's callback tree into
 * OpenTelemetry spans: the run (`invoke_agent`), its model calls (`chat {model}`), its tool calls
 * (`execute_tool {name}`), and sub-runs (`executor.asTool`) nested under the tool call that ran
 * them. Runs inline (`awaitHandlers`), so span times are the calls' own. @internal
 */
export class TelemetryHandler extends BaseCallbackHandler {
  name = "agentrx_telemetry";
  override awaitHandlers = true;
  override raiseError = false;
  override ignoreRetriever = true;
  override ignoreCustomEvent = true;

  private readonly spans = new Map<string, OpenSpan>();
  /** The parent of every run seen that has no span of its own (prompts, parsers, sequences). */
  private readonly parents = new Map<string, string | undefined>();
  /** Tool calls the models asked for, to give each tool span its call id. */
  private pending: PendingToolCall[] = [];
  private tracer: Tracer | undefined;

  constructor(
    private readonly options: TelemetryOptions,
    /** The executor run's id (the first executor chain this handler sees without a parent it knows). */
    private readonly runId: string,
    /** That run's conversation (`threadId`), if any. */
    private readonly threadId?: string,
  ) {
    super();
    this.tracer = options.tracer;
  }

  override async handleChainStart(
    chain: Serialized,
    inputs: ChainValues,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    _runType?: string,
    runName?: string,
  ): Promise<void> {
    if (chain?.id?.join("/") !== EXECUTOR_ID) {
      this.parents.set(runId, parentRunId);
      return;
    }
    const otel = loadedOtel ?? (await loadOtel());
    const known = parentRunId !== undefined && this.nearest(parentRunId) !== undefined;
    const agentName = runName ?? DEFAULT_RUN_NAME;
    const attributes: Attributes = {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": agentName,
      "agentrx.run.id": known ? runId : this.runId,
    };
    if (!known && this.threadId !== undefined) attributes["gen_ai.conversation.id"] = this.threadId;
    if (this.options.recordInputs) {
      const input = inputs?.["input"];
      attributes["gen_ai.input.messages"] = textMessageJson("user", attributeText(input ?? inputs));
    }
    const name = agentName === DEFAULT_RUN_NAME ? "invoke_agent" : `invoke_agent ${agentName}`;
    this.open(otel, runId, parentRunId, name, SPAN_KIND.internal, attributes, true);
  }

  override async handleChainEnd(outputs: ChainValues, runId: string): Promise<void> {
    this.parents.delete(runId);
    const open = this.spans.get(runId);
    if (!open) return;
    this.spans.delete(runId);
    const { span, usage } = open;
    const stopReason = outputs?.["stopReason"];
    if (typeof stopReason === "string") span.setAttribute("agentrx.stop_reason", stopReason);
    if (usage?.seen) {
      span.setAttribute("gen_ai.usage.input_tokens", usage.input);
      span.setAttribute("gen_ai.usage.output_tokens", usage.output);
    }
    if (this.options.recordOutputs) span.setAttribute("gen_ai.output.messages", textMessageJson("assistant", attributeText(outputs?.["output"] ?? ""), "stop"));
    span.end();
  }

  override async handleChainError(error: Error, runId: string): Promise<void> {
    this.parents.delete(runId);
    await this.fail(runId, error);
  }

  override async handleChatModelStart(
    llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): Promise<void> {
    const otel = loadedOtel ?? (await loadOtel());
    this.startChat(otel, llm?.id?.at(-1), messages[0] ?? [], runId, parentRunId, (extraParams?.["invocation_params"] ?? {}) as Record<string, unknown>, metadata);
  }

  /** Opens a model call's `chat` span (at `startTime`, default now). */
  startChat(
    otel: Otel,
    className: string | undefined,
    messages: BaseMessage[],
    runId: string,
    parentRunId: string | undefined,
    params: Record<string, unknown>,
    metadata: Record<string, unknown> | undefined,
    startTime?: number,
  ): void {
    const model = firstString(metadata?.["ls_model_name"], params["model"], params["model_name"], className) ?? "unknown";
    const attributes: Attributes = { "gen_ai.operation.name": "chat", "gen_ai.request.model": model };
    const provider = firstString(metadata?.["ls_provider"]);
    if (provider) attributes["gen_ai.provider.name"] = provider;
    const temperature = metadata?.["ls_temperature"] ?? params["temperature"];
    if (typeof temperature === "number") attributes["gen_ai.request.temperature"] = temperature;
    const maxTokens = metadata?.["ls_max_tokens"] ?? params["max_tokens"];
    if (typeof maxTokens === "number") attributes["gen_ai.request.max_tokens"] = maxTokens;
    if (this.options.recordInputs) attributes["gen_ai.input.messages"] = inputMessagesJson(messages);
    this.open(otel, runId, parentRunId, `chat ${model}`, SPAN_KIND.client, attributes, false, startTime);
  }

  override async handleLLMEnd(output: LLMResult, runId: string): Promise<void> {
    const open = this.spans.get(runId);
    if (!open) return;
    this.spans.delete(runId);
    const { span } = open;
    const generations = (output.generations?.[0] ?? []) as Partial<ChatGeneration>[];
    const messages = generations.map((generation) => generation.message).filter((message): message is BaseMessage => message !== undefined);
    const reasons = generations.map((generation) => finishReason(generation)).filter((reason): reason is string => reason !== undefined);
    if (reasons.length > 0) span.setAttribute("gen_ai.response.finish_reasons", reasons);
    const first = messages[0] as (BaseMessage & { usage_metadata?: UsageMetadata }) | undefined;
    const responseMetadata = first?.response_metadata as Record<string, unknown> | undefined;
    const responseModel = firstString(responseMetadata?.["model_name"], responseMetadata?.["model"]);
    if (responseModel) span.setAttribute("gen_ai.response.model", responseModel);
    if (typeof first?.id === "string") span.setAttribute("gen_ai.response.id", first.id);
    const usage = first?.usage_metadata ?? tokenUsage(output.llmOutput);
    if (usage) {
      span.setAttribute("gen_ai.usage.input_tokens", usage.input_tokens);
      span.setAttribute("gen_ai.usage.output_tokens", usage.output_tokens);
      // Every run above counts it (a caller's usage includes its sub-runs', as the executor's does).
      for (const agent of this.agentsAbove(runId)) {
        agent.input += usage.input_tokens;
        agent.output += usage.output_tokens;
        agent.seen = true;
      }
    }
    for (const message of messages) {
      for (const call of (message as { tool_calls?: { id?: string; name: string; args: unknown }[] }).tool_calls ?? []) {
        if (call.id) this.pending.push({ id: call.id, name: call.name, args: attributeText(call.args) });
      }
    }
    if (this.options.recordOutputs) span.setAttribute("gen_ai.output.messages", outputMessagesJson(messages, reasons[0]));
    this.parents.delete(runId);
    span.end();
  }

  override async handleLLMError(error: Error, runId: string): Promise<void> {
    await this.fail(runId, error);
  }

  override async handleToolStart(
    tool: Serialized,
    input: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ): Promise<void> {
    const otel = loadedOtel ?? (await loadOtel());
    this.startTool(otel, runName ?? firstString((tool as { name?: unknown })?.name, tool?.id?.at(-1)) ?? "tool", input, runId, parentRunId, toolCallId);
  }

  /** Opens a tool call's `execute_tool` span. */
  startTool(otel: Otel, name: string, input: string, runId: string, parentRunId: string | undefined, toolCallId: string | undefined): void {
    const attributes: Attributes = { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": "function" };
    const callId = toolCallId ?? this.takeCallId(name, input);
    if (callId) attributes["gen_ai.tool.call.id"] = callId;
    if (this.options.recordInputs) attributes["gen_ai.tool.call.arguments"] = input;
    this.open(otel, runId, parentRunId, `execute_tool ${name}`, SPAN_KIND.internal, attributes, false);
  }

  override async handleToolEnd(output: unknown, runId: string): Promise<void> {
    const open = this.spans.get(runId);
    if (!open) return;
    this.spans.delete(runId);
    this.parents.delete(runId);
    if (this.options.recordOutputs) {
      const content = (output as { content?: unknown } | null)?.content;
      open.span.setAttribute("gen_ai.tool.call.result", attributeText(typeof output === "object" && output !== null && content !== undefined ? content : output));
    }
    open.span.end();
  }

  override async handleToolError(error: Error, runId: string): Promise<void> {
    await this.fail(runId, error);
  }

  /** Runs `fn` with the span of `runId` as the active context (when it has one). */
  runIn<T>(otel: Otel, runId: string, fn: () => T): T {
    const open = this.spans.get(runId);
    return open === undefined ? fn() : otel.withContext(open.context, fn);
  }

  /** Starts a span under the nearest span above `parentRunId` (else the active context). */
  private open(otel: Otel, runId: string, parentRunId: string | undefined, name: string, kind: SpanKind, attributes: Attributes, agent: boolean, startTime?: number): void {
    const parent = parentRunId === undefined ? undefined : this.nearest(parentRunId);
    const parentContext = parent?.context ?? otel.active();
    this.tracer ??= otel.defaultTracer();
    // Without a tracer and without @opentelemetry/api there is nothing to trace with.
    if (this.tracer === undefined) return;
    const span = this.tracer.startSpan(name, startTime === undefined ? { kind, attributes } : { kind, attributes, startTime }, parentContext);
    const open: OpenSpan = { span, context: otel.withSpan(parentContext, span) };
    if (agent) open.usage = { input: 0, output: 0, seen: false };
    this.spans.set(runId, open);
    this.parents.set(runId, parentRunId);
  }

  /** Ends a span with an error status (a cancellation is an `AbortError`). */
  private async fail(runId: string, error: Error): Promise<void> {
    const open = this.spans.get(runId);
    this.parents.delete(runId);
    if (!open) return;
    this.spans.delete(runId);
    const type = error?.name || "_OTHER";
    open.span.setAttribute("error.type", type);
    if (type === "AbortError") open.span.setAttribute("agentrx.cancelled", true);
    open.span.recordException(error);
    open.span.setStatus({ code: STATUS_ERROR, message: error?.message ?? String(error) });
    open.span.end();
  }

  /** The nearest open span at or above `runId`. */
  private nearest(runId: string): OpenSpan | undefined {
    let id: string | undefined = runId;
    for (let depth = 0; id !== undefined && depth < 1000; depth += 1) {
      const open = this.spans.get(id);
      if (open) return open;
      id = this.parents.get(id);
    }
    return undefined;
  }

  /** The usage totals of the `invoke_agent` spans above a model call. */
  private agentsAbove(runId: string): NonNullable<OpenSpan["usage"]>[] {
    const found: NonNullable<OpenSpan["usage"]>[] = [];
    let id = this.parents.get(runId);
    for (let depth = 0; id !== undefined && depth < 1000; depth += 1) {
      const usage = this.spans.get(id)?.usage;
      if (usage) found.push(usage);
      id = this.parents.get(id);
    }
    return found;
  }

  /** The id of the tool call this tool run answers: the model's call of that tool with these arguments (else the first of that tool). */
  private takeCallId(name: string, input: string): string | undefined {
    let index = this.pending.findIndex((call) => call.name === name && call.args === input);
    if (index < 0) index = this.pending.findIndex((call) => call.name === name);
    if (index < 0) return undefined;
    const [call] = this.pending.splice(index, 1);
    return call?.id;
  }
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === "string" && value !== "") return value;
  return undefined;
}

function finishReason(generation: Partial<ChatGeneration>): string | undefined {
  const info = generation.generationInfo as Record<string, unknown> | undefined;
  const metadata = generation.message?.response_metadata as Record<string, unknown> | undefined;
  return firstString(info?.["finish_reason"], metadata?.["finish_reason"], metadata?.["stop_reason"]);
}

function tokenUsage(llmOutput: Record<string, unknown> | undefined): UsageMetadata | undefined {
  const usage = llmOutput?.["tokenUsage"] as { promptTokens?: number; completionTokens?: number } | undefined;
  if (typeof usage?.promptTokens !== "number" || typeof usage.completionTokens !== "number") return undefined;
  return { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens };
}
