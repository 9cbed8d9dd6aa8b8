import type { ObservedModelCall } from "@agentrx/core";
import type { BaseMessage, UsageMetadata } from "@langchain/core/messages";

/**
 * What a model runnable says of itself, read through its bindings (`model.bindTools(tools)`): its
 * class name, the settings a call sends (`invocationParams`) and its LangSmith parameters
 * (`getLsParams`: `ls_model_name`, `ls_provider`, ...), as `@langchain/core` reports them to
 * callbacks at a call's start.
 *
 * @internal
 */
export interface ModelParams {
  className: string | undefined;
  params: Record<string, unknown>;
  metadata: Record<string, unknown> | undefined;
}

/** By model runnable: a turn's model (a binding) is the same object on every call. */
const read = new WeakMap<object, ModelParams>();

/** {@link ModelParams} of `model`, read once per model object. @internal */
export function modelParams(model: unknown): ModelParams {
  if (typeof model !== "object" || model === null) return readModelParams(model);
  let params = read.get(model);
  if (params === undefined) read.set(model, (params = readModelParams(model)));
  return params;
}

function readModelParams(model: unknown): ModelParams {
  let target = model as Record<string, unknown> | undefined;
  let kwargs: Record<string, unknown> = {};
  for (let depth = 0; depth < 4 && target && typeof target === "object" && "bound" in target; depth++) {
    kwargs = { ...(target["kwargs"] as Record<string, unknown> | undefined), ...kwargs };
    target = target["bound"] as Record<string, unknown> | undefined;
  }
  if (target === undefined || target === null || typeof target !== "object") return { className: undefined, params: {}, metadata: undefined };
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

/** The model name a provider reported in its reply (`model_name` for OpenAI, `model` for Anthropic). @internal */
export function replyModelName(message: BaseMessage | undefined): string | undefined {
  const metadata = (message as { response_metadata?: Record<string, unknown> } | undefined)?.response_metadata;
  return nameOf(metadata?.["model_name"] ?? metadata?.["model"]);
}

/** A model's LangSmith name (`ls_model_name`), which `@langchain/core` gives callbacks at a call's start. @internal */
export function lsModelName(model: unknown): string | undefined {
  return nameOf(modelParams(model).metadata?.["ls_model_name"]);
}

/**
 * The usage of a model call an agent reported to its observer, and its model's name as the
 * callbacks would give it: the reply's, else the model's `ls_model_name`. Undefined usage when the
 * call failed or its reply reports no usage (see {@link replyUsage}).
 *
 * @internal
 */
export function observedUsage(call: ObservedModelCall): { usage: UsageMetadata; model: string | undefined } | undefined {
  const usage = replyUsage(call.output);
  if (usage === undefined) return undefined;
  return { usage: wholeUsage(usage), model: replyModelName(call.output) ?? lsModelName(call.model) };
}

/** LangChain's legacy usage report (`llmOutput.tokenUsage`). */
type TokenUsage = { promptTokens?: number; completionTokens?: number; totalTokens?: number };

/**
 * The usage a model's reply reports: its `usage_metadata`, else a legacy `tokenUsage` in its
 * `response_metadata` (`@langchain/core` copies a model's `llmOutput` there, so a model that
 * reports its usage only as `llmOutput.tokenUsage` is priced and counted too), else `fallback`
 * (the `llmOutput.tokenUsage` that callbacks see).
 *
 * @internal
 */
export function replyUsage(reply: unknown, fallback?: unknown): UsageMetadata | undefined {
  const message = reply as { usage_metadata?: UsageMetadata; response_metadata?: Record<string, unknown> } | undefined;
  if (message?.usage_metadata !== undefined) return message.usage_metadata;
  return fromTokenUsage(message?.response_metadata?.["tokenUsage"]) ?? fromTokenUsage(fallback);
}

/** A token count, when it is one. */
function count(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

/**
 * `usage` with every count a number: a partial usage (an integration that reports input and
 * output tokens without their total, or one of them only) counts what it lacks as 0, and a total
 * it lacks, or one below input plus output (`@langchain/core` sums a streamed reply's missing
 * totals to 0), as input plus output; sums of it would be `NaN` or short otherwise. The same
 * object when it is whole. What the run counts and its `usage` events carry; telemetry reports
 * only the counts the reply gave.
 *
 * @internal
 */
export function wholeUsage(usage: UsageMetadata): UsageMetadata {
  const { input_tokens: input, output_tokens: output, total_tokens: total } = usage;
  if (count(input) && count(output) && count(total) && total >= input + output) return usage;
  const inputTokens = count(input) ? input : 0;
  const outputTokens = count(output) ? output : 0;
  const sum = inputTokens + outputTokens;
  return { ...usage, input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: count(total) && total >= sum ? total : sum };
}

function fromTokenUsage(value: unknown): UsageMetadata | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { promptTokens, completionTokens, totalTokens } = value as TokenUsage;
  if (typeof promptTokens !== "number" && typeof completionTokens !== "number") return undefined;
  const input = promptTokens ?? 0;
  const output = completionTokens ?? 0;
  return { input_tokens: input, output_tokens: output, total_tokens: totalTokens ?? input + output };
}

function nameOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
