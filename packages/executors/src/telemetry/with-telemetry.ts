import { InvalidArgumentError, observesModelCalls } from "@agentrx/core";
import { CallbackManager } from "@langchain/core/callbacks/manager";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Context } from "@opentelemetry/api";
import type { ForkOf } from "../runs/run-store";
import { activeSpanContext } from "./otel-api";
import { RunTelemetry, TELEMETRY_CONTEXT_KEY, TELEMETRY_PARENT_KEY, type TelemetryParent, givenContext } from "./run-telemetry";
import { type SegmentTrace, keptTrace, segmentStart } from "./segment-link";
import { TelemetryHandler } from "./telemetry-handler";
import type { TelemetryOptions } from "./telemetry-options";

/** Checks the executor's `telemetry` option and applies its defaults. @internal */
export function resolveTelemetry(value: unknown): Required<Omit<TelemetryOptions, "tracer">> & Pick<TelemetryOptions, "tracer"> | undefined {
  if (value === undefined) return undefined;
  const fail = (argument: string, message: string): never => {
    throw new InvalidArgumentError({ argument, value, message: `AgentExecutor: ${message}` });
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail("telemetry", "`telemetry` must be an object { tracer?, recordInputs?, recordOutputs? }.");
  const { tracer, recordInputs = false, recordOutputs = false, ...rest } = value as TelemetryOptions;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) fail(`telemetry.${unknown[0]}`, `unknown option \`telemetry.${unknown[0]}\`. Known: tracer, recordInputs, recordOutputs.`);
  if (tracer !== undefined && typeof (tracer as { startSpan?: unknown } | null)?.startSpan !== "function") {
    fail("telemetry.tracer", "`telemetry.tracer` must be an OpenTelemetry Tracer (e.g. trace.getTracer(\"my-app\") from @opentelemetry/api).");
  }
  if (typeof recordInputs !== "boolean") fail("telemetry.recordInputs", "`telemetry.recordInputs` must be a boolean.");
  if (typeof recordOutputs !== "boolean") fail("telemetry.recordOutputs", "`telemetry.recordOutputs` must be a boolean.");
  return { ...(tracer ? { tracer } : {}), recordInputs, recordOutputs };
}

function isTelemetryHandler(handler: unknown): boolean {
  return handler instanceof TelemetryHandler || (handler as { name?: unknown } | null)?.name === "agentrx_telemetry";
}

/**
 * The run's config with a telemetry handler added to its callbacks (inheritably, so model and tool
 * calls report to it). Without `telemetry`, the config as it is. A sub-run whose callbacks already
 * hold one (its caller is traced) is traced by that one, in the same tree. @internal
 */
export function withTelemetry<T extends RunnableConfig>(config: T, telemetry: TelemetryOptions | undefined, runId: string, threadId?: string, parent?: TelemetryParent, startContext?: Context): T {
  if (telemetry === undefined) return config;
  return withHandler(config, new TelemetryHandler(telemetry, runId, parent === undefined ? threadId : undefined, parent, startContext));
}

/** `config` with `handler` added to its callbacks, unless they hold a telemetry handler already. */
function withHandler<T extends RunnableConfig>(config: T, handler: TelemetryHandler): T {
  const callbacks = config.callbacks;
  if (callbacks === undefined) return { ...config, callbacks: [handler] };
  if (tracedByHandler(callbacks)) return config;
  if (Array.isArray(callbacks)) return { ...config, callbacks: [...callbacks, handler] };
  if (isCallbackManager(callbacks)) return { ...config, callbacks: callbacks.copy([handler], true) };
  return config;
}

/** Whether `callbacks` is a callback manager (of this copy of `@langchain/core` or another's). */
function isCallbackManager(callbacks: RunnableConfig["callbacks"]): callbacks is CallbackManager {
  return callbacks instanceof CallbackManager || typeof (callbacks as CallbackManager | undefined)?.copy === "function";
}

/**
 * How a run is traced: with spans made from what it sees (`telemetry`, when its agent reports its
 * model calls, as every built-in agent does: no callback handler, so the agent's runnables build no
 * callback runs), else through a callback handler (`withTelemetry`). A run started as a tool of a
 * traced run (`asTool`) is traced in its caller's tree, under the tool call, with its caller's
 * settings; a run whose callbacks hold a telemetry handler (a caller traced through callbacks) is
 * traced by that handler, whatever its agent, so that one tracer owns each run of a tree. A run
 * given a context under `TELEMETRY_CONTEXT_KEY` (a remote caller's span) starts its
 * span there rather than in the active context. A resumed run given `previous`, the `traceparent`
 * its record kept of the segment before, links its span to that one; a fork's first segment
 * (`forkOf`) links to its source's last traced segment (`previous` is the source's) and names its
 * source. `trace` is where the run's record reads the `traceparent` it keeps: its own span's (a
 * top run traced by itself only), else `previous` (see {@link keptTrace}). @internal
 */
export function traceRun<T extends RunnableConfig>(
  config: T,
  telemetry: TelemetryOptions | undefined,
  agent: unknown,
  runId: string,
  threadId?: string,
  previous?: string,
  forkOf?: ForkOf,
): { config: T; telemetry?: RunTelemetry; trace?: SegmentTrace } {
  const traced = traceSegment(config, telemetry, agent, runId, threadId, previous, forkOf);
  // Untraced, or before its span starts: the record keeps the last traced segment's traceparent.
  const trace = keptTrace(traced.trace, previous);
  return trace === traced.trace ? traced : { ...traced, trace };
}

/** {@link traceRun}, but `trace` only for a top run traced by itself. */
function traceSegment<T extends RunnableConfig>(
  config: T,
  telemetry: TelemetryOptions | undefined,
  agent: unknown,
  runId: string,
  threadId?: string,
  previous?: string,
  forkOf?: ForkOf,
): { config: T; telemetry?: RunTelemetry; trace?: SegmentTrace } {
  let configurable = config.configurable as Record<string, unknown> | undefined;
  // A given start context is this run's alone: taken out, so that the agent's steps and tools (and
  // a run started inside a tool) never see it.
  const startContext = givenContext(configurable);
  if (configurable !== undefined && TELEMETRY_CONTEXT_KEY in configurable) {
    const { [TELEMETRY_CONTEXT_KEY]: _taken, ...rest } = configurable;
    configurable = rest;
    config = { ...config, configurable: rest };
  }
  const parent = configurable?.[TELEMETRY_PARENT_KEY] as TelemetryParent | undefined;
  // One tracer owns a run. A run whose callbacks hold a telemetry handler (a caller traced through
  // callbacks) is traced by that handler, under the tool call that ran it, and so is every run
  // under it: nothing under a handler is traced from what it sees. A parent its config names is
  // then a run's further up, passed down through the handler's run: not this run's parent.
  if ((parent !== undefined || telemetry !== undefined) && tracedByHandler(config.callbacks)) return { config: withoutParent(config, configurable) };
  if (parent !== undefined) {
    if (observesModelCalls(agent)) return { config, telemetry: new RunTelemetry(parent.options, parent, runId, undefined, config.runName) };
    // Traced by a handler of its own, under the tool call: that handler owns the runs under it.
    return { config: withTelemetry(withoutParent(config, configurable), parent.options, runId, undefined, parent) };
  }
  if (telemetry === undefined) return { config };
  const segment = segmentStart(previous, forkOf);
  if (observesModelCalls(agent)) {
    const run = new RunTelemetry(telemetry, undefined, runId, threadId, config.runName, startContext, segment);
    return { config, telemetry: run, trace: run };
  }
  const handler = new TelemetryHandler(telemetry, runId, threadId, undefined, startContext, segment);
  return { config: withHandler(config, handler), trace: handler };
}

/** Whether `callbacks` (a run's config's) hold a telemetry handler: the run's caller is traced through callbacks. */
function tracedByHandler(callbacks: RunnableConfig["callbacks"]): boolean {
  if (Array.isArray(callbacks)) return callbacks.some(isTelemetryHandler);
  return isCallbackManager(callbacks) && callbacks.handlers.some(isTelemetryHandler);
}

/** `config` without the parent its `configurable` names under `TELEMETRY_PARENT_KEY` (as it is when it names none). */
function withoutParent<T extends RunnableConfig>(config: T, configurable: Record<string, unknown> | undefined): T {
  if (configurable === undefined || !(TELEMETRY_PARENT_KEY in configurable)) return config;
  const { [TELEMETRY_PARENT_KEY]: _parent, ...rest } = configurable;
  return { ...config, configurable: rest };
}

/**
 * `config` with the OpenTelemetry context active now (when a span is active) under
 * `TELEMETRY_CONTEXT_KEY`, so that a traced run's span starts under the context its `invoke`,
 * `stream`, `resume` or `fork` was called in, even when the run is subscribed to (or awaited)
 * outside it. The config as it is without `telemetry`, without an active span, or when it names a
 * parent or a context of its own. @internal
 */
export function withCallerContext<T extends { configurable?: Record<string, unknown> | undefined }>(config: T | undefined, telemetry: TelemetryOptions | undefined): T | undefined {
  if (telemetry === undefined) return config;
  const configurable = config?.configurable;
  // A `configurable` that is not an object is left as it is, for the run's check of its config to name.
  if (configurable !== undefined && (typeof configurable !== "object" || configurable === null)) return config;
  if (configurable?.[TELEMETRY_PARENT_KEY] !== undefined || configurable?.[TELEMETRY_CONTEXT_KEY] !== undefined) return config;
  const active = activeSpanContext();
  if (active === undefined) return config;
  return { ...config, configurable: { ...configurable, [TELEMETRY_CONTEXT_KEY]: active } } as unknown as T;
}
