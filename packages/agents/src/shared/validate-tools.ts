import { InvalidArgumentError } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";

/**
 * Throws an `InvalidArgumentError` unless `tools` is an array of named tools with unique names.
 */
export function assertTools(
  tools: unknown,
  constructorName: string,
  { min = 0 }: { min?: number } = {},
): asserts tools is StructuredToolInterface[] {
  if (!Array.isArray(tools)) {
    throw new InvalidArgumentError({
      argument: "tools",
      value: tools,
      message: `${constructorName}: \`tools\` must be an array of @langchain/core tools.`,
    });
  }
  if (tools.length < min) {
    throw new InvalidArgumentError({
      argument: "tools",
      value: tools,
      message: `${constructorName}: \`tools\` must hold at least ${min} tool${min === 1 ? "" : "s"}.`,
    });
  }
  const seen = new Set<string>();
  tools.forEach((tool: unknown, index) => {
    const name = (tool as { name?: unknown } | null)?.name;
    if (typeof name !== "string" || name === "") {
      throw new InvalidArgumentError({
        argument: "tools",
        value: tools,
        message: `${constructorName}: \`tools[${index}]\` has no name; every tool needs a non-empty string \`name\`.`,
      });
    }
    if (seen.has(name)) {
      throw new InvalidArgumentError({
        argument: "tools",
        value: tools,
        message: `${constructorName}: two tools are named "${name}"; tool names must be unique. Rename one of them.`,
      });
    }
    seen.add(name);
  });
}
