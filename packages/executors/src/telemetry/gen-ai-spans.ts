import { describeThrown } from "@agentrx/core";
import type { BaseMessage, UsageMetadata } from "@langchain/core/messages";
import type { Attributes, Span } from "@opentelemetry/api";
import type { StopReason } from "../executor/events";
import { replyUsage } from "../executor/model-params";
import { attributeText, inputMessagesJson, outputMessagesJson, textMessageJson } from "./gen-ai-messages";
import { STATUS_ERROR } from "./otel-api";
import type { TelemetryOptions } from "./telemetry-options";

// The GenAI semantic conventions' span names and attributes for a run, a model call and a tool
// call, shared by both ways a run is traced (from what the run sees, or from callbacks; see
// docs/telemetry.md). @internal

/** The run name a run without `runName` has: its span is plain `invoke_agent`. @internal */
export const DEFAULT_RUN_NAME = "AgentExecutor";

/** A span's name and its attributes at start. @internal */
export interface SpanStart {
  name: string;
  attributes: Attributes;
}

/** Input and output tokens counted under a run's span (its own model calls and its sub-runs'). @internal */
export interface UsageTotals {
  input: number;
  output: number;
  seen: boolean;
}

/**
 * The provider of a run's own model calls (not its sub-runs'): the one they all named, while
 * `mixed` is false. One string and one flag, whatever the number of calls. @internal
 */
export interface RunProvider {
  /** The provider every call so far named (`gen_ai.provider.name`); undefined before the first call. */
  name: string | undefined;
  /** Whether two calls named different providers, or one named none: the run then has none. */
  mixed: boolean;
}

/** A new {@link RunProvider}, before the run's first model call. @internal */
export function runProvider(): RunProvider {
  return { name: undefined, mixed: false };
}

/** Counts a model call's `gen_ai.provider.name` (undefined: the model named none) in its run's. @internal */
export function addProvider(run: RunProvider, provider: unknown): void {
  if (run.mixed) return;
  if (typeof provider === "string" && (run.name === undefined || run.name === provider)) {
    run.name = provider;
    return;
  }
  run.mixed = true;
  run.name = undefined;
}

/** Sets a run's `gen_ai.provider.name` when all of its own model calls named one. */
function setRunProvider(span: Span, run: RunProvider | undefined): void {
  if (run !== undefined && !run.mixed && run.name !== undefined) span.setAttribute("gen_ai.provider.name", run.name);
}

/** Counts a model call's usage in a run's totals (a count a partial usage lacks counts as 0). @internal */
export function addUsage(totals: UsageTotals, usage: UsageMetadata): void {
  totals.input += tokens(usage.input_tokens) ?? 0;
  totals.output += tokens(usage.output_tokens) ?? 0;
  totals.seen = true;
}

/** Sets `key` to `value` when it is a token count; else nothing. */
function setTokens(attributes: Attributes, key: string, value: unknown): void {
  const count = tokens(value);
  if (count !== undefined) attributes[key] = count;
}

/** A token count, when it is one. */
function tokens(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * A run's `invoke_agent` span. `threadId` is given only for the top run of a trace. A run the
 * caller named (`runName`) is `invoke_agent {runName}` with that `gen_ai.agent.name`; an unnamed
 * run is plain `invoke_agent` without one, as the conventions name a span whose agent has no name
 * given by the application. @internal
 */
export function agentSpan(options: TelemetryOptions, runName: string | undefined, runId: string, threadId: string | undefined, inputs: Record<string, unknown> | undefined): SpanStart {
  const named = runName !== undefined && runName !== "" && runName !== DEFAULT_RUN_NAME;
  const attributes: Attributes = { "gen_ai.operation.name": "invoke_agent", "agentrx.run.id": runId };
  if (named) attributes["gen_ai.agent.name"] = runName;
  if (threadId !== undefined) attributes["gen_ai.conversation.id"] = threadId;
  if (options.recordInputs) attributes["gen_ai.input.messages"] = textMessageJson("user", attributeText(inputs?.["input"] ?? inputs));
  return { name: named ? `invoke_agent ${runName}` : "invoke_agent", attributes };
}

/**
 * Ends a run's span with its stop reason, the usage under it, the provider of its own model calls
 * (when they all named one) and (when asked) its answer, whose finish reason is the stop reason's
 * (see {@link runFinishReason}). @internal
 */
export function endAgentSpan(span: Span, options: TelemetryOptions, outputs: Record<string, unknown> | undefined, usage: UsageTotals | undefined, provider?: RunProvider): void {
  setRunTotals(span, usage, provider);
  const stopReason = outputs?.["stopReason"];
  if (typeof stopReason === "string") span.setAttribute("agentrx.stop_reason", stopReason);
  if (options.recordOutputs) span.setAttribute("gen_ai.output.messages", textMessageJson("assistant", attributeText(outputs?.["output"] ?? ""), runFinishReason(stopReason)));
  span.end();
}

/**
 * Sets what a run's span counts of the model calls under it, however the run ends (an answer, a
 * failure, a cancellation): the usage under it (when a call reported any) and the provider of its
 * own calls (when they all named one). @internal
 */
export function setRunTotals(span: Span, usage: UsageTotals | undefined, provider: RunProvider | undefined): void {
  setRunProvider(span, provider);
  if (usage?.seen) {
    span.setAttribute("gen_ai.usage.input_tokens", usage.input);
    span.setAttribute("gen_ai.usage.output_tokens", usage.output);
  }
}

/**
 * The finish reason of a run's answer for each stop reason, in the conventions' well-known values:
 * an answer is `stop`; a run a limit or budget cut short, `length`; one a guardrail stopped,
 * `content_filter`; one paused on tool calls waiting for approval, `tool_call`. A stop reason with
 * no such value (`repeated_call`) is given as it is: the conventions' list is open.
 */
const RUN_FINISH_REASONS = {
  finish: "stop",
  return_direct: "stop",
  max_iterations: "length",
  max_execution_time: "length",
  budget: "length",
  guardrail: "content_filter",
  interrupted: "tool_call",
  repeated_call: "repeated_call",
} as const satisfies Record<StopReason, string>;

/** The `finish_reason` of a run's answer in `gen_ai.output.messages`, from its stop reason (`stop` without one). @internal */
export function runFinishReason(stopReason: unknown): string {
  if (typeof stopReason !== "string") return "stop";
  return Object.hasOwn(RUN_FINISH_REASONS, stopReason) ? RUN_FINISH_REASONS[stopReason as StopReason] : stopReason;
}

/**
 * A model call's `chat {model}` span: the model's name from its LangSmith parameters
 * (`ls_model_name`), its settings, else its class name as callbacks name it (the last of its
 * serialized `id`). `conversationId` is the run's thread. @internal
 */
export function chatSpan(
  options: TelemetryOptions,
  className: string | undefined,
  messages: readonly BaseMessage[],
  params: Record<string, unknown>,
  metadata: Record<string, unknown> | undefined,
  conversationId?: string,
): SpanStart {
  return chatSpanOf(options, describeChatModel(className, params, metadata), messages, conversationId);
}

/** A model call's `chat {model}` span, from the model's description; `conversationId` is the run's thread. @internal */
export function chatSpanOf(options: TelemetryOptions, model: ChatModelDescription, messages: readonly BaseMessage[], conversationId?: string): SpanStart {
  const attributes = chatRequestAttributes(model);
  if (conversationId !== undefined) attributes["gen_ai.conversation.id"] = conversationId;
  if (options.recordInputs) attributes["gen_ai.input.messages"] = inputMessagesJson(messages);
  return { name: model.spanName, attributes };
}

/** What a model call's span says of the model alone: the same for every call of one model. @internal */
export interface ChatModelDescription {
  /** The span's name, `chat {model}`. */
  spanName: string;
  model: string;
  /** The attributes each call's span starts with: operation, model, provider and request settings. */
  attributes: Readonly<Attributes>;
}

/**
 * A model's description from its class name, settings (`invocationParams`: OpenAI's and
 * Anthropic's snake_case names, Google's camelCase ones) and LangSmith parameters. @internal
 */
export function describeChatModel(className: string | undefined, params: Record<string, unknown>, metadata: Record<string, unknown> | undefined): ChatModelDescription {
  const model = firstString(metadata?.["ls_model_name"], params["model"], params["model_name"], className) ?? "unknown";
  const attributes: Attributes = { "gen_ai.operation.name": "chat", "gen_ai.request.model": model };
  const provider = providerName(firstString(metadata?.["ls_provider"]));
  if (provider !== undefined) attributes["gen_ai.provider.name"] = provider;
  // Straight-line (on every model call of the callback path): no list of settings built per call.
  setNumber(attributes, "gen_ai.request.temperature", metadata?.["ls_temperature"] ?? params["temperature"], false);
  setNumber(attributes, "gen_ai.request.max_tokens", metadata?.["ls_max_tokens"] ?? params["max_tokens"] ?? params["max_completion_tokens"] ?? params["maxOutputTokens"], true);
  setNumber(attributes, "gen_ai.request.top_p", params["top_p"] ?? params["topP"], false);
  setNumber(attributes, "gen_ai.request.top_k", params["top_k"] ?? params["topK"], true);
  setNumber(attributes, "gen_ai.request.frequency_penalty", params["frequency_penalty"] ?? params["frequencyPenalty"], false);
  setNumber(attributes, "gen_ai.request.presence_penalty", params["presence_penalty"] ?? params["presencePenalty"], false);
  setNumber(attributes, "gen_ai.request.seed", params["seed"], true);
  // Conditionally required only when the request asks for more than one choice.
  const choices = params["n"] ?? params["candidateCount"];
  if (typeof choices === "number" && Number.isInteger(choices) && choices !== 1) attributes["gen_ai.request.choice.count"] = choices;
  const stop = metadata?.["ls_stop"] ?? params["stop"] ?? params["stop_sequences"] ?? params["stopSequences"];
  const sequences = typeof stop === "string" ? [stop] : Array.isArray(stop) ? stop.filter((item): item is string => typeof item === "string") : [];
  if (sequences.length > 0) attributes["gen_ai.request.stop_sequences"] = sequences;
  return { spanName: `chat ${model}`, model, attributes };
}

/** Sets `key` to `value` when it is a finite number (an integer, with `integer`); else nothing. */
function setNumber(attributes: Attributes, key: string, value: unknown, integer: boolean): void {
  if (typeof value === "number" && Number.isFinite(value) && (!integer || Number.isInteger(value))) attributes[key] = value;
}

/**
 * LangChain's `ls_provider` names that the GenAI conventions spell otherwise: where one of the
 * conventions' well-known `gen_ai.provider.name` values applies, it must be used.
 */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  azure: "azure.ai.openai",
  azure_openai: "azure.ai.openai",
  google_genai: "gcp.gemini",
  google_vertexai: "gcp.vertex_ai",
  vertexai: "gcp.vertex_ai",
  amazon_bedrock: "aws.bedrock",
  bedrock: "aws.bedrock",
  bedrock_converse: "aws.bedrock",
  mistral: "mistral_ai",
  mistralai: "mistral_ai",
  xai: "x_ai",
  watsonx: "ibm.watsonx.ai",
};

/** A model's `gen_ai.provider.name`, from LangChain's `ls_provider`. @internal */
export function providerName(lsProvider: string | undefined): string | undefined {
  return lsProvider !== undefined && Object.hasOwn(PROVIDER_NAMES, lsProvider) ? PROVIDER_NAMES[lsProvider] : lsProvider;
}

/** A model call's attributes at its start, before its messages: a new object each call. @internal */
export function chatRequestAttributes(model: ChatModelDescription): Attributes {
  return { ...model.attributes };
}

/**
 * Adds to a model call's `attributes` that it streamed and when its first chunk arrived
 * (`firstChunkAt`, epoch ms): `gen_ai.request.stream` and `gen_ai.response.time_to_first_chunk`
 * (in seconds, from `startedAt`), as the conventions record a streamed call. Nothing without a
 * first chunk. @internal
 */
export function addFirstChunk(attributes: Attributes, startedAt: number | undefined, firstChunkAt: number | undefined): void {
  if (firstChunkAt === undefined || startedAt === undefined) return;
  attributes["gen_ai.request.stream"] = true;
  attributes["gen_ai.response.time_to_first_chunk"] = Math.max(0, firstChunkAt - startedAt) / 1000;
}

/**
 * Ends a model call's span with what its reply says (finish reasons, response model and id, usage,
 * the reply when asked); returns the call's usage, for the runs above it. @internal
 */
export function endChatSpan(span: Span, options: TelemetryOptions, messages: readonly BaseMessage[], reasons: readonly string[], usage: unknown): UsageMetadata | undefined {
  const attributes: Attributes = {};
  const used = chatEndAttributes(attributes, options, messages, reasons, usage);
  span.setAttributes(attributes);
  span.end();
  return used;
}

/**
 * Adds to `attributes` what a model call's reply says (finish reasons, response model and id,
 * usage, the reply when asked); returns the call's usage: the reply's (see `replyUsage`), else
 * `usage`, the legacy `llmOutput.tokenUsage` callbacks see. @internal
 */
export function chatEndAttributes(attributes: Attributes, options: TelemetryOptions, messages: readonly BaseMessage[], reasons: readonly string[], usage: unknown): UsageMetadata | undefined {
  if (reasons.length > 0) attributes["gen_ai.response.finish_reasons"] = reasons as string[];
  const first = messages[0] as (BaseMessage & { usage_metadata?: UsageMetadata }) | undefined;
  const responseMetadata = first?.response_metadata as Record<string, unknown> | undefined;
  const responseModel = firstString(responseMetadata?.["model_name"], responseMetadata?.["model"]);
  if (responseModel) attributes["gen_ai.response.model"] = responseModel;
  if (typeof first?.id === "string") attributes["gen_ai.response.id"] = first.id;
  const used = replyUsage(first, usage);
  if (used) {
    // Cached reads, cache writes and reasoning are counted inside the input and output tokens, in
    // LangChain's usage as in the conventions. Straight-line: nothing built per call to loop over.
    setTokens(attributes, "gen_ai.usage.input_tokens", used.input_tokens);
    setTokens(attributes, "gen_ai.usage.output_tokens", used.output_tokens);
    const { input_token_details: input, output_token_details: output } = used;
    if (input) {
      setTokens(attributes, "gen_ai.usage.cache_read.input_tokens", input.cache_read);
      setTokens(attributes, "gen_ai.usage.cache_creation.input_tokens", input.cache_creation);
    }
    if (output) setTokens(attributes, "gen_ai.usage.reasoning.output_tokens", output.reasoning);
  }
  if (options.recordOutputs) attributes["gen_ai.output.messages"] = outputMessagesJson(messages, reasons[0]);
  return used;
}

/** The finish reason of a reply, from the message's metadata. @internal */
export function messageFinishReason(message: BaseMessage, generationInfo?: Record<string, unknown>): string | undefined {
  const metadata = message.response_metadata as Record<string, unknown> | undefined;
  return firstString(generationInfo?.["finish_reason"], metadata?.["finish_reason"], metadata?.["stop_reason"]);
}

/**
 * A tool call's `execute_tool {name}` span. `input` is the call's arguments (a string as it is,
 * anything else as JSON, only when inputs are recorded); `description`, the tool's. @internal
 */
export function toolSpan(options: TelemetryOptions, name: string, input: unknown, callId: string | undefined, description?: string): SpanStart {
  const attributes: Attributes = { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": "function" };
  if (callId) attributes["gen_ai.tool.call.id"] = callId;
  if (description) attributes["gen_ai.tool.description"] = description;
  if (options.recordInputs) attributes["gen_ai.tool.call.arguments"] = attributeText(input);
  return { name: `execute_tool ${name}`, attributes };
}

/** Ends a tool call's span with (when asked) its result; with `end` false, only sets the result. @internal */
export function endToolSpan(span: Span, options: TelemetryOptions, output: unknown, end = true): void {
  if (options.recordOutputs) {
    const content = (output as { content?: unknown } | null)?.content;
    span.setAttribute("gen_ai.tool.call.result", attributeText(typeof output === "object" && output !== null && content !== undefined ? content : output));
  }
  if (end) span.end();
}

/**
 * Ends a span with an error status; a cancellation (an `AbortError`) is marked as one. With `end`
 * false, only sets the status. @internal
 */
export function failSpan(span: Span, error: unknown, end = true): void {
  const failure = error as Error | undefined;
  const type = failure?.name || "_OTHER";
  span.setAttribute("error.type", type);
  if (type === "AbortError") span.setAttribute("agentrx.cancelled", true);
  span.recordException(failure as Error);
  span.setStatus({ code: STATUS_ERROR, message: describeThrown(error) });
  if (end) span.end();
}

/** The first non-empty string among `values`. @internal */
export function firstString(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === "string" && value !== "") return value;
  return undefined;
}
