import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { lastValueFrom, tap } from "rxjs";
import { z } from "zod";
import type { AgentExecutor } from "./agent-executor";
import type { AgentStreamEvent, Interrupt } from "./events";
import { SubRunInterruptedError } from "../handoff/sub-run-interrupted-error";
import { SUB_RUN_CALL_KEY, SUB_RUN_DECISIONS_KEY, SUB_RUN_KEY, SUB_RUN_MODEL_CALLS_KEY, type SubRunModelCalls, subRunLink } from "./sub-run";
import { STEP_METADATA_KEY } from "@agentrx/core";

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
}

const DEFAULT_SCHEMA = z.object({ input: z.string().describe("What to ask this agent.") });

/**
 * The executor as a tool: each call streams a sub-run and forwards its events to the calling run.
 * A sub-run that pauses for approval fails the call with a `SubRunInterruptedError`. @internal
 */
export function executorTool(executor: AgentExecutor, options: AsToolOptions): StructuredToolInterface {
  checkOptionKeys("asTool", options, ["name", "description", "schema"] satisfies (keyof AsToolOptions)[]);
  const { name, description, schema = DEFAULT_SCHEMA } = (options ?? {}) as AsToolOptions;
  if (typeof name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new InvalidArgumentError({ argument: "name", value: name, message: `asTool: \`name\` must be 1-64 letters, digits, "_" or "-", got ${JSON.stringify(name)}.` });
  }
  if (typeof description !== "string" || description.trim() === "") {
    throw new InvalidArgumentError({ argument: "description", value: description, message: "asTool: `description` must be a non-empty string: the model reads it to decide when to call the tool." });
  }
  if (typeof (schema as { safeParse?: unknown }).safeParse !== "function") {
    throw new InvalidArgumentError({ argument: "schema", value: schema, message: "asTool: `schema` must be a zod object schema." });
  }
  return tool(
    async (input: Record<string, unknown>, config?: RunnableConfig) => {
      const link = subRunLink(config, name);
      let output: Extract<AgentStreamEvent, { type: "output" }> | undefined;
      const waitingOn: string[] = [];
      const interrupts: Interrupt[] = [];
      await lastValueFrom(
        executor.stream(input, childConfig(config, link.modelCalls)).pipe(
          tap((event) => {
            if (event.subRun === undefined && event.type === "output") output = event;
            if (event.subRun === undefined && event.type === "interrupt") {
              waitingOn.push(...event.interrupts.map((interrupt) => interrupt.tool));
              interrupts.push(...event.interrupts);
            }
            link.forward(event);
          }),
        ),
      );
      // A paused sub-run has no answer: "" would let the caller go on as if it had answered.
      if (output?.stopReason === "interrupted") throw new SubRunInterruptedError({ tool: name, runId: output.runId, waitingOn, interrupts });
      return output?.output ?? "";
    },
    { name, description, schema: schema as never },
  ) as unknown as StructuredToolInterface;
}

/**
 * The sub-run's config: the call's signal and callbacks (so it nests), without the calling run's
 * own keys; with `modelCalls`, where the sub-run reports its model calls. @internal
 */
export function childConfig(config: RunnableConfig | undefined, modelCalls?: SubRunModelCalls): RunnableConfig {
  const out: RunnableConfig = {};
  if (config?.signal) out.signal = config.signal;
  if (config?.callbacks) out.callbacks = config.callbacks;
  if (config?.tags) out.tags = config.tags;
  if (config?.metadata) out.metadata = config.metadata;
  if (config?.configurable) {
    const { [SUB_RUN_KEY]: _sink, [STEP_METADATA_KEY]: _metadata, [SUB_RUN_CALL_KEY]: _call, [SUB_RUN_MODEL_CALLS_KEY]: _calls, [SUB_RUN_DECISIONS_KEY]: _decisions, ...rest } = config.configurable;
    if (Object.keys(rest).length > 0) out.configurable = rest;
  }
  if (modelCalls !== undefined) out.configurable = { ...out.configurable, [SUB_RUN_MODEL_CALLS_KEY]: modelCalls };
  return out;
}
