import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { safeTracer } from "./safe-tracer";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatGeneration, LLMResult } from "@langchain/core/outputs";
import type { ChainValues } from "@langchain/core/utils/types";
import type { Attributes, Context, Link, Span, SpanKind, SpanOptions, Tracer } from "@opentelemetry/api";
import { attributeText } from "./gen-ai-messages";
import {
  type RunProvider,
  type UsageTotals,
  addFirstChunk,
  addProvider,
  addUsage,
  agentSpan,
  chatSpan,
  endAgentSpan,
  endChatSpan,
  endToolSpan,
  failSpan,
  firstString,
  messageFinishReason,
  runProvider,
  setRunTotals,
  toolSpan,
} from "./gen-ai-spans";
import { type Otel, SPAN_KIND, loadOtel, otel as loadedOtel } from "./otel-api";
import type { TelemetryParent } from "./run-telemetry";
import { type SegmentStart, SegmentSpan, type SegmentTrace } from "./segment-link";
import type { TelemetryOptions } from "./telemetry-options";

const EXECUTOR_ID = "agentrx/executors/AgentExecutor";

interface OpenSpan {
  span: Span;
  context: Context;
  /** Set on `invoke_agent` spans: the usage of the model calls under it. */
  usage?: UsageTotals;
  /** Set on `invoke_agent` spans: the provider of the model calls in that run (not in its sub-runs). */
  provider?: RunProvider;
  /** The `invoke_agent` span of the run the span is in (itself, for one). */
  agent?: OpenSpan;
  /** The thread of the run the span is in (the top run's `threadId`; a sub-run has none). */
  conversationId?: string;
  /** Set on `chat` spans: when the call started (epoch ms), for its time to first chunk. */
  startedAt?: number;
  /** Set on `chat` spans once the streamed reply's first chunk arrived (epoch ms). */
  firstChunkAt?: number;
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
export class TelemetryHandler extends BaseCallbackHandler implements SegmentTrace {
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
  /** The run's own `invoke_agent` span (not a sub-run's), for its `traceparent`. */
  private readonly segmentSpan = new SegmentSpan();

  constructor(
    private readonly options: TelemetryOptions,
    /** The executor run's id (the first executor chain this handler sees without a parent it knows). */
    private readonly runId: string,
    /** That run's conversation (`threadId`), if any. */
    private readonly threadId?: string,
    /** Where the run's spans go when it runs as a tool of a traced run: under that call's span. */
    private readonly parent?: TelemetryParent,
    /** Where the run's span starts when it has no parent (see `TELEMETRY_CONTEXT_KEY`); else the active context. */
    private readonly startContext?: Context,
    /** How the span of a resumed run, or of a fork, joins the span before it (see {@link segmentStart}). */
    private readonly segment?: SegmentStart,
  ) {
    super();
    // A TelemetryTracer is @opentelemetry/api's Tracer, typed by the method the executor calls.
    const given = (options.tracer as Tracer | undefined) ?? parent?.tracer;
    this.tracer = given === undefined ? undefined : safeTracer(given);
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
    const parent = parentRunId === undefined ? undefined : this.nearest(parentRunId);
    const known = parent !== undefined;
    const conversationId = known ? undefined : this.threadId;
    const { name, attributes } = agentSpan(this.options, runName, known ? runId : this.runId, conversationId, inputs);
    const segment = known ? undefined : this.segment;
    if (segment?.attributes !== undefined) Object.assign(attributes, segment.attributes);
    const open = this.open(otel, runId, parentRunId, parent, name, SPAN_KIND.internal, attributes, true, undefined, conversationId, segment?.links);
    // A sub-run (under a parent) is resumed only with its caller: only a top run's record keeps its span's traceparent.
    if (!known && this.parent === undefined) this.segmentSpan.keep(open?.span);
  }

  override async handleChainEnd(outputs: ChainValues, runId: string): Promise<void> {
    this.parents.delete(runId);
    const open = this.spans.get(runId);
    if (!open) return;
    this.spans.delete(runId);
    endAgentSpan(open.span, this.options, outputs, open.usage, open.provider);
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
    const parent = parentRunId === undefined ? undefined : this.nearest(parentRunId);
    const { name, attributes } = chatSpan(this.options, className, messages, params, metadata, parent?.conversationId);
    const open = this.open(otel, runId, parentRunId, parent, name, SPAN_KIND.client, attributes, false, startTime);
    if (open === undefined) return;
    open.startedAt = startTime ?? Date.now();
    const run = open.agent?.provider;
    if (run !== undefined) addProvider(run, attributes["gen_ai.provider.name"]);
  }

  /** A streamed reply's chunk: the first one's time makes the call's time to first chunk. */
  override handleLLMNewToken(_token: string, _idx: unknown, runId: string): void {
    const open = this.spans.get(runId);
    if (open !== undefined && open.firstChunkAt === undefined) open.firstChunkAt = Date.now();
  }

  override async handleLLMEnd(output: LLMResult, runId: string): Promise<void> {
    const open = this.spans.get(runId);
    if (!open) return;
    this.spans.delete(runId);
    const generations = (output.generations?.[0] ?? []) as Partial<ChatGeneration>[];
    const messages: BaseMessage[] = [];
    const reasons: string[] = [];
    for (const generation of generations) {
      if (generation.message === undefined) continue;
      messages.push(generation.message);
      const reason = messageFinishReason(generation.message, generation.generationInfo);
      if (reason !== undefined) reasons.push(reason);
    }
    this.setStreamed(open);
    const usage = endChatSpan(open.span, this.options, messages, reasons, output.llmOutput?.["tokenUsage"]);
    // Every run above counts it (a caller's usage includes its sub-runs', as the executor's does).
    if (usage) for (const agent of this.agentsAbove(runId)) addUsage(agent, usage);
    for (const message of messages) {
      for (const call of (message as { tool_calls?: { id?: string; name: string; args: unknown }[] }).tool_calls ?? []) {
        if (call.id) this.pending.push({ id: call.id, name: call.name, args: attributeText(call.args) });
      }
    }
    this.parents.delete(runId);
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
    const { name: spanName, attributes } = toolSpan(this.options, name, input, toolCallId ?? this.takeCallId(name, input));
    this.open(otel, runId, parentRunId, parentRunId === undefined ? undefined : this.nearest(parentRunId), spanName, SPAN_KIND.internal, attributes, false);
  }

  override async handleToolEnd(output: unknown, runId: string): Promise<void> {
    const open = this.spans.get(runId);
    if (!open) return;
    this.spans.delete(runId);
    this.parents.delete(runId);
    endToolSpan(open.span, this.options, output);
  }

  override async handleToolError(error: Error, runId: string): Promise<void> {
    await this.fail(runId, error);
  }

  /** Runs `fn` with the span of `runId` as the active context (when it has one). */
  runIn<T>(otel: Otel, runId: string, fn: () => T): T {
    const open = this.spans.get(runId);
    return open === undefined ? fn() : otel.withContext(open.context, fn);
  }

  /**
   * Starts a span under `parent`, the nearest span above `parentRunId` (else the active context).
   * The span is in the conversation of its parent, unless it is an agent's (`conversationId` is
   * then its own). Returns the span opened (none without a tracer).
   */
  private open(
    otel: Otel,
    runId: string,
    parentRunId: string | undefined,
    parent: OpenSpan | undefined,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    agent: boolean,
    startTime?: number,
    conversationId?: string,
    links?: Link[],
  ): OpenSpan | undefined {
    const parentContext = parent?.context ?? this.parent?.context ?? this.startContext ?? otel.active();
    if (this.tracer === undefined) {
      const given = otel.defaultTracer();
      // A tracer that throws (a span processor, an exporter) never fails or hangs the run.
      if (given !== undefined) this.tracer = safeTracer(given);
    }
    // Without a tracer and without @opentelemetry/api there is nothing to trace with.
    if (this.tracer === undefined) return undefined;
    const options: SpanOptions = startTime === undefined ? { kind, attributes } : { kind, attributes, startTime };
    if (links !== undefined) options.links = links;
    const span = this.tracer.startSpan(name, options, parentContext);
    const open: OpenSpan = { span, context: otel.withSpan(parentContext, span) };
    if (agent) {
      open.usage = { input: 0, output: 0, seen: false };
      open.provider = runProvider();
      open.agent = open;
    } else if (parent?.agent !== undefined) open.agent = parent.agent;
    const conversation = agent ? conversationId : parent?.conversationId;
    if (conversation !== undefined) open.conversationId = conversation;
    this.spans.set(runId, open);
    this.parents.set(runId, parentRunId);
    return open;
  }

  /** Ends a span with an error status (a cancellation is an `AbortError`). */
  private async fail(runId: string, error: Error): Promise<void> {
    const open = this.spans.get(runId);
    this.parents.delete(runId);
    if (!open) return;
    this.spans.delete(runId);
    this.setStreamed(open);
    // A run's span: the model calls made before it failed (or was cancelled) count all the same.
    setRunTotals(open.span, open.usage, open.provider);
    failSpan(open.span, error);
  }

  /** A model call whose reply streamed: its span says so, with its time to first chunk. */
  private setStreamed(open: OpenSpan): void {
    if (open.firstChunkAt === undefined) return;
    const attributes: Attributes = {};
    addFirstChunk(attributes, open.startedAt, open.firstChunkAt);
    open.span.setAttributes(attributes);
  }

  /** The W3C `traceparent` of the run's own `invoke_agent` span, for its record (see {@link SegmentTrace}). */
  traceparent(): string | undefined {
    return this.segmentSpan.traceparent();
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
  private agentsAbove(runId: string): UsageTotals[] {
    const found: UsageTotals[] = [];
    let id = this.parents.get(runId);
    for (let depth = 0; id !== undefined && depth < 1000; depth += 1) {
      const usage = this.spans.get(id)?.usage;
      if (usage) found.push(usage);
      id = this.parents.get(id);
    }
    if (this.parent !== undefined) found.push(...this.parent.usage);
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
