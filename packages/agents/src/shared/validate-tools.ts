import { InvalidArgumentError } from "@agentrx/core";
import { describeValue } from "./describe";
import type { StructuredToolInterface } from "@langchain/core/tools";

/**
 * A tool name the caller keeps for itself (the executor's `final_answer` with `outputSchema`): a
 * tool of the user's with that name is refused, saying why.
 *
 * @internal
 */
export interface ReservedToolName {
  /** The reserved name. */
  name: string;
  /** Why a tool of that name cannot work, as the message says it (after `is named "x", `). */
  reason: string;
  /** Tools that may have the name all the same (the caller's own tool of that name). */
  allows?: (tool: StructuredToolInterface) => boolean;
}

/**
 * Options of {@link assertTools}.
 *
 * @internal
 */
export interface AssertToolsOptions {
  /** How many tools there must be at least. @default 0 */
  min?: number;
  /** Names no tool of the user's may have. */
  reserved?: readonly ReservedToolName[];
}

/**
 * Throws an `InvalidArgumentError` (`argument: "tools"`) unless `tools` is an array of
 * `@langchain/core` tools: each an object with a non-empty string `name` and an `invoke` method,
 * the names unique, none of them `reserved`, at least `min` of them. The message starts with
 * `caller` (the function or class the user called) and says which entry is wrong and why. The
 * one check of a tool list that the agent constructors, `AgentExecutor` and `createAgentExecutor`
 * share.
 *
 * @param tools what the user passed as `tools`
 * @param caller the name messages start with, e.g. `"createToolCallingAgent"` or `"AgentExecutor"`
 * @param options `min`, the fewest tools there must be; `reserved`, names the caller keeps for itself
 * @throws InvalidArgumentError naming `caller` and the problem
 * @example
 * ```ts
 * import { assertTools } from "@agentrx/agents";
 *
 * try {
 *   assertTools([{ name: "search", invoke: async () => "" }, { name: "search", invoke: async () => "" }], "myAgent");
 * } catch (error) {
 *   console.log((error as Error).message);
 *   // 'myAgent: `tools[0]` and `tools[1]` are both named "search"; tool names must be unique. Rename one of them.'
 * }
 * ```
 *
 * @internal
 */
export function assertTools(tools: unknown, caller: string, { min = 0, reserved = [] }: AssertToolsOptions = {}): asserts tools is StructuredToolInterface[] {
  const fail = (message: string): never => {
    throw new InvalidArgumentError({ argument: "tools", value: tools, message: `${caller}: ${message}` });
  };
  if (!Array.isArray(tools)) {
    fail(`\`tools\` must be an array of @langchain/core tools${min === 0 ? " (use [] for none)" : ""}, got ${describeValue(tools)}.`);
  }
  const list = tools as unknown[];
  if (list.length < min) fail(`\`tools\` must hold at least ${min} tool${min === 1 ? "" : "s"}, got ${list.length}.`);
  const seen = new Map<string, number>();
  list.forEach((tool, index) => {
    const problem = notATool(tool);
    if (problem !== undefined) {
      fail(`\`tools[${index}]\` is not a @langchain/core tool: ${problem}. Every tool needs a non-empty string \`name\` and an \`invoke\` method (tool() from @langchain/core/tools makes one).`);
    }
    const { name } = tool as StructuredToolInterface;
    const first = seen.get(name);
    if (first !== undefined) fail(`\`tools[${first}]\` and \`tools[${index}]\` are both named "${name}"; tool names must be unique. Rename one of them.`);
    const kept = reserved.find((entry) => entry.name === name);
    if (kept !== undefined && !(kept.allows?.(tool as StructuredToolInterface) ?? false)) {
      fail(`\`tools[${index}]\` is named "${name}", ${kept.reason}. Rename it.`);
    }
    seen.set(name, index);
  });
}

/** What makes `tool` not a tool, or undefined when it is one. */
function notATool(tool: unknown): string | undefined {
  if (typeof tool !== "object" || tool === null) return `it is ${describeValue(tool)}`;
  const { name, invoke } = tool as { name?: unknown; invoke?: unknown };
  if (name === undefined) return "it has no `name`";
  if (typeof name !== "string") return `its \`name\` is ${describeValue(name)}, not a string`;
  if (name === "") return "its `name` is empty";
  if (typeof invoke !== "function") return `"${name}" has no \`invoke\` method`;
  return undefined;
}
