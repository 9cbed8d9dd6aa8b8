import { InvalidArgumentError } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";

/**
 * Refuses, in `createAgentExecutor`'s name, tools that the agent it builds or the executor would
 * refuse in theirs (`createToolCallingAgent: two tools are named ...`, which the user never
 * called): each must be a `@langchain/core` tool, their names unique, and none may take `reserved`
 * (the `final_answer` tool's name, with `outputSchema`: a call to it is the answer, never run).
 *
 * @throws InvalidArgumentError naming `tools[i]` and what is wrong with it
 * @internal
 */
export function assertAgentTools(tools: readonly unknown[], reserved: string | undefined): asserts tools is readonly StructuredToolInterface[] {
  const seen = new Map<string, number>();
  tools.forEach((tool, index) => {
    const { name, invoke } = (typeof tool === "object" && tool !== null ? tool : {}) as { name?: unknown; invoke?: unknown };
    if (typeof name !== "string" || name === "" || typeof invoke !== "function") {
      fail(tools, `\`tools[${index}]\` is not a @langchain/core tool (it needs a non-empty string \`name\` and an \`invoke\` method).`);
    }
    const first = seen.get(name);
    if (first !== undefined) {
      fail(tools, `\`tools[${first}]\` and \`tools[${index}]\` are both named "${name}"; tool names must be unique. Rename one of them.`);
    }
    if (name === reserved) {
      fail(tools, `\`tools[${index}]\` is named "${name}", the tool the model answers through with \`outputSchema\` (a call to it is the final answer and never runs your tool). Rename it.`);
    }
    seen.set(name, index);
  });
}

function fail(tools: readonly unknown[], message: string): never {
  throw new InvalidArgumentError({ argument: "tools", value: tools, message: `createAgentExecutor: ${message}` });
}
