import type { StructuredToolInterface } from "@langchain/core/tools";
import { toJsonSchema } from "@langchain/core/utils/json_schema";

/**
 * Renders tools as `name: description` lines, the `{tools}` variable of text agents' prompts.
 *
 * @example
 * ```ts
 * import { renderTextDescription } from "@agentrx/agents";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const search = tool(async () => "", { name: "search", description: "Search the web.", schema: z.object({ q: z.string() }) });
 * console.log(renderTextDescription([search])); // "search: Search the web."
 * ```
 */
export function renderTextDescription(tools: readonly StructuredToolInterface[]): string {
  return tools.map((tool) => `${tool.name}: ${tool.description}`).join("\n");
}

/**
 * Renders tools as `name: description, args: {...}` lines, where `args` is the JSON Schema of each
 * argument: the `{tools}` variable of the structured-chat agent's prompt.
 *
 * @example
 * ```ts
 * import { renderTextDescriptionAndArgs } from "@agentrx/agents";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const search = tool(async () => "", { name: "search", description: "Search the web.", schema: z.object({ q: z.string() }) });
 * console.log(renderTextDescriptionAndArgs([search])); // 'search: Search the web., args: {"q":{"type":"string"}}'
 * ```
 */
export function renderTextDescriptionAndArgs(tools: readonly StructuredToolInterface[]): string {
  return tools.map((tool) => `${tool.name}: ${tool.description}, args: ${JSON.stringify(argsOf(tool))}`).join("\n");
}

function argsOf(tool: StructuredToolInterface): Record<string, unknown> {
  try {
    const schema = toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0]) as { properties?: Record<string, unknown> };
    const properties = schema.properties ?? {};
    return Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [key, stripSchemaNoise(value)]),
    );
  } catch {
    return {};
  }
}

function stripSchemaNoise(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const { $schema: _schema, additionalProperties: _additional, ...rest } = value as Record<string, unknown>;
  return rest;
}
