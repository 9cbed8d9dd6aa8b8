import { AbortError, type InDoubtPolicy, InvalidArgumentError, getStepMetadata, getToolApproval, getToolInDoubt, markToolApproval, markToolInDoubt, type StepMetadata } from "@agentrx/core";
import { parseCallbackConfigArg, type CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import { isToolMessage, type ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { raceAbort } from "../internal/race-abort";
import {
  StructuredTool,
  Tool,
  type StructuredToolCallInput,
  type StructuredToolInterface,
  type ToolReturnType,
  type ToolRunnableConfig,
  type ToolSchemaBase,
} from "@langchain/core/tools";
import type { InferInteropZodInput, InteropZodType } from "@langchain/core/utils/types";

/**
 * What a {@link ToolPolicy} sees of one tool call.
 *
 * @example
 * ```ts
 * import type { ToolPolicy, ToolPolicyContext } from "@agentrx/tools";
 *
 * const tagCalls: ToolPolicy = (context: ToolPolicyContext, next) => {
 *   context.metadata.tenant = "acme"; // shows up in the executor's step event
 *   return next(context.config);
 * };
 * ```
 */
export interface ToolPolicyContext {
  /** The wrapped tool's name. */
  readonly toolName: string;
  /** The call's arguments, validated against the tool's schema (and changed by its transforms, if any). */
  readonly args: unknown;
  /** The arguments as the caller gave them, before the schema's validation and transforms (the model's JSON). */
  readonly input: unknown;
  /** The config this call runs with (signal, callbacks, configurable); policies may pass a changed copy to `next`. */
  readonly config: RunnableConfig;
  /**
   * The executor's step-metadata record for this call (or a private one outside an executor).
   * Policies write what they measured here; the executor puts it in the `step` event.
   */
  readonly metadata: StepMetadata;
  /**
   * The tool's own in-doubt policy, when it is marked with `withInDoubt` (inside or outside the
   * policies): `"interrupt"` or `"fail"` say that a call which may have had its effect must not
   * simply run again, which is what `timeoutPolicy` reads. Undefined for an unmarked tool.
   */
  readonly inDoubt?: InDoubtPolicy;
}

/**
 * A tool policy is middleware around a tool call: it gets the call's context and `next`, which runs
 * the rest of the chain (the remaining policies, then the tool) with the config it is given.
 *
 * @example
 * ```ts
 * import type { ToolPolicy } from "@agentrx/tools";
 *
 * // Logs every call and how it went.
 * const logCalls: ToolPolicy = async ({ toolName, args, config }, next) => {
 *   console.log(`calling ${toolName}`, args);
 *   return next(config);
 * };
 * ```
 */
export type ToolPolicy = (context: ToolPolicyContext, next: (config: RunnableConfig) => Promise<unknown>) => Promise<unknown>;

/**
 * The input type of a tool's schema, as @langchain/core's tools type it: the zod schema's input, or
 * `unknown` for a JSON Schema. Written here because @langchain/core 1.0 does not export its own.
 */
type SchemaInputOf<SchemaT> = SchemaT extends InteropZodType ? InferInteropZodInput<SchemaT> : unknown;

const RAW_INPUT = Symbol("agentrx.tools.rawInput");

function isToolCallShaped(value: unknown): value is { type: "tool_call"; args: unknown; id?: string } {
  return typeof value === "object" && value !== null && (value as { type?: unknown }).type === "tool_call" && "args" in value;
}

/**
 * A tool wrapped in policies. It has the wrapped tool's name, description, schema and
 * `returnDirect`, so it drops into any agent in its place, and its types: `invoke` takes the
 * tool's input and returns its output (the type parameters are those of @langchain/core's
 * `StructuredToolInterface`; {@link PolicyToolOf} spells them out for a given tool). Wrapping a
 * `PolicyTool` again adds the new policies outside the existing ones without a second wrapper; a
 * tool's `withApproval` and `withInDoubt` marks stay on the wrapper, whichever is applied first.
 * A call whose signal has already aborted fails with an `AbortError` without starting the tool.
 * Create one with {@link withPolicies} or the `withTimeout` / `withRetry` / `withCache` /
 * `withConcurrencyLimit` helpers.
 *
 * @example
 * ```ts
 * import { createCalculatorTool, timeoutPolicy, withPolicies, type PolicyTool } from "@agentrx/tools";
 *
 * const calculator: PolicyTool = withPolicies(createCalculatorTool(), [timeoutPolicy({ ms: 1000 })]);
 * console.log(calculator.inner.name, calculator.policies.length); // calculator 1
 * ```
 */
export class PolicyTool<
  SchemaT = ToolSchemaBase,
  SchemaInputT = SchemaInputOf<SchemaT>,
  // Untyped by default, as @langchain/core's own tools are.
  ToolOutputT = any,
> extends StructuredTool<SchemaT, unknown, SchemaInputT, ToolOutputT> {
  name: string;
  description: string;
  schema: SchemaT;
  /** The tool that does the work. */
  readonly inner: StructuredToolInterface<SchemaT, SchemaInputT, ToolOutputT>;
  /** The policies, outermost first. */
  readonly policies: readonly ToolPolicy[];

  constructor(inner: StructuredToolInterface<SchemaT, SchemaInputT, ToolOutputT>, policies: readonly ToolPolicy[]) {
    const { responseFormat, verboseParsingErrors } = inner as Partial<Pick<StructuredTool, "responseFormat" | "verboseParsingErrors">>;
    super({ responseFormat, verboseParsingErrors });
    this.name = inner.name;
    this.description = inner.description;
    this.schema = inner.schema;
    this.returnDirect = inner.returnDirect;
    this.inner = inner;
    this.policies = policies;
  }

  static lc_name(): string {
    return "PolicyTool";
  }

  // Keeps the caller's raw input so the inner tool validates (and transforms) it itself.
  override async call<TArg extends StructuredToolCallInput<SchemaT, SchemaInputT>, TConfig extends ToolRunnableConfig | undefined>(
    arg: TArg,
    configArg?: TConfig,
    tags?: string[],
  ): Promise<ToolReturnType<TArg, TConfig, ToolOutputT>> {
    const raw: unknown = isToolCallShaped(arg) ? arg.args : arg;
    const wrapsStringTool = this.inner instanceof Tool && (typeof arg === "string" || arg == null);
    const config = { ...parseCallbackConfigArg(configArg) };
    return super.call((wrapsStringTool ? { input: arg } : arg) as TArg, { ...config, [RAW_INPUT]: raw } as unknown as TConfig, tags);
  }

  protected async _call(parsed: unknown, runManager?: CallbackManagerForToolRun, parentConfig?: ToolRunnableConfig): Promise<any> {
    const { toolCall: _toolCall, [RAW_INPUT]: raw, ...rest } = (parentConfig ?? {}) as ToolRunnableConfig & { [RAW_INPUT]?: unknown };
    const config: RunnableConfig = { ...rest, callbacks: runManager?.getChild() ?? rest.callbacks };
    const metadata = getStepMetadata(config) ?? {};
    const inDoubt = getToolInDoubt(this) ?? getToolInDoubt(this.inner);
    const context = { toolName: this.name, args: parsed, input: raw === undefined ? parsed : raw, metadata, ...(inDoubt ? { inDoubt } : {}) };
    const run = (index: number, current: RunnableConfig): Promise<unknown> => {
      const policy = this.policies[index];
      if (!policy) return this.invokeInner(raw === undefined ? parsed : raw, current);
      return policy({ ...context, config: current }, (next) => run(index + 1, next));
    };
    const start = performance.now();
    try {
      // A call whose signal has already aborted does not start (a tool that does not check its signal would run).
      if (config.signal?.aborted) throw new AbortError({ reason: config.signal.reason });
      return await raceAbort(run(0, config), config.signal);
    } catch (error) {
      metadata.error ??= error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      metadata.durationMs = performance.now() - start;
    }
  }

  private async invokeInner(input: unknown, config: RunnableConfig): Promise<unknown> {
    if (this.responseFormat !== "content_and_artifact") return this.inner.invoke(input as never, config);
    const id = `policy-${Math.random().toString(36).slice(2)}`;
    const result: unknown = await this.inner.invoke({ type: "tool_call", id, name: this.name, args: input } as never, config);
    return isToolMessage(result as never) ? [(result as { content: unknown }).content, (result as { artifact: unknown }).artifact] : result;
  }
}

/**
 * The type of `tool` wrapped in policies: a {@link PolicyTool} with the schema, input and output
 * types of `T`, so that `invoke` checks its argument and types its result as the tool's own does.
 * What `withPolicies`, `withTimeout`, `withRetry`, `withCache` and `withConcurrencyLimit` return.
 *
 * @example
 * ```ts
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 * import { withTimeout, type PolicyToolOf } from "@agentrx/tools";
 *
 * const multiply = tool(async ({ a, b }) => a * b, {
 *   name: "multiply",
 *   description: "Multiplies two numbers.",
 *   schema: z.object({ a: z.number(), b: z.number() }),
 * });
 * const limited: PolicyToolOf<typeof multiply> = withTimeout(multiply, { ms: 1000 });
 * const product: number = await limited.invoke({ a: 6, b: 7 });
 * ```
 */
export type PolicyToolOf<T> = 0 extends 1 & T
  ? PolicyTool // a tool typed `any` (from an untyped module) wraps into an untyped PolicyTool
  : T extends StructuredToolInterface<infer SchemaT, infer SchemaInputT, infer ToolOutputT>
    ? PolicyTool<SchemaT, SchemaInputT, WithoutToolMessage<ToolOutputT>>
    : PolicyTool;

/**
 * A tool's output type as inferred from its interface, which unions it with the `ToolMessage` a
 * tool call gets: the output alone (or `ToolMessage` for a tool that returns one itself).
 */
type WithoutToolMessage<ToolOutputT> = 0 extends 1 & ToolOutputT
  ? ToolOutputT
  : [Exclude<ToolOutputT, ToolMessage>] extends [never]
    ? ToolOutputT
    : Exclude<ToolOutputT, ToolMessage>;

/**
 * Wraps `tool` in `policies`, listed from the outermost to the innermost:
 * `withPolicies(tool, [retryPolicy(), timeoutPolicy({ ms: 1000 })])` retries, and times out
 * each attempt separately. The result keeps the tool's name, description and schema, and its
 * types: `invoke` takes the tool's input and returns its output (see {@link PolicyToolOf}).
 *
 * @example
 * ```ts
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 * import { cachePolicy, retryPolicy, timeoutPolicy, withPolicies } from "@agentrx/tools";
 *
 * const lookup = tool(async ({ id }) => `item ${id}`, {
 *   name: "lookup",
 *   description: "Looks an item up by id.",
 *   schema: z.object({ id: z.string() }),
 * });
 * const robust = withPolicies(lookup, [cachePolicy({ ttlMs: 60_000 }), retryPolicy(), timeoutPolicy({ ms: 2000 })]);
 * console.log(await robust.invoke({ id: "7" })); // item 7
 * ```
 */
export function withPolicies<T extends StructuredToolInterface>(tool: T, policies: readonly ToolPolicy[]): PolicyToolOf<T> {
  if (typeof tool?.invoke !== "function" || typeof tool.name !== "string") {
    throw new InvalidArgumentError({ argument: "tool", value: tool, message: "withPolicies needs a @langchain/core tool (with a name and invoke) as its first argument." });
  }
  const bad = Array.isArray(policies) ? policies.findIndex((policy) => typeof policy !== "function") : -1;
  if (!Array.isArray(policies) || bad >= 0) {
    throw new InvalidArgumentError({
      argument: "policies",
      value: policies,
      message: `withPolicies needs an array of policies such as [retryPolicy(), timeoutPolicy({ ms: 1000 })]${bad >= 0 ? `; policies[${bad}] is not a function` : ""}.`,
    });
  }
  const wrapped = tool instanceof PolicyTool ? new PolicyTool(tool.inner, [...policies, ...tool.policies]) : new PolicyTool(tool, policies);
  return keepMarks(tool, wrapped) as PolicyToolOf<T>;
}

/**
 * The executor reads a tool's `withApproval` and `withInDoubt` marks on the tool it is given: the
 * wrapper carries those of the tool it wraps (a marked `PolicyTool` wrapped again included), so
 * wrapping a marked tool never drops its approval or its in-doubt policy.
 */
function keepMarks<W extends StructuredToolInterface>(tool: StructuredToolInterface, wrapped: W): W {
  const approval = getToolApproval(tool);
  const inDoubt = getToolInDoubt(tool);
  const approved = approval === undefined ? wrapped : markToolApproval(wrapped, approval);
  return inDoubt === undefined ? approved : markToolInDoubt(approved, inDoubt);
}
