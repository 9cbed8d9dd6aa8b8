import type { Context, Span, SpanKind, SpanStatusCode, Tracer } from "@opentelemetry/api";

// What the telemetry handler needs of `@opentelemetry/api`, imported the first time a run with
// `telemetry` needs it and never without. The specifier is not a literal, so bundlers leave the
// import alone: a browser or edge bundle of @agentrx/executors does not need the package installed.
// Where it cannot be imported (such a bundle), a given tracer still works: contexts are then kept
// by the handler itself (under the API's own span key), and a run starts a new trace. @internal

type OtelApi = typeof import("@opentelemetry/api");

const SPECIFIER = "@opentelemetry/api";
/** `@opentelemetry/api`'s key of the span in a context (`createContextKey` uses `Symbol.for`). */
const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");
const PROBE_KEY = Symbol("agentrx context manager probe");
/** Where `@opentelemetry/api` (v1) keeps what is registered globally (its context manager under `context`). */
const API_GLOBALS = Symbol.for("opentelemetry.js.api.1");

/** `SpanKind` and `SpanStatusCode` values (stable API numbers). */
export const SPAN_KIND = { internal: 0 as SpanKind, client: 2 as SpanKind };
export const STATUS_ERROR = 2 as SpanStatusCode;

/** A context without the API: an immutable map of values. */
class BareContext implements Context {
  constructor(private readonly values: ReadonlyMap<symbol, unknown> = new Map()) {}
  getValue(key: symbol): unknown {
    return this.values.get(key);
  }
  setValue(key: symbol, value: unknown): Context {
    return new BareContext(new Map(this.values).set(key, value));
  }
  deleteValue(key: symbol): Context {
    const values = new Map(this.values);
    values.delete(key);
    return new BareContext(values);
  }
}

/** The parts of the API the handler uses. */
export interface Otel {
  /** The active context (the root, without the API). */
  active(): Context;
  /** `context` with `span` as its span. */
  withSpan(context: Context, span: Span): Context;
  /** The global provider's tracer; undefined without the API. */
  defaultTracer(): Tracer | undefined;
  /** Runs `fn` with `context` active (the registered context manager's `with`; without the API, just `fn`). */
  withContext<T>(context: Context, fn: () => T): T;
  /**
   * Whether a context manager is registered (`context.active()` inside `context.with` returns the
   * context given): without one, making a context only to run a call in it is wasted work.
   */
  keepsContext(): boolean;
}

const ROOT = new BareContext();
/** The parts without the API. */
export const bareOtel: Otel = {
  active: () => ROOT,
  withSpan: (context, span) => context.setValue(SPAN_KEY, span),
  defaultTracer: () => undefined,
  withContext: (_context, fn) => fn(),
  keepsContext: () => false,
};

/**
 * The active context when it holds a span, read from the context manager registered with
 * `@opentelemetry/api` (without importing the package: nothing is loaded for it); undefined when
 * no context manager is registered or no span is active. @internal
 */
export function activeSpanContext(): Context | undefined {
  const manager = (globalThis as { [API_GLOBALS]?: { context?: { active?: () => Context } } })[API_GLOBALS]?.context;
  if (typeof manager?.active !== "function") return undefined;
  try {
    const active = manager.active();
    return active?.getValue(SPAN_KEY) === undefined ? undefined : active;
  } catch {
    return undefined; // a context manager that fails: as if none were registered
  }
}

let loading: Promise<Otel> | undefined;
/** Set once loaded, so later calls need no `await`. */
export let otel: Otel | undefined;

export function loadOtel(): Promise<Otel> {
  return (loading ??= (import(/* webpackIgnore: true */ /* @vite-ignore */ SPECIFIER) as Promise<OtelApi>).then(
    // A registered context manager that throws costs the run its trace's links, never the run.
    (api): Otel => ({
      active: () => {
        try {
          return api.context.active();
        } catch {
          return api.ROOT_CONTEXT;
        }
      },
      withSpan: (context, span) => api.trace.setSpan(context, span),
      defaultTracer: () => api.trace.getTracer("agentrx"),
      withContext: (context, fn) => {
        let called = false;
        try {
          return api.context.with(context, () => ((called = true), fn()));
        } catch (error) {
          if (called) throw error; // the call's own error
          return fn();
        }
      },
      keepsContext: () => {
        const probe = api.ROOT_CONTEXT.setValue(PROBE_KEY, true);
        try {
          return api.context.with(probe, () => api.context.active() === probe);
        } catch {
          return false;
        }
      },
    }),
    (): Otel => bareOtel,
  )).then((loaded) => (otel = loaded));
}
