// Request-body helpers of OpenAIChatModel (not exported from the package).
import type { ToolChoice } from "@langchain/core/language_models/chat_models";
import type OpenAI from "openai";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { showValue } from "../agent/show-value";

/**
 * OpenAI's reasoning models (o1, o3, o4-mini, gpt-5 but not gpt-5-chat) take `max_completion_tokens`
 * (they reject `max_tokens`) and `developer` rather than `system` messages.
 */
export function isReasoningModel(model: string): boolean {
  return /^o\d/.test(model) || (/^gpt-[5-9]/.test(model) && !/^gpt-\d+(\.\d+)?-chat/.test(model));
}

/** Call options often given in camelCase, by their name: LangChain's (and OpenAI's) snake_case name. */
const SNAKE_CASE_CALL_OPTIONS: Readonly<Record<string, string>> = {
  toolChoice: "tool_choice",
  parallelToolCalls: "parallel_tool_calls",
  responseFormat: "response_format",
};

/**
 * Checks the call options (from `bindTools`, `withConfig` or a call): a camelCase `toolChoice`,
 * `parallelToolCalls` or `responseFormat` would be ignored, a `tool_choice` that is neither a
 * string nor a tool-choice object would be sent as is, and a `stop` that is not an array of strings
 * (a string would be spread into one stop sequence per character), and a `parallel_tool_calls`
 * or `strict` that is not a boolean, a `seed` that is not an integer or a `response_format`
 * without a `type` (each would be sent as is); each throws an `InvalidArgumentError`, as the
 * constructor's options do.
 */
export function checkCallOptions(options: object): void {
  // Three `in` checks on every call (invocationParams runs twice a call): no entries array made.
  if ("toolChoice" in options || "parallelToolCalls" in options || "responseFormat" in options) refuseCamelCase(options);
  const stop = (options as { stop?: unknown }).stop;
  if (stop != null && !(Array.isArray(stop) && stop.every((sequence) => typeof sequence === "string"))) {
    throw new InvalidArgumentError({
      argument: "stop",
      value: stop,
      message: `OpenAIChatModel: the \`stop\` call option must be an array of strings, such as ["\\nObservation:"]; got ${showValue(stop)}.`,
    });
  }
  const { parallel_tool_calls: parallel, strict, seed, response_format: format } = options as Record<string, unknown>;
  // A string "false" would be sent as is (a 400 from OpenAI, "true" to a lenient server), a seed of 1.5 too.
  if (parallel !== undefined && typeof parallel !== "boolean") badCallOption("parallel_tool_calls", parallel, "a boolean");
  if (strict !== undefined && typeof strict !== "boolean") badCallOption("strict", strict, "a boolean");
  if (seed !== undefined && !Number.isSafeInteger(seed)) badCallOption("seed", seed, "an integer");
  if (format != null && (typeof format !== "object" || Array.isArray(format) || typeof (format as { type?: unknown }).type !== "string")) {
    badCallOption("response_format", format, 'an object with a `type` ({ type: "json_object" } or { type: "json_schema", json_schema })');
  }
  const choice = (options as { tool_choice?: unknown }).tool_choice;
  if (choice === undefined) return;
  checkToolChoiceShape(choice);
}

function badCallOption(name: string, value: unknown, wanted: string): never {
  throw new InvalidArgumentError({ argument: name, value, message: `OpenAIChatModel: the \`${name}\` call option must be ${wanted}; got ${showValue(value)}.` });
}

/** Throws for the camelCase call option `options` has (see {@link checkCallOptions}). */
function refuseCamelCase(options: object): void {
  for (const [camel, snake] of Object.entries(SNAKE_CASE_CALL_OPTIONS)) {
    if (camel in options && (options as Record<string, unknown>)[camel] !== undefined) {
      throw new InvalidArgumentError({
        argument: camel,
        value: (options as Record<string, unknown>)[camel],
        message:
          `OpenAIChatModel: \`${camel}\` is not a call option; it is spelt \`${snake}\`, as in ` +
          `\`bindTools(tools, { ${snake}: ... })\`.`,
      });
    }
  }
}

/** Throws unless `choice` is a non-empty string or a tool-choice object (see {@link checkCallOptions}). */
function checkToolChoiceShape(choice: unknown): void {
  const valid =
    (typeof choice === "string" && choice.trim() !== "") ||
    (typeof choice === "object" &&
      choice !== null &&
      !Array.isArray(choice) &&
      typeof (choice as { type?: unknown }).type === "string" &&
      ((choice as { type: string }).type !== "function" || typeof (choice as { function?: { name?: unknown } }).function?.name === "string"));
  if (valid) return;
  throw new InvalidArgumentError({
    argument: "tool_choice",
    value: choice,
    message:
      `OpenAIChatModel: \`tool_choice\` must be "auto", "none", "required" (or "any"), a bound tool's name, or an ` +
      `OpenAI tool choice such as { type: "function", function: { name: "weather" } }; got ${showValue(choice)}.`,
  });
}

/**
 * A `tool_choice` that names a tool must name a bound one (else OpenAI answers 400; with no tools
 * at all it would be left out of the request, and the model would answer without calling it).
 */
export function checkToolChoice(choice: ToolChoice, tools: OpenAI.Chat.ChatCompletionTool[]): void {
  const name =
    typeof choice === "string"
      ? ["auto", "none", "required", "any"].includes(choice) ? undefined : choice
      : (choice as { function?: { name?: unknown } }).function?.name;
  const names = tools.flatMap((tool) => (tool.type === "function" ? [tool.function.name] : []));
  if (typeof name !== "string" || names.includes(name)) return;
  const bound = names.length ? `the bound tools are ${names.map((tool) => `"${tool}"`).join(", ")}` : "no tools are bound";
  throw new InvalidArgumentError({
    argument: "tool_choice",
    value: choice,
    message:
      `OpenAIChatModel: \`tool_choice\` names the tool "${name}", which is not bound (${bound}). ` +
      `${names.length ? "Name one of them" : "Bind it with `bindTools`"}, or pass "auto", "none" or "required".`,
  });
}

export function toToolChoice(choice: ToolChoice): OpenAI.Chat.ChatCompletionToolChoiceOption {
  if (choice === "any") return "required";
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (typeof choice === "string") return { type: "function", function: { name: choice } };
  return choice as OpenAI.Chat.ChatCompletionToolChoiceOption;
}
