import { InvalidToolArgumentsException, strictToolCalls } from "@agentrx/core";
import type { BaseMessage } from "@langchain/core/messages";
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan } from "./argument-depth";
import { describeError, describeValue } from "./describe";
import { parseLenientJson } from "./parse-lenient-json";

/** A tool call of a model message as the tool-calling and function-calling parsers read it. */
export interface ReadToolCall {
  /** The tool's name; undefined when the call has none (or one that is not a non-empty string). */
  name: string | undefined;
  /** The tool call's id, when it is a non-empty string. */
  id: string | undefined;
  /** The arguments, when they are usable: a JSON object, not nested too deeply. */
  args: Record<string, unknown> | undefined;
  /** The arguments as text: their JSON when usable, else as the model wrote them (or a description). */
  argsText: string;
  /** What is wrong with the arguments, when they cannot be used. */
  problem: string | undefined;
  /**
   * Whether the message does not hold the call as read, so a message sent back must be rebuilt: it
   * was among the message's invalid tool calls and is usable after all, or its arguments were
   * missing and read as `{}`.
   */
  recovered: boolean;
}

/**
 * The tool calls of a message, each checked once. They are parsed strictly (see
 * `strictToolCalls` in `@agentrx/core`: a truncated streamed call stays invalid), except that
 * arguments with raw control characters (newlines, tabs) inside their strings, which some models
 * write in multi-line arguments, are accepted as LangChain Python accepts them, and empty or
 * missing arguments are `{}`. A message without tool calls is read for OpenAI's raw
 * `additional_kwargs.tool_calls` (messages built by hand or by older integrations). Arguments
 * that are not a JSON object, or are nested more than {@link MAX_ARGUMENT_DEPTH} levels deep,
 * make the call unusable (`problem` says why). Fields of the wrong type are read as missing.
 */
export function readToolCalls(message: BaseMessage): ReadToolCall[] {
  const { toolCalls, invalidToolCalls } = strictToolCalls(message);
  const calls: ReadToolCall[] = [];
  for (const call of listOf(toolCalls)) {
    // Missing arguments (some integrations leave them out for a tool without parameters) are {};
    // the message sent back must then carry {} too, so the call counts as recovered.
    const missing = call.args === undefined || call.args === null;
    calls.push(checkArguments(nameOf(call.name), idOf(call.id), missing ? {} : call.args, missing));
  }
  for (const call of listOf(invalidToolCalls)) calls.push(fromText(nameOf(call.name), idOf(call.id), call.args, true));
  if (calls.length > 0) return calls;
  for (const entry of listOf((message.additional_kwargs as { tool_calls?: unknown } | undefined)?.tool_calls)) {
    const fn = typeof entry.function === "object" && entry.function !== null ? (entry.function as Record<string, unknown>) : {};
    calls.push(fromText(nameOf(fn.name), idOf(entry.id), fn.arguments, false));
  }
  return calls;
}

/** Reads arguments written as text (invalid tool calls, raw and legacy function calls). */
export function fromText(name: string | undefined, id: string | undefined, raw: unknown, recovered: boolean): ReadToolCall {
  if (typeof raw !== "string") {
    if (raw === undefined || raw === null) return checkArguments(name, id, {}, recovered);
    return { name, id, args: undefined, argsText: describeValue(raw), problem: `the arguments are ${describeValue(raw)}, not JSON text`, recovered: false };
  }
  // OpenAI sends "" (or whitespace) for a function without arguments.
  if (raw.trim() === "") return checkArguments(name, id, {}, recovered);
  let value: unknown;
  try {
    value = parseLenientJson(raw);
  } catch (error) {
    return { name, id, args: undefined, argsText: raw, problem: `invalid JSON: ${describeError(error)}`, recovered: false };
  }
  const read = checkArguments(name, id, value, recovered);
  return read.problem === undefined ? read : { ...read, argsText: raw };
}

/** Checks parsed arguments: a JSON object, not nested too deeply, that can be written as JSON. */
function checkArguments(name: string | undefined, id: string | undefined, args: unknown, recovered: boolean): ReadToolCall {
  const unusable = (problem: string, argsText: string): ReadToolCall => ({ name, id, args: undefined, argsText, problem, recovered: false });
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return unusable(`the arguments must be a JSON object, got ${describeValue(args)}`, safeJson(args));
  }
  if (nestedDeeperThan(args, MAX_ARGUMENT_DEPTH)) {
    return unusable(`the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep`, `(arguments nested more than ${MAX_ARGUMENT_DEPTH} levels deep)`);
  }
  let argsText: string;
  try {
    argsText = JSON.stringify(args);
  } catch (error) {
    return unusable(`the arguments are not JSON data (${describeError(error)})`, describeValue(args));
  }
  return { name, id, args: args as Record<string, unknown>, argsText, problem: undefined, recovered };
}

/**
 * The `InvalidToolArgumentsException` for an unusable call: one without a name, or whose
 * arguments cannot be used. `noun` is how messages name what was called. `turn` is the number of
 * calls in the message: when there are others, none of them gets a result either (the message is
 * one turn), and the observation says so, so the model calls them again instead of taking them
 * as done.
 */
export function toolCallError(call: ReadToolCall, text: string, noun: "tool" | "function" = "tool", turn = 1): InvalidToolArgumentsException {
  const rawArguments = truncate(call.argsText);
  const tool = call.name ? `${noun} "${call.name}"` : `a ${noun}`;
  const problem = call.name ? (call.problem ?? "") : `the ${noun} call has no ${noun} name`;
  return new InvalidToolArgumentsException({
    ...(turn > 1
      ? {
          observation:
            `Your call to ${tool} could not be read: ${problem}. Your reply was refused whole: none of its ${turn} ${noun} calls has a result. ` +
            `Call them all again, each with its arguments as one valid JSON object.`,
        }
      : {}),
    toolName: call.name,
    rawArguments,
    problem,
    llmOutput: text || `Invoking "${call.name ?? ""}" with ${rawArguments}`,
    noun,
    ...(call.id ? { toolCallId: call.id } : {}),
  });
}

function listOf(value: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(value)) return [];
  return value.filter((entry): entry is Record<string, unknown> => typeof entry === "object" && entry !== null);
}

function nameOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

const idOf = nameOf;

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? describeValue(value);
  } catch {
    return describeValue(value);
  }
}

function truncate(text: string, max = 500): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
