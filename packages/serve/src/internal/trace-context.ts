// W3C trace context (`traceparent`, `tracestate`) across A2A: the headers `a2aTool` sends from the
// span of the tool call that runs it, and the context `createA2AHandler` starts the run under from
// the headers it receives (see docs/serving-a2a.md). `@opentelemetry/api` is an optional peer
// dependency, imported only when there is a trace to carry; its specifier is not a literal, so
// bundlers leave the import alone (as in @agentrx/executors' otel-api.ts). @internal
import { formatTraceparent, parseTraceparent } from "@agentrx/executors";
import type { Context, SpanContext } from "@opentelemetry/api";

type OtelApi = typeof import("@opentelemetry/api");

const SPECIFIER = "@opentelemetry/api";

/**
 * Where `@opentelemetry/api` (v1) keeps what is registered globally: without a context manager
 * there, the active context is always the empty root, with no span to carry.
 */
const API_GLOBALS = Symbol.for("opentelemetry.js.api.1");

/**
 * The `config.configurable` keys of @agentrx/executors (its telemetry/run-telemetry.ts): where a
 * traced run puts each tool call's telemetry parent (its `context` holds the call's span), and
 * where a run is given the context its span starts under.
 */
export const TELEMETRY_PARENT_KEY = "__agentrx_telemetry_parent";
export const TELEMETRY_CONTEXT_KEY = "__agentrx_telemetry_context";

/** Request headers, as Node gives them (and the A2A SDK keeps them). */
export type Headers = Record<string, string | string[] | undefined>;

let loading: Promise<OtelApi | undefined> | undefined;

function loadApi(): Promise<OtelApi | undefined> {
  return (loading ??= (import(/* webpackIgnore: true */ /* @vite-ignore */ SPECIFIER) as Promise<OtelApi>).then(
    (api) => api,
    () => undefined,
  ));
}

/**
 * The trace headers of the span a tool call runs in: the one of its call in a traced run (the
 * telemetry parent in `configurable`), else the active context's, when a context manager is
 * registered. Written by the global propagator when one is registered; `traceparent` (and
 * `tracestate`) written here otherwise. Undefined when there is no span (telemetry off) or no
 * `@opentelemetry/api`.
 */
export async function traceHeaders(configurable: Record<string, unknown> | undefined): Promise<Record<string, string> | undefined> {
  try {
    return await headersOf(configurable);
  } catch {
    return undefined; // a context manager or propagator that fails: the call goes without a trace, never fails for it
  }
}

async function headersOf(configurable: Record<string, unknown> | undefined): Promise<Record<string, string> | undefined> {
  const given = (configurable?.[TELEMETRY_PARENT_KEY] as { context?: Context } | undefined)?.context;
  const registered = (globalThis as { [API_GLOBALS]?: { context?: unknown } })[API_GLOBALS];
  if (given === undefined && registered?.context === undefined) return undefined;
  const api = await loadApi();
  if (api === undefined) return undefined;
  const context = given ?? api.context.active();
  const span = api.trace.getSpanContext(context);
  if (span === undefined || !api.isSpanContextValid(span)) return undefined;
  const headers: Record<string, string> = {};
  if (api.propagation.fields().length > 0) api.propagation.inject(context, headers);
  if (headers["traceparent"] === undefined) {
    headers["traceparent"] = formatTraceparent(span);
    const state = span.traceState?.serialize();
    if (state) headers["tracestate"] = state;
  }
  return headers;
}

/** The one value of a header (by any case of its name); undefined when absent or repeated. */
function header(headers: Headers, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (Array.isArray(value)) return value.length === 1 ? value[0] : undefined;
    return value;
  }
  return undefined;
}

/**
 * The context a served run starts under: the remote span of a request's valid `traceparent` (with
 * its `tracestate`), through the global propagator when one is registered. Undefined for a missing
 * or malformed `traceparent` (never an error), without `@opentelemetry/api`, or when the active
 * span is in that trace already (the request's span, made by HTTP instrumentation).
 */
export async function remoteContext(headers: Headers | undefined): Promise<Context | undefined> {
  try {
    return await contextOf(headers);
  } catch {
    return undefined; // a context manager or propagator that fails: the run starts a new trace
  }
}

async function contextOf(headers: Headers | undefined): Promise<Context | undefined> {
  if (headers === undefined || typeof headers !== "object") return undefined;
  const parent = parseTraceparent(header(headers, "traceparent"));
  if (parent === undefined) return undefined;
  const api = await loadApi();
  if (api === undefined) return undefined;
  // A server with HTTP instrumentation has started the request's span in the caller's trace
  // already: the run starts under it, the active context.
  if (api.trace.getSpanContext(api.context.active())?.traceId === parent.traceId) return undefined;
  if (api.propagation.fields().length > 0) {
    const extracted = api.propagation.extract(api.ROOT_CONTEXT, headers);
    const span = api.trace.getSpanContext(extracted);
    if (span !== undefined && api.isSpanContextValid(span)) return extracted;
  }
  const state = header(headers, "tracestate");
  const span: SpanContext = { ...parent, isRemote: true, ...(state ? { traceState: api.createTraceState(state) } : {}) };
  return api.trace.setSpanContext(api.ROOT_CONTEXT, span);
}
