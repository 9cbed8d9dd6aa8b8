import type { AgentAction, ObservedModelCall, Observation } from "@agentrx/core";
import type { Context, Span, Tracer } from "@opentelemetry/api";
import { type ChatModelDescription, type RunProvider, type UsageTotals, addFirstChunk, addProvider, addUsage, agentSpan, chatSpanOf, describeChatModel, endAgentSpan, endChatSpan, endToolSpan, failSpan, firstString, messageFinishReason, runProvider, setRunTotals, toolSpan } from "./gen-ai-spans";
import { type Otel, SPAN_KIND, loadOtel, otel as loadedOtel } from "./otel-api";
import { type SegmentStart, SegmentSpan, type SegmentTrace } from "./segment-link";
import type { TelemetryOptions } from "./telemetry-options";
import { modelParams } from "../executor/model-params";
import { safeTracer } from "./safe-tracer";

/**
 * The `config.configurable` key under which a traced run passes each tool call where its span is,
 * so that an executor run as that tool (`asTool`) is traced in the same tree, under the call.
 *
 * @internal
 */
export const TELEMETRY_PARENT_KEY = "__agentrx_telemetry_parent";

/**
 * The `config.configurable` key under which a caller gives a run the OpenTelemetry `Context` its
 * `invoke_agent` span starts under, in place of the active one: a remote caller's span, for a run
 * served over a protocol that carries the trace context (the A2A handler of @agentrx/serve reads
 * `traceparent`). A run under a {@link TelemetryParent} ignores it.
 *
 * @internal
 */
export const TELEMETRY_CONTEXT_KEY = "__agentrx_telemetry_context";

/** The context given under {@link TELEMETRY_CONTEXT_KEY}, when it is one. @internal */
export function givenContext(configurable: Record<string, unknown> | undefined): Context | undefined {
  const value = configurable?.[TELEMETRY_CONTEXT_KEY] as Context | undefined;
  return typeof value?.getValue === "function" ? value : undefined;
}

/** Where a sub-run's spans go: under one of its caller's tool-call spans. @internal */
export interface TelemetryParent {
  /** The caller's telemetry settings: the sub-run records what its caller records. */
  options: TelemetryOptions;
  /** The caller's tracer. */
  tracer: Tracer;
  /** The context of the tool call's span. */
  context: Context;
  /** The usage totals of the runs above the sub-run, nearest first: each counts the sub-run's model calls. */
  usage: readonly UsageTotals[];
}

/**
 * One run's OpenTelemetry spans, made from what the run itself sees (its start and end, the model
 * calls its agent reports, its tool calls) rather than from `@langchain/core` callbacks: with no
 * callback handler attached, the agent's runnables build no callback runs, and each span is made
 * directly under its parent's context, so tracing costs little more than its spans. Used when the
 * agent reports its model calls (every built-in agent does; see docs/telemetry.md).
 *
 * @internal
 */
export class RunTelemetry implements SegmentTrace {
  private otel: Otel | undefined = loadedOtel;
  private tracer: Tracer | undefined;
  private span: Span | undefined;
  private context: Context | undefined;
  /** Whether a context manager is registered: tool calls run in their span's context only then. */
  private keepsContext = false;
  /** This run's totals, then the totals of the runs above it. */
  private readonly usage: UsageTotals[];
  /** The provider of the run's own model calls (a sub-run counts its own). */
  private readonly provider: RunProvider = runProvider();
  private readonly options: TelemetryOptions;
  /** Spans of early calls still waiting for their id (see {@link UnnamedCall}). */
  private unnamed: Set<OpenToolSpan> | undefined;
  /** The run's thread (`gen_ai.conversation.id` of its spans); a sub-run has none. */
  private readonly conversationId: string | undefined;
  /** The run's own `invoke_agent` span (not a sub-run's), for its `traceparent`. */
  private readonly segmentSpan = new SegmentSpan();

  constructor(
    options: TelemetryOptions,
    private readonly parent: TelemetryParent | undefined,
    private readonly runId: string,
    threadId: string | undefined,
    private readonly runName: string | undefined,
    /** Where the run's span starts when it has no parent (see {@link TELEMETRY_CONTEXT_KEY}); else the active context. */
    private readonly startContext?: Context,
    /** How the span of a resumed run, or of a fork, joins the span before it (see {@link segmentStart}). */
    private readonly segment?: SegmentStart,
  ) {
    this.options = parent?.options ?? options;
    this.conversationId = parent === undefined ? threadId : undefined;
    this.usage = [{ input: 0, output: 0, seen: false }, ...(parent?.usage ?? [])];
  }

  /** Opens the run's `invoke_agent` span (under its caller's tool call, for a sub-run). */
  async begin(inputs: Record<string, unknown>): Promise<void> {
    const otel = (this.otel ??= await loadOtel());
    const given = this.parent?.tracer ?? (this.options.tracer as Tracer | undefined) ?? otel.defaultTracer();
    // Without a tracer and without @opentelemetry/api there is nothing to trace with.
    if (given === undefined) return;
    // A tracer that throws (a span processor, an exporter) never fails or hangs the run.
    const tracer = (this.tracer = safeTracer(given));
    const parentContext = this.parent?.context ?? this.startContext ?? otel.active();
    const { name, attributes } = agentSpan(this.options, this.runName, this.runId, this.conversationId, inputs);
    const { links, attributes: source } = this.segment ?? {};
    if (source !== undefined) Object.assign(attributes, source);
    this.span = tracer.startSpan(name, links === undefined ? { kind: SPAN_KIND.internal, attributes } : { kind: SPAN_KIND.internal, attributes, links }, parentContext);
    this.context = otel.withSpan(parentContext, this.span);
    this.keepsContext = otel.keepsContext();
    // A sub-run is resumed only with its caller: only a top run's record keeps its span's traceparent.
    if (this.parent === undefined) this.segmentSpan.keep(this.span);
  }

  /** The W3C `traceparent` of the run's own `invoke_agent` span, for its record (see {@link SegmentTrace}). */
  traceparent(): string | undefined {
    return this.segmentSpan.traceparent();
  }

  /** Ends the run's span with its output. */
  end(outputs: Record<string, unknown>): void {
    this.releaseUnnamed();
    if (this.span !== undefined) endAgentSpan(this.span, this.options, outputs, this.usage[0], this.provider);
    this.span = undefined;
  }

  /** Ends the run's span with an error (a cancellation is an `AbortError`). */
  fail(error: unknown): void {
    this.releaseUnnamed();
    if (this.span !== undefined) {
      // The model calls made before the run failed (or was cancelled) count all the same.
      setRunTotals(this.span, this.usage[0], this.provider);
      failSpan(this.span, error);
    }
    this.span = undefined;
  }

  /** The run ends: spans still waiting for their call's id end without it (see {@link UnnamedCall}). */
  private releaseUnnamed(): void {
    if (this.unnamed !== undefined) for (const span of [...this.unnamed]) span.release(undefined);
  }

  /**
   * A model call of the agent, reported when it ended: its `chat` span, from its start.
   * `firstChunkAt` is when its streamed reply's first chunk arrived: the agent's report of it
   * when it made one (it knows which chunk was whose), else when the executor saw it; a time
   * before the call started is an earlier call's.
   */
  modelCall(call: ObservedModelCall, firstChunkAt = call.firstChunkAt): void {
    const { tracer, context } = this;
    if (tracer === undefined || context === undefined) return;
    // What the span says of the model is worked out once per model (`describeModel`: a turn's
    // model, a binding, is the same object on every call). Given at its start: what a sampler
    // could know when the call started; the reply's attributes follow, as on the callback path.
    const model = describeModel(call.model);
    addProvider(this.provider, model.attributes["gen_ai.provider.name"]);
    const { name, attributes } = chatSpanOf(this.options, model, call.input, this.conversationId);
    if (firstChunkAt !== undefined && firstChunkAt >= call.startedAt) addFirstChunk(attributes, call.startedAt, firstChunkAt);
    const span = tracer.startSpan(name, { kind: SPAN_KIND.client, attributes, startTime: call.startedAt }, context);
    const message = call.output;
    if (message === undefined) return failSpan(span, call.error);
    const reason = messageFinishReason(message);
    const usage = endChatSpan(span, this.options, [message], reason === undefined ? [] : [reason], undefined);
    // Every run above counts it (a caller's usage includes its sub-runs', as the executor's does).
    if (usage !== undefined) for (const totals of this.usage) addUsage(totals, usage);
  }

  /**
   * Opens a tool call's `execute_tool` span; resolves the call's end. `parent` is where a sub-run
   * the tool starts should put its spans. `description` is the tool's (`gen_ai.tool.description`).
   */
  toolStarted(action: AgentAction, unnamed?: UnnamedCall, description?: string): ToolSpan | undefined {
    const { tracer, context, otel } = this;
    if (tracer === undefined || context === undefined || otel === undefined) return undefined;
    const given = (action as { toolCallId?: unknown }).toolCallId;
    const callId = typeof given === "string" && given !== "" ? given : unnamed?.callId;
    const { name, attributes } = toolSpan(this.options, action.tool, action.toolInput, callId, description);
    const span = tracer.startSpan(name, { kind: SPAN_KIND.internal, attributes }, context);
    const open = new OpenToolSpan(this.options, tracer, otel, span, context, this.keepsContext, this.usage);
    if (unnamed !== undefined && !unnamed.settled) {
      // Held open until the turn's action names the call (or the run ends without naming it).
      open.hold((this.unnamed ??= new Set()));
      unnamed.span = open;
    }
    return open;
  }
}

/**
 * An early tool call the model streamed without an id (see the executor's `eagerTools`): the
 * agent's parser gives the call its id only with the turn's action, which may come after the call
 * ended. Its span stays open until then, so that it carries `gen_ai.tool.call.id` like any other
 * call's; it ends with the time the call ended. @internal
 */
export class UnnamedCall {
  /** The id the turn's action gave the call, once settled. */
  callId: string | undefined;
  /** Whether the turn matched the call (or dropped it): a span opened from now on is not held. */
  settled = false;
  /** The call's span, while held. */
  span: OpenToolSpan | undefined;

  /** The turn's action named the call `callId` (undefined: it has none, or the turn dropped the call). */
  name(callId: string | undefined): void {
    this.settled = true;
    this.callId = callId;
    this.span?.release(callId);
    this.span = undefined;
  }
}

/** An open tool-call span; also where a sub-run the tool starts puts its spans. One object a call. */
class OpenToolSpan implements ToolSpan, TelemetryParent {
  private spanContext: Context | undefined;
  /** The run's held spans, while this one waits for its call's id (see {@link UnnamedCall}). */
  private held: Set<OpenToolSpan> | undefined;
  /** When the call ended (`performance.now()`), if it ended while held. */
  private endedAt: number | undefined;

  constructor(
    readonly options: TelemetryOptions,
    readonly tracer: Tracer,
    private readonly otel: Otel,
    private readonly span: Span,
    private readonly runContext: Context,
    private readonly keepsContext: boolean,
    readonly usage: readonly UsageTotals[],
  ) {}

  get parent(): TelemetryParent {
    return this;
  }

  /** The call span's context, made when first needed (a sub-run's spans, or a context manager). */
  get context(): Context {
    return (this.spanContext ??= this.otel.withSpan(this.runContext, this.span));
  }

  run<T>(fn: () => T): T {
    return this.keepsContext ? this.otel.withContext(this.context, fn) : fn();
  }

  end(observation: Observation): void {
    if (this.held === undefined) return endToolSpan(this.span, this.options, observation);
    endToolSpan(this.span, this.options, observation, false);
    this.endedAt = performance.now();
  }

  fail(error: unknown): void {
    if (this.held === undefined) return failSpan(this.span, error);
    failSpan(this.span, error, false);
    this.endedAt = performance.now();
  }

  /** Keeps the span open until {@link release}: one of the run's `held` spans. */
  hold(held: Set<OpenToolSpan>): void {
    this.held = held;
    held.add(this);
  }

  /** Names the held span's call (when `callId` is given) and ends it if its call has ended. */
  release(callId: string | undefined): void {
    const { held } = this;
    if (held === undefined) return;
    held.delete(this);
    this.held = undefined;
    if (callId !== undefined && callId !== "") this.span.setAttribute("gen_ai.tool.call.id", callId);
    if (this.endedAt !== undefined) this.span.end(this.endedAt);
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

/** Descriptions by model runnable: a turn's model (a binding) is the same object on every call. */
const descriptions = new WeakMap<object, ChatModelDescription>();

/**
 * The model's description from its class name, settings and LangSmith parameters
 * (`ls_model_name`, ...), through a binding (`bindTools`). Its class name is the one callbacks see
 * (see {@link serializedClassName}), so that both ways of tracing a run name its spans alike.
 */
function describeModel(model: unknown): ChatModelDescription {
  if (typeof model !== "object" || model === null) return readModel(model);
  let description = descriptions.get(model);
  if (description === undefined) descriptions.set(model, (description = readModel(model)));
  return description;
}

function readModel(model: unknown): ChatModelDescription {
  const { className, params, metadata } = modelParams(model);
  return describeChatModel(serializedClassName(model) ?? className, params, metadata);
}

/**
 * The class name `@langchain/core` gives callbacks for a model (the last of its serialized `id`,
 * `lc_id`: its `lc_name()` when its class gives one of its own, else the JavaScript class name),
 * through bindings; undefined for a model that is not serializable.
 */
function serializedClassName(model: unknown): string | undefined {
  let target = model as Record<string, unknown> | null | undefined;
  for (let depth = 0; depth < 4 && typeof target === "object" && target !== null && "bound" in target; depth++) {
    target = target["bound"] as Record<string, unknown> | null | undefined;
  }
  if (typeof target !== "object" || target === null) return undefined;
  try {
    const id = target["lc_id"];
    return Array.isArray(id) ? firstString(id.at(-1)) : undefined;
  } catch {
    return undefined;
  }
}
