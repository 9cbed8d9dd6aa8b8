import type { AgentAction } from "./types";

/**
 * Returns a tool call's arguments as a tool input. Arguments of the form `{"__arg1": value}`
 * (LangChain's encoding of a single-input tool's string argument for function calling) become
 * `value`; any other arguments are returned as they are.
 *
 * An agent's parser and the executor's early tool calls (`eagerTools`) both read a tool call's
 * arguments with it, so that a call started while the model streams matches the action the parser
 * returns for it.
 *
 * @example
 * ```ts
 * unwrapSingleArgument({ __arg1: "Paris" }); // "Paris"
 * unwrapSingleArgument({ city: "Paris" }); // { city: "Paris" }
 * ```
 */
export function unwrapSingleArgument(args: unknown): AgentAction["toolInput"] {
  if (typeof args === "object" && args !== null && !Array.isArray(args)) {
    const record = args as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && keys[0] === "__arg1") return record.__arg1 as AgentAction["toolInput"];
    return record;
  }
  return args as AgentAction["toolInput"];
}
