import { InvalidArgumentError, checkOptionKeys, showValue } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import type { AgentExecutor } from "./agent-executor";
import { callSubRun } from "./call-sub-run";
import { DEFAULT_MAX_SUB_RUN_DEPTH } from "./sub-run";

/**
 * Options of `executor.asTool(...)`.
 *
 * @example
 * ```ts
 * import type { AsToolOptions } from "@agentrx/executors";
 *
 * const options: AsToolOptions = { name: "researcher", description: "Researches a topic and reports." };
 * ```
 */
export interface AsToolOptions {
  /** The tool's name, as the model calls it (letters, digits, `_` and `-`). */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /**
   * A zod object schema for the tool's input; the parsed input is the sub-run's inputs.
   * @default z.object({ input: z.string() })
   */
  schema?: z.ZodType<Record<string, unknown>>;
  /**
   * How deeply nested this tool's sub-run may be: a call that would start it deeper than this
   * (counting every `asTool` and `handoff` sub-run from the top run, whose own tools start depth 1)
   * fails with a `SubRunDepthError` naming the depth and the path of tool names, which the calling
   * model reads as the call's error. It stops agents that call each other in a loop. A whole number
   * of at least 1.
   * @default 10
   */
  maxDepth?: number;
}

const DEFAULT_SCHEMA = z.object({ input: z.string().describe("What to ask this agent.") });

/**
 * The executor as a tool: each call streams a sub-run and forwards its events to the calling run
 * (`callSubRun`). When `executor` has a store, a call with an idempotency key records its sub-run
 * as `as-tool:<key>`, so a retry of the call resumes it (or takes its answer) rather than start it
 * again. A call that would nest its sub-run deeper than `maxDepth` fails with a `SubRunDepthError`.
 * A sub-run that pauses for approval fails the call with a `SubRunInterruptedError`, which
 * pauses a recorded calling run when the sub-run is recorded (see docs/executor-options.md,
 * "asTool()"). @internal
 */
export function executorTool(executor: AgentExecutor, options: AsToolOptions): StructuredToolInterface {
  checkOptionKeys("asTool", options, ["name", "description", "schema", "maxDepth"] satisfies (keyof AsToolOptions)[]);
  const { name, description, schema = DEFAULT_SCHEMA, maxDepth = DEFAULT_MAX_SUB_RUN_DEPTH } = (options ?? {}) as AsToolOptions;
  if (typeof name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new InvalidArgumentError({ argument: "name", value: name, message: `asTool: \`name\` must be 1-64 letters, digits, "_" or "-", got ${JSON.stringify(name)}.` });
  }
  if (typeof description !== "string" || description.trim() === "") {
    throw new InvalidArgumentError({ argument: "description", value: description, message: "asTool: `description` must be a non-empty string: the model reads it to decide when to call the tool." });
  }
  if (typeof (schema as { safeParse?: unknown }).safeParse !== "function") {
    throw new InvalidArgumentError({ argument: "schema", value: schema, message: "asTool: `schema` must be a zod object schema." });
  }
  checkMaxDepth("asTool", maxDepth);
  const asTool = tool(
    async (input: Record<string, unknown>, config?: RunnableConfig) => callSubRun(executor, input, config, { tool: name, label: `asTool "${name}"`, runIdPrefix: "as-tool", maxDepth }).then((answer) => answer.output),
    { name, description, schema: schema as never },
  ) as unknown as StructuredToolInterface;
  return withSubRunExecutor(asTool, executor);
}

/** Refuses a `maxDepth` option (of `where`: `asTool`, `handoff`) that is not a whole number of at least 1. @internal */
export function checkMaxDepth(where: string, maxDepth: unknown): void {
  if (typeof maxDepth !== "number" || !Number.isInteger(maxDepth) || maxDepth < 1) {
    throw new InvalidArgumentError({
      argument: "maxDepth",
      value: maxDepth,
      message: `${where}: \`maxDepth\` must be a whole number of at least 1, got ${showValue(maxDepth)}: how deeply nested the tool's sub-run may be (10 by default).`,
    });
  }
}

/** Where a `handoff` or `asTool` tool keeps the executor it runs as a sub-run. */
const SUB_RUN_EXECUTOR = Symbol("agentrx.subRunExecutor");

/**
 * Marks `tool` as running `executor` as a sub-run (`handoff`, `asTool`), under a key of its own
 * that is not enumerated: a caller's resume checks an edit of the sub-run's paused call against
 * that executor's tool (see `checkDecisions`). @internal
 */
export function withSubRunExecutor<T extends object>(tool: T, executor: AgentExecutor): T {
  Object.defineProperty(tool, SUB_RUN_EXECUTOR, { value: executor });
  return tool;
}

/** The executor `tool` runs as a sub-run (`withSubRunExecutor`); undefined for any other tool. @internal */
export function subRunExecutorOf(tool: unknown): AgentExecutor | undefined {
  if (typeof tool !== "object" || tool === null) return undefined;
  return (tool as { [SUB_RUN_EXECUTOR]?: AgentExecutor })[SUB_RUN_EXECUTOR];
}
