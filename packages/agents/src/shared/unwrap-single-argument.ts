import type { AgentAction } from "@agentrx/core";

/**
 * Returns a tool call's arguments as a tool input. Arguments of the form `{"__arg1": value}`
 * (LangChain's encoding of a single-input tool's string argument for function calling) become
 * `value`; any other arguments are returned as they are.
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
