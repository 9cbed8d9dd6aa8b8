import { EXCEPTION_TOOL_NAME, InvalidArgumentError, InvalidToolArgumentsException, contentBlockKind, cutText, describeThrown, refusePromise, valueToText } from "@agentrx/core";
import type { AgentAction, AgentStep, Observation } from "@agentrx/core";
import type { MessageContentComplex } from "@langchain/core/messages";
import { OutputParserException } from "@langchain/core/output_parsers";
import { ToolInputParsingException } from "@langchain/core/tools";
import { Validator } from "@langchain/core/utils/json_schema";
import type { ResolvedOptions } from "./validate-options";

/**
 * Turns a tool result into an observation: a string as it is; message content (or a message whose
 * content is) with more than text in it (an image such as a chart or a screenshot, a file such as a
 * PDF, audio, video, a plain-text document) as that content, blocks and all; anything else as
 * JSON. @internal
 */
export function toObservation(result: unknown): Observation {
  if (typeof result === "string") return result;
  if (result === undefined) return "";
  const content = isMessage(result) ? result.content : result;
  if (typeof content === "string") return content;
  if (Array.isArray(content) && content.some(isMoreThanText)) return content as MessageContentComplex[];
  return safeJson(content);
}

/** A content block an agent passes on as a block: an image, a file, audio, video or a plain-text document. */
function isMoreThanText(block: unknown): boolean {
  const kind = contentBlockKind(block);
  return kind !== undefined && kind !== "text";
}

function isMessage(value: unknown): value is { content: unknown; _getType: () => string } {
  return typeof value === "object" && value !== null && "content" in value && typeof (value as { _getType?: unknown })._getType === "function";
}

/**
 * `value` as JSON; a value JSON cannot hold as it is (a cycle, a `BigInt` inside an object) as JSON
 * with each cycle written `"[Circular]"` and each `BigInt` as its digits, rather than
 * `[object Object]`; else its `String` (see `valueToText`, which never throws).
 */
function safeJson(value: unknown): string {
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    try {
      const json = JSON.stringify(value, cycleSafe());
      if (json !== undefined) return json;
    } catch {
      // a getter or a `toJSON` that throws
    }
  }
  return valueToText(value);
}

/** A `JSON.stringify` replacer that writes a reference to an object it is inside of as `"[Circular]"`, and a `BigInt` as its digits. */
function cycleSafe(): (this: unknown, key: string, value: unknown) => unknown {
  const ancestors: unknown[] = [];
  return function (this: unknown, _key: string, value: unknown): unknown {
    if (typeof value === "bigint") return value.toString();
    if (typeof value !== "object" || value === null) return value;
    // `this` is the object holding `value`: the ancestors past it are done with.
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
    if (ancestors.includes(value)) return "[Circular]";
    ancestors.push(value);
    return value;
  };
}

/** Returns true for `@langchain/core`'s tool schema validation error. @internal */
export function isToolInputParsingException(error: unknown): error is ToolInputParsingException {
  try {
    return error instanceof ToolInputParsingException || (error as Error | undefined)?.constructor?.name === "ToolInputParsingException";
  } catch {
    return false; // a value that cannot be inspected (a revoked proxy): not a parsing exception
  }
}

/** Returns true for an `OutputParserException` (from any copy of `@langchain/core`). @internal */
export function isOutputParserException(error: unknown): error is OutputParserException {
  try {
    return (
      error instanceof OutputParserException ||
      (typeof error === "object" && error !== null && (error as { lc_error_code?: unknown }).lc_error_code === "OUTPUT_PARSING_FAILURE")
    );
  } catch {
    return false; // a value that cannot be inspected (a revoked proxy)
  }
}

/**
 * The observation for tool input that failed the tool's schema. `@langchain/core` names the field
 * at fault for a zod schema only; for a JSON schema (an MCP tool's, say) `schema` and `input` give
 * the problems, each with where it is, so the model can fix the call. @internal
 */
export function invalidInputObservation(tool: string, error: Error, schema?: unknown, input?: unknown): string {
  const message = error.message.trim();
  const problems = message.includes("\n") ? undefined : jsonSchemaProblems(schema, input);
  return `Invalid input for tool "${tool}": ${message}${problems === undefined ? "" : `\n\n${problems}`}\nFix the arguments and call "${tool}" again.`;
}

/** Errors of a JSON schema check that only say a child failed (the child's error says how). */
const WRAPPING_KEYWORDS = new Set(["properties", "patternProperties", "items", "prefixItems", "additionalItems", "allOf", "$ref", "false", "contains", "dependentSchemas"]);

/** At most this many problems are listed. */
const MAX_PROBLEMS = 10;

/**
 * What is wrong with `input` for a JSON schema (not a zod one), one problem a line in the form of
 * zod's own report (`✖ problem` then `  → at path`); undefined when `schema` is not a JSON schema
 * or the check finds nothing to say.
 */
function jsonSchemaProblems(schema: unknown, input: unknown): string | undefined {
  if (typeof schema !== "object" || schema === null || typeof (schema as { safeParse?: unknown }).safeParse === "function" || "~standard" in schema) return undefined;
  let errors: { instanceLocation: string; keyword: string; error: string }[];
  try {
    errors = new Validator(schema as never, "7", false).validate(input as never).errors;
  } catch {
    return undefined; // a schema the validator cannot read: the message says what it can
  }
  const lines = errors
    .filter((found) => !WRAPPING_KEYWORDS.has(found.keyword))
    .slice(0, MAX_PROBLEMS)
    .map((found) => {
      const path = found.instanceLocation.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent).join(".");
      return path === "" ? `✖ ${found.error}` : `✖ ${found.error}\n  → at ${path}`;
    });
  return lines.length === 0 ? undefined : lines.join("\n");
}

/**
 * The observation for a string given to a tool that takes an object of arguments; `jsonError` is
 * why a string that looks like JSON (starts with `{` or `[`) could not be used. @internal
 */
export function stringInputObservation(tool: string, input: string, jsonError?: string): string {
  const shown = JSON.stringify(input.length > 200 ? `${input.slice(0, 200)}...` : input);
  const problem =
    jsonError === undefined
      ? `it takes an object of named arguments, but received the string ${shown}`
      : `its arguments are not a valid JSON object (${jsonError}): ${shown}`;
  return `Invalid input for tool "${tool}": ${problem}.\nCall "${tool}" again with a JSON object of arguments.`;
}

/**
 * An observation cut to `max` characters, with a note the model can read (the step's metadata
 * keeps the original length as `observationLength`). @internal
 */
export function truncateObservation(observation: string, max: number): string {
  const shown = cutText(observation, max); // never half an emoji
  return `${shown}\n\n[Observation truncated: the tool returned ${observation.length} characters; only the first ${shown.length} are shown.]`;
}

/** The observation for a tool that threw, or rethrows when errors are not handled. @internal */
export function toolErrorObservation(options: Pick<ResolvedOptions, "handleToolRuntimeErrors">, error: unknown, action: AgentAction): string {
  const handle = options.handleToolRuntimeErrors;
  if (handle === false) throw error;
  const asError = toError(error);
  if (typeof handle === "function") {
    const value: unknown = handle(asError, action);
    // A promise (an async handler) or nothing (a handler that forgot to return) is not what it
    // meant the model to read: the run fails naming the option, rather than sending "" or "{}".
    if (value === undefined || refusePromise(value)) {
      throw new InvalidArgumentError({
        argument: "handleToolRuntimeErrors",
        value,
        message: `\`handleToolRuntimeErrors\` must return the text the model reads (synchronously), got ${value === undefined ? "undefined" : "a Promise"}.`,
      });
    }
    // What the model reads is text: a value that is not a string is written as JSON, as a tool's result is.
    return typeof value === "string" ? value : safeJson(value);
  }
  return `Tool "${action.tool}" failed with error: ${asError.message}`;
}

/**
 * Any thrown value as an `Error` whose `message` can be read: an `Error` as it is (unless reading
 * its message throws), anything else (`Object.create(null)`, an object whose `toString` throws, a
 * symbol) described by {@link describeThrown}, which calls no code that might throw again. @internal
 */
export function toError(thrown: unknown): Error {
  try {
    if (thrown instanceof Error && typeof thrown.message === "string") return thrown;
  } catch {
    // a `message` getter that throws, or a revoked proxy: described below
  }
  return new Error(describeThrown(thrown, "the tool"), { cause: thrown });
}

/**
 * The `_Exception` step for a handled `OutputParserException`, or rethrows when parsing errors
 * are not handled. @internal
 */
export function parsingErrorStep(options: ResolvedOptions, error: OutputParserException): AgentStep {
  const handle = options.handleParsingErrors;
  let observation: string;
  if (handle === false) {
    // Unusable tool-call arguments are bad tool input, which never fails the run.
    if (!InvalidToolArgumentsException.isInstance(error) || error.observation === undefined) throw error;
    observation = error.observation;
  } else if (typeof handle === "string") observation = handle;
  else if (typeof handle === "function") {
    // What the model reads is text: a value that is not a string is written as JSON, as a tool's result is.
    const value: unknown = handle(error);
    // A promise (an async handler) or nothing (a handler that forgot to return) is not what it
    // meant the model to read: the run fails naming the option, rather than sending "{}" or "undefined".
    if (value === undefined || refusePromise(value)) {
      throw new InvalidArgumentError({
        argument: "handleParsingErrors",
        value,
        message: `\`handleParsingErrors\` must return the text the model reads (synchronously), got ${value === undefined ? "undefined" : "a Promise"}.`,
      });
    }
    observation = typeof value === "string" ? value : safeJson(value);
  } else observation = error.sendToLLM && error.observation !== undefined ? error.observation : "Invalid or incomplete response";
  const log = error.llmOutput !== undefined && error.llmOutput !== "" ? error.llmOutput : error.message;
  return { action: { tool: EXCEPTION_TOOL_NAME, toolInput: observation, log }, observation };
}
