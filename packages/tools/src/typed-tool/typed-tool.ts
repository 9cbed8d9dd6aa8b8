import type { StructuredToolInterface } from "@langchain/core/tools";
import type { InteropZodType } from "@langchain/core/utils/types";

/**
 * The schema type of a {@link TypedTool}: a zod schema (zod 3 or 4) whose input is `TInput`. The
 * `description` is that of every zod schema; it is spelled out because @langchain/core 1.0 takes a
 * zod 4 schema as a tool's schema by it.
 *
 * @example
 * ```ts
 * import type { TypedToolSchema } from "@agentrx/tools";
 * import { z } from "zod";
 *
 * const schema: TypedToolSchema<{ query: string }> = z.object({ query: z.string() });
 * ```
 */
export type TypedToolSchema<TInput> = InteropZodType<TInput> & { description?: string };

/**
 * A `@langchain/core` structured tool whose input and output are given as plain TypeScript types:
 * `invoke` takes a `TInput` (or a tool call) and returns a `TOutput` (or a `ToolMessage` for a tool
 * call). The built-in tools are declared with it rather than with the `DynamicStructuredTool` and
 * zod types they are made of, so that their types read the same with every @langchain/core 1.x and
 * with zod 3.25 or 4 (see docs/tools.md). It is a `StructuredToolInterface`, so it goes wherever a
 * tool does: an agent's tools, `withPolicies`, `withApproval`.
 *
 * @example
 * ```ts
 * import { createCalculatorTool, type CalculatorToolInput, type TypedTool } from "@agentrx/tools";
 *
 * const calculator: TypedTool<CalculatorToolInput> = createCalculatorTool();
 * const answer: string = await calculator.invoke({ expression: "6 * 7" });
 * console.log(answer); // 42
 * ```
 */
export interface TypedTool<TInput, TOutput = string> extends StructuredToolInterface<TypedToolSchema<TInput>, TInput, TOutput> {}
