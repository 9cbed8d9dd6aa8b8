// `withStructuredOutput` of the chat models of @agentrx/core (not exported from the package).
// `@langchain/core`'s default implementation does not force the tool call, refuses `strict`,
// ignores `method: "jsonSchema"`, and its parser rejects the `AIMessage` that `invoke` returns
// ("Input is not an AIMessageChunk."), so the models build their own pipeline here.
import type { BaseLanguageModelInput, StructuredOutputMethodOptions } from "@langchain/core/language_models/base";
import type { BaseMessage } from "@langchain/core/messages";
import { OutputParserException } from "@langchain/core/output_parsers";
import { RunnableLambda, RunnablePassthrough, RunnableSequence, type Runnable } from "@langchain/core/runnables";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { interopParseAsync, isInteropZodSchema, type InteropZodType } from "@langchain/core/utils/types";
import { checkOptionKeys } from "../agent/check-option-keys";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { strictToolCalls } from "../messages/strict-tool-calls";
import { showValue } from "../agent/show-value";

/** A schema `withStructuredOutput` takes: a zod schema, a JSON Schema, or an OpenAI function definition. */
export type StructuredOutputSchema<T> = InteropZodType<T> | Record<string, any>;

/** How the structured output is asked for. */
export type StructuredOutputMethod = "functionCalling" | "jsonSchema" | "jsonMode";

/** What a model supports and how it binds call options. */
export interface StructuredOutputTarget {
  /** The model's class name, for error messages. */
  owner: string;
  /** The methods it supports; the first is the default. */
  methods: readonly StructuredOutputMethod[];
  /** Binds call options (`tools`, `tool_choice`, `response_format`, ...) to the model. */
  bind(kwargs: Record<string, unknown>): Runnable<BaseLanguageModelInput, BaseMessage>;
}

const CONFIG_KEYS = ["name", "method", "includeRaw", "strict"];

/**
 * Builds `withStructuredOutput` for `target`: `"functionCalling"` binds the schema as the only
 * tool and forces the model to call it; `"jsonSchema"` sends it as `response_format` of type
 * `json_schema`; `"jsonMode"` asks for a JSON object. The output is validated against a zod
 * schema; a reply without the call, with arguments or text that are not JSON, a refusal, or a
 * value the schema rejects throws an `OutputParserException` that says which (with
 * `includeRaw`, `parsed` is then `null`). Bad options throw an `InvalidArgumentError`.
 */
export function structuredOutput(
  target: StructuredOutputTarget,
  schema: unknown,
  config: StructuredOutputMethodOptions<boolean> | undefined,
): Runnable<BaseLanguageModelInput, any> {
  const { owner, methods } = target;
  const fail = (argument: string, value: unknown, message: string): never => {
    throw new InvalidArgumentError({ argument, value, message: `${owner}.withStructuredOutput: ${message}` });
  };
  if (config !== undefined && (typeof config !== "object" || config === null)) fail("config", config, "the options must be an object.");
  checkOptionKeys(`${owner}.withStructuredOutput`, config ?? {}, CONFIG_KEYS);
  const method = (config?.method ?? methods[0]) as StructuredOutputMethod;
  if (!methods.includes(method)) {
    fail("method", config?.method, `\`method\` must be ${methods.map((name) => `"${name}"`).join(" or ")}, got ${JSON.stringify(config?.method)}.`);
  }
  const strict = config?.strict;
  if (strict !== undefined && typeof strict !== "boolean") fail("strict", strict, `\`strict\` must be true or false, got ${JSON.stringify(strict)}.`);
  if (strict !== undefined && method === "jsonMode") fail("strict", strict, '`strict` applies to "functionCalling" and "jsonSchema", not to "jsonMode".');
  const includeRaw = config?.includeRaw ?? false;
  if (typeof includeRaw !== "boolean") fail("includeRaw", includeRaw, `\`includeRaw\` must be true or false, got ${JSON.stringify(includeRaw)}.`);
  const isZod = isInteropZodSchema(schema);
  if (!isZod && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    fail("schema", schema, `the schema must be a zod schema or a JSON Schema object, got ${showValue(schema)}.`);
  }
  const definition = schema as Record<string, any>;
  // An OpenAI function definition ({ name, description, parameters }) brings its own name.
  const isFunction = !isZod && typeof definition.name === "string" && typeof definition.parameters === "object";
  const jsonSchema: Record<string, any> = isZod ? toJsonSchema(schema as InteropZodType) : isFunction ? definition.parameters : definition;
  // An explicit name (the option's, a function definition's) must be valid as it is; a JSON
  // Schema's title ("City info") is made into one.
  const name = config?.name ?? (isFunction ? definition.name : typeof jsonSchema.title === "string" ? nameFromTitle(jsonSchema.title) : "extract");
  if (typeof name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
    fail("name", name, `\`name\` must be 1 to 64 letters, digits, "_" or "-", got ${JSON.stringify(name)}.`);
  }
  const description: string | undefined = (isFunction ? definition.description : undefined) ?? jsonSchema.description;
  const format = (kind: string) => ({ kwargs: { method: kind }, schema: { title: name, ...(description ? { description } : {}), ...jsonSchema } });
  const validate = async (value: unknown, text: string): Promise<unknown> => {
    if (!isZod) return value;
    try {
      return await interopParseAsync(schema as InteropZodType, value);
    } catch (error) {
      throw new OutputParserException(`${owner}: the model's output does not match the schema "${name}": ${(error as Error).message}`, text);
    }
  };
  /** Throws an `OutputParserException` quoting the refusal when the model refused (OpenAI's `refusal`, kept in `additional_kwargs`). */
  const throwIfRefused = (message: BaseMessage): void => {
    const refusal = message.additional_kwargs?.refusal;
    if (typeof refusal === "string" && refusal) throw new OutputParserException(`${owner}: the model refused to answer: ${refusal}`, refusal);
  };
  let llm: Runnable<BaseLanguageModelInput, BaseMessage>;
  let parse: (message: BaseMessage) => Promise<unknown>;
  if (method === "functionCalling") {
    llm = target.bind({
      tools: [{ type: "function", function: { name, ...(description ? { description } : {}), parameters: jsonSchema } }],
      tool_choice: name,
      ...(strict !== undefined ? { strict } : {}),
      ls_structured_output_format: format("function_calling"),
    });
    parse = async (message) => {
      // Parsed strictly: a streamed message's calls are rebuilt from its chunks, so arguments cut
      // off mid-JSON are invalid rather than "repaired" (see `strictToolCalls`).
      const { toolCalls, invalidToolCalls } = strictToolCalls(message);
      const call = toolCalls.find((candidate) => candidate.name === name);
      if (call) return validate(call.args, JSON.stringify(call.args));
      // A refusal comes without the call: said as one, not as a reply that forgot the tool.
      throwIfRefused(message);
      const invalid = invalidToolCalls.find((candidate) => candidate.name === name);
      if (invalid) {
        throw new OutputParserException(
          `${owner}: the model called "${name}" with arguments that are not valid JSON${invalid.error ? ` (${invalid.error})` : ""}: ${invalid.args ?? ""}`,
          invalid.args ?? "",
        );
      }
      throw new OutputParserException(`${owner}: the model answered without calling "${name}": ${preview(message.text)}`, message.text);
    };
  } else {
    const responseFormat =
      method === "jsonSchema"
        ? { type: "json_schema", json_schema: { name, ...(description ? { description } : {}), schema: jsonSchema, ...(strict !== undefined ? { strict } : {}) } }
        : { type: "json_object" };
    llm = target.bind({ response_format: responseFormat, ls_structured_output_format: format(method === "jsonSchema" ? "json_schema" : "json_mode") });
    parse = async (message) => {
      throwIfRefused(message);
      const text = message.text;
      let value: unknown;
      try {
        value = JSON.parse(stripFence(text));
      } catch (error) {
        throw new OutputParserException(`${owner}: the model's answer is not JSON (${(error as Error).message}): ${preview(text)}`, text);
      }
      return validate(value, text);
    };
  }
  const parser = RunnableLambda.from(parse).withConfig({ runName: "StructuredOutputParser" });
  if (!includeRaw) return llm.pipe(parser).withConfig({ runName: "StructuredOutput" });
  const withParsed = RunnablePassthrough.assign({ parsed: (input: { raw: BaseMessage }, runConfig) => parser.invoke(input.raw, runConfig) });
  const withNull = RunnablePassthrough.assign({ parsed: () => null }) as unknown as typeof withParsed;
  return RunnableSequence.from([{ raw: llm }, withParsed.withFallbacks({ fallbacks: [withNull] })]).withConfig({ runName: "StructuredOutputRunnable" });
}

/**
 * A tool or schema name made from a JSON Schema's `title`: every character other than a letter,
 * a digit, `_` or `-` becomes `_`, cut to 64 characters (`"extract"` for an empty title).
 */
function nameFromTitle(title: string): string {
  return title.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "extract";
}

/** The JSON inside a Markdown code fence, or the text itself. */
function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n?([\s\S]*?)\n?```\s*$/i.exec(text);
  return fenced ? (fenced[1] ?? "") : text;
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > 200 ? `${flat.slice(0, 200)}…` : flat);
}
