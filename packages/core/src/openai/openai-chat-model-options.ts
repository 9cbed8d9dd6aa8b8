import type { BaseChatModelParams } from "@langchain/core/language_models/chat_models";
import type OpenAI from "openai";
import { checkOptionKeys } from "../agent/check-option-keys";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { BASE_CHAT_MODEL_PARAMS } from "../internal/chat-model-param-keys";
import { DEFAULT_MAX_RETRY_DELAY_MS, MAX_TIMER_DELAY_MS } from "./retry-delay";
import { showValue } from "../agent/show-value";

/**
 * Options of `OpenAIChatModel`: its own and `@langchain/core`'s `BaseChatModelParams`
 * (`callbacks`, `tags`, `metadata`, `verbose`, `cache`, `maxConcurrency`, `onFailedAttempt`, ...).
 * Any other key (a misspelt `maxRetry`) throws an `InvalidArgumentError` naming it.
 */
export interface OpenAIChatModelOptions extends BaseChatModelParams {
  /** The model name, e.g. `"gpt-4o-mini"`, or whatever name your compatible server serves. */
  model: string;
  /**
   * The API key. @default `process.env.OPENAI_API_KEY`; when neither is set but a `baseURL` is
   * (a local server such as Ollama or llama.cpp), a placeholder key is sent.
   */
  apiKey?: string;
  /** The API's base URL, e.g. `http://localhost:11434/v1`. @default `process.env.OPENAI_BASE_URL`, else OpenAI's */
  baseURL?: string;
  /** Retries on 408/409/429/5xx, connection errors and timeouts, with backoff that honours `Retry-After`. @default 2 */
  maxRetries?: number;
  /**
   * The longest wait between two attempts, in milliseconds. A `Retry-After` (or `retry-after-ms`)
   * header asking for longer, or for an absurd value, waits this long; one that is zero, negative
   * or a date already past is ignored for the default backoff (0.5 s doubling up to 8 s). Aborting
   * the call's signal ends the wait at once. @default 60000 (one minute)
   */
  maxRetryDelayMs?: number;
  /**
   * Milliseconds before one attempt times out: the whole response (headers and body) when it is
   * not streamed; the headers, and then the wait between two chunks (a stalled stream), when it
   * is. @default the SDK's (10 minutes)
   */
  timeout?: number;
  /** Sampling temperature, 0 to 2. */
  temperature?: number;
  /** Nucleus sampling, 0 to 1. */
  topP?: number;
  /**
   * Maximum tokens to generate: sent as `max_tokens`, or as `max_completion_tokens` to OpenAI's
   * reasoning models (`o1`, `o3`, `o4-mini`, `gpt-5`...), which reject `max_tokens`.
   */
  maxTokens?: number;
  /** Stop sequences, merged with the call's. */
  stop?: string[];
  /** Seed for reproducible sampling, where the server supports it. */
  seed?: number;
  /** Presence penalty, -2 to 2. */
  presencePenalty?: number;
  /** Frequency penalty, -2 to 2. */
  frequencyPenalty?: number;
  /**
   * How hard a reasoning model thinks before it answers, sent as `reasoning_effort`
   * (`"minimal"`, `"low"`, `"medium"`, `"high"`; some models also take `"none"` or `"xhigh"`).
   * Chat models that do not reason reject it. @default the model's
   */
  reasoningEffort?: "none" | "minimal" | "low" | "medium" | "high" | "xhigh";
  /**
   * Whether the model may call several tools in one turn, sent as `parallel_tool_calls` with
   * every call that has tools (a call's own `parallel_tool_calls`, from `bindTools`, wins).
   * @default the server's (true for OpenAI)
   */
  parallelToolCalls?: boolean;
  /**
   * Stream every call: `invoke` uses the streaming endpoint, reports tokens to callbacks, and
   * assembles the deltas into one message. @default false
   */
  streaming?: boolean;
  /**
   * Ask for usage in streamed responses (`stream_options.include_usage`). Turn off for a server
   * that rejects `stream_options`. @default true
   */
  streamUsage?: boolean;
  /**
   * Extra body parameters sent with every request (for server-specific options such as `top_k`).
   * The keys the model writes itself are refused: `model`, `messages`, `stream` (use `streaming`),
   * `tools`, `tool_choice` and `parallel_tool_calls` (use `bindTools` and `parallelToolCalls`), and
   * so is a parameter that an option also sets (`temperature` with `temperature`, `max_tokens` with
   * `maxTokens`...). `stream_options` is merged into streamed requests (with `include_usage`
   * unless `streamUsage: false`) and left out of the others.
   */
  modelKwargs?: Record<string, unknown>;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string>;
  /** The OpenAI organization id. */
  organization?: string;
  /** The OpenAI project id. */
  project?: string;
  /**
   * Lets the `openai` SDK build its client in a browser page, which it otherwise refuses (web
   * workers and edge functions need no such flag). Any key the page holds can be read by whoever
   * opens it: point `baseURL` at a route of your own server that adds the real key, and give a
   * placeholder `apiKey`. See docs/browsers.md. Ignored with `client`. @default false
   */
  dangerouslyAllowBrowser?: boolean;
  /**
   * A ready-made `openai` client to use instead of building one (for a custom `fetch`, proxy or
   * Azure). `apiKey`, `baseURL`, `maxRetries`, `timeout`, `defaultHeaders`, `organization` and
   * `project` are then ignored: the client's own settings apply (and error messages name them).
   * Retries are still the model's own (the client is asked for one attempt at a time), so
   * `maxRetryDelayMs` applies.
   */
  client?: OpenAI;
}

/** Every option of `OpenAIChatModel`, its own and `@langchain/core`'s (see docs/models.md). */
const OPTION_KEYS = Object.keys({
  model: true,
  apiKey: true,
  baseURL: true,
  maxRetryDelayMs: true,
  timeout: true,
  temperature: true,
  topP: true,
  maxTokens: true,
  stop: true,
  seed: true,
  presencePenalty: true,
  frequencyPenalty: true,
  reasoningEffort: true,
  parallelToolCalls: true,
  streaming: true,
  streamUsage: true,
  modelKwargs: true,
  defaultHeaders: true,
  organization: true,
  project: true,
  dangerouslyAllowBrowser: true,
  client: true,
  ...BASE_CHAT_MODEL_PARAMS, // `maxRetries` among them
} satisfies Record<keyof OpenAIChatModelOptions, true>);

/** The placeholder key sent to a compatible server when no key is configured. */
export const NO_KEY = "no-key";

/** The options after defaults and validation. */
export interface ResolvedOptions {
  apiKey: string;
  baseURL: string;
  maxRetries: number;
  maxRetryDelayMs: number;
  timeout: number | undefined;
}

const OPENAI_BASE_URL = "https://api.openai.com/v1";

function env(name: string): string | undefined {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
  return value ? value : undefined;
}

/** `ChatOpenAI`'s names of options this model takes under another name (what a user coming from `@langchain/openai` writes). */
const CHAT_OPENAI_HINTS: Readonly<Record<string, string>> = {
  modelName: "the model's name goes in `model` (ChatOpenAI's `modelName`)",
  openAIApiKey: "the key goes in `apiKey` (ChatOpenAI's `openAIApiKey`; OPENAI_API_KEY is read when it is left out)",
  configuration: "the server goes in `baseURL` (ChatOpenAI's `configuration.baseURL`; OPENAI_BASE_URL is read when it is left out), and a client of your own in `client`",
};

/** Reads the environment, applies defaults and validates every option (an unknown one too); throws `InvalidArgumentError`. */
export function resolveOptions(options: OpenAIChatModelOptions): ResolvedOptions {
  const fail = (argument: string, value: unknown, expected: string): never => {
    throw new InvalidArgumentError({
      argument,
      value,
      message: `OpenAIChatModel: \`${argument}\` must be ${expected}, got ${showValue(value)}.`,
    });
  };
  if (typeof options !== "object" || options === null) fail("options", options, "an object such as { model: \"gpt-4o-mini\" }");
  checkOptionKeys("OpenAIChatModel", options, OPTION_KEYS, { hints: CHAT_OPENAI_HINTS });
  const { model, maxRetries = 2, maxRetryDelayMs = DEFAULT_MAX_RETRY_DELAY_MS, timeout } = options;
  if (typeof model !== "string" || !model.trim()) fail("model", model, 'a model name such as "gpt-4o-mini"');
  if (!Number.isInteger(maxRetries) || maxRetries < 0) fail("maxRetries", maxRetries, "an integer >= 0");
  if (!(typeof maxRetryDelayMs === "number" && maxRetryDelayMs >= 0 && maxRetryDelayMs <= MAX_TIMER_DELAY_MS)) {
    fail("maxRetryDelayMs", maxRetryDelayMs, `a number of milliseconds from 0 to ${MAX_TIMER_DELAY_MS}`);
  }
  if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0 && timeout <= MAX_TIMER_DELAY_MS)) {
    fail("timeout", timeout, `a number of milliseconds from 1 to ${MAX_TIMER_DELAY_MS}`);
  }
  const ranges: [keyof OpenAIChatModelOptions, number, number][] = [
    ["temperature", 0, 2],
    ["topP", 0, 1],
    ["presencePenalty", -2, 2],
    ["frequencyPenalty", -2, 2],
  ];
  for (const [name, min, max] of ranges) {
    const value = options[name];
    if (value !== undefined && !(typeof value === "number" && value >= min && value <= max)) {
      fail(name, value, `a number from ${min} to ${max}`);
    }
  }
  if (options.maxTokens !== undefined && !(Number.isInteger(options.maxTokens) && options.maxTokens > 0)) {
    fail("maxTokens", options.maxTokens, "a positive integer");
  }
  if (options.seed !== undefined && !Number.isInteger(options.seed)) fail("seed", options.seed, "an integer");
  const efforts = ["none", "minimal", "low", "medium", "high", "xhigh"];
  if (options.reasoningEffort !== undefined && !efforts.includes(options.reasoningEffort)) {
    fail("reasoningEffort", options.reasoningEffort, `one of ${efforts.map((effort) => `"${effort}"`).join(", ")}`);
  }
  if (options.parallelToolCalls !== undefined && typeof options.parallelToolCalls !== "boolean") {
    fail("parallelToolCalls", options.parallelToolCalls, "true or false");
  }
  if (options.stop !== undefined && !(Array.isArray(options.stop) && options.stop.every((s) => typeof s === "string"))) {
    fail("stop", options.stop, "an array of strings");
  }
  for (const name of ["streaming", "streamUsage", "dangerouslyAllowBrowser"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "boolean") fail(name, options[name], "true or false");
  }
  for (const name of ["organization", "project"] as const) {
    if (options[name] !== undefined && !(typeof options[name] === "string" && options[name] !== "")) fail(name, options[name], "a non-empty string");
  }
  checkHeaders(options.defaultHeaders, fail);
  const client = options.client as { chat?: { completions?: { create?: unknown } } } | undefined;
  if (client !== undefined && typeof client?.chat?.completions?.create !== "function") {
    const given = typeof client === "object" && client !== null ? "an object without chat.completions.create" : client;
    fail("client", given, "an OpenAI client (new OpenAI({ ... }) from the `openai` package)");
  }
  checkModelKwargs(options, fail);
  const explicitBaseURL = options.baseURL ?? env("OPENAI_BASE_URL");
  const baseURL = options.client?.baseURL ?? explicitBaseURL ?? OPENAI_BASE_URL;
  try {
    const url = new URL(baseURL);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http");
  } catch {
    fail("baseURL", baseURL, 'an http(s) URL such as "http://localhost:11434/v1" (set it or OPENAI_BASE_URL)');
  }
  let apiKey = options.apiKey ?? env("OPENAI_API_KEY");
  if (options.apiKey !== undefined && (typeof options.apiKey !== "string" || !options.apiKey)) {
    fail("apiKey", options.apiKey, "a non-empty string");
  }
  if (!apiKey && !options.client) {
    if (explicitBaseURL === undefined) {
      throw new InvalidArgumentError({
        argument: "apiKey",
        value: undefined,
        message:
          "OpenAIChatModel: no API key. Pass `apiKey`, or set OPENAI_API_KEY; for a local OpenAI-compatible " +
          "server (vLLM, llama.cpp, Ollama, LM Studio) pass `baseURL` (or set OPENAI_BASE_URL) instead.",
      });
    }
    apiKey = NO_KEY;
  }
  return { apiKey: apiKey ?? NO_KEY, baseURL, maxRetries, maxRetryDelayMs, timeout };
}

/** `defaultHeaders`: an object of header values (a value left `undefined` is not sent, as the client does). */
function checkHeaders(headers: unknown, fail: (argument: string, value: unknown, expected: string) => never): void {
  if (headers === undefined) return;
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) fail("defaultHeaders", headers, 'an object of header values such as { "X-Team": "search" }');
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (value !== undefined && typeof value !== "string") fail(`defaultHeaders.${name}`, value, "a string");
  }
}

/** The environment-variable fallbacks, for `OpenAIChatModel.fromEnv`. */
export function environment(): { apiKey?: string; baseURL?: string; model?: string } {
  const apiKey = env("OPENAI_API_KEY");
  const baseURL = env("OPENAI_BASE_URL");
  const model = env("OPENAI_MODEL");
  return { ...(apiKey ? { apiKey } : {}), ...(baseURL ? { baseURL } : {}), ...(model ? { model } : {}) };
}

/** The request-body keys the model writes itself, and what to use instead. */
const OWNED_BODY_KEYS: Readonly<Record<string, string>> = {
  model: "the `model` option",
  messages: "the messages passed to `invoke`",
  stream: "the `streaming` option, or `stream()`",
  tools: "`bindTools(tools)`",
  tool_choice: "`bindTools(tools, { tool_choice })`",
  parallel_tool_calls: "the `parallelToolCalls` option, or `bindTools(tools, { parallel_tool_calls })`",
};

/** Body parameters an option also sets: the option, by parameter. */
const OPTION_OF_BODY_KEY: Readonly<Record<string, keyof OpenAIChatModelOptions>> = {
  temperature: "temperature",
  top_p: "topP",
  max_tokens: "maxTokens",
  max_completion_tokens: "maxTokens",
  stop: "stop",
  seed: "seed",
  presence_penalty: "presencePenalty",
  frequency_penalty: "frequencyPenalty",
  reasoning_effort: "reasoningEffort",
};

/**
 * `modelKwargs` must be a plain object that leaves the model's own keys alone: one of them would
 * break every request (`stream: true` on a call that is not streamed) or be silently overwritten.
 */
function checkModelKwargs(options: OpenAIChatModelOptions, fail: (argument: string, value: unknown, expected: string) => never): void {
  const kwargs: unknown = options.modelKwargs;
  if (kwargs === undefined) return;
  if (typeof kwargs !== "object" || kwargs === null || Array.isArray(kwargs)) {
    fail("modelKwargs", kwargs, "an object of extra body parameters such as { top_k: 20 }");
  }
  for (const key of Object.keys(kwargs as object)) {
    const instead = Object.hasOwn(OWNED_BODY_KEYS, key) ? OWNED_BODY_KEYS[key] : undefined;
    if (instead !== undefined) {
      throw new InvalidArgumentError({
        argument: `modelKwargs.${key}`,
        value: (kwargs as Record<string, unknown>)[key],
        message: `OpenAIChatModel: \`modelKwargs.${key}\` cannot be set: the model writes \`${key}\` itself. Use ${instead} instead.`,
      });
    }
    const option = Object.hasOwn(OPTION_OF_BODY_KEY, key) ? OPTION_OF_BODY_KEY[key] : undefined;
    if (option !== undefined && options[option] !== undefined) {
      throw new InvalidArgumentError({
        argument: `modelKwargs.${key}`,
        value: (kwargs as Record<string, unknown>)[key],
        message: `OpenAIChatModel: \`modelKwargs.${key}\` and the \`${option}\` option set the same request parameter; set only one of them.`,
      });
    }
  }
  const streamOptions = (kwargs as Record<string, unknown>).stream_options;
  if (streamOptions !== undefined && (typeof streamOptions !== "object" || streamOptions === null || Array.isArray(streamOptions))) {
    fail("modelKwargs.stream_options", streamOptions, "an object such as { continuous_usage_stats: true }");
  }
}
