// A tracer whose failures never reach the run: a span processor that throws in `onEnd`, an exporter
// that throws, a tracer of the user's whose spans lack a method, whose methods return promises that
// reject, or whose `startSpan` returns something that is not a span. Tracing is an observer of the
// run; its failure is reported once, as a process warning, and the run goes on (docs/telemetry.md).
import type { Attributes, AttributeValue, Exception, Link, Span, SpanContext, SpanStatus, TimeInput, Tracer } from "@opentelemetry/api";
import { processWarning } from "../executor/process-warning";

/** The code of the warning a failing tracer gives. */
export const TELEMETRY_FAILED_WARNING = "AGENTRX_TELEMETRY_FAILED";

/** What a span that could not be made, or whose `spanContext` throws, answers: an invalid (all-zero) context. */
const INVALID_CONTEXT: SpanContext = { traceId: "00000000000000000000000000000000", spanId: "0000000000000000", traceFlags: 0 };

const SAFE = new WeakMap<object, Tracer>();
const SAFE_TRACERS = new WeakSet<object>();

/**
 * `tracer` with every call into it, and into the spans it makes, guarded: what throws is reported
 * (once per tracer) and otherwise ignored. The same wrapper for the same tracer.
 *
 * @internal
 */
export function safeTracer(tracer: Tracer): Tracer {
  if (SAFE_TRACERS.has(tracer)) return tracer;
  const known = SAFE.get(tracer);
  if (known !== undefined) return known;
  let reported = false;
  const report: Report = (error, what = `the telemetry tracer threw (${describe(error)})`) => {
    if (reported) return;
    reported = true;
    processWarning(`AgentExecutor: ${what}; the run goes on, and its spans may be incomplete. This warning is given once per tracer.`, TELEMETRY_FAILED_WARNING);
  };
  const safe: Tracer = {
    startSpan(name, options, context) {
      let span: unknown;
      try {
        span = tracer.startSpan(name, options, context);
      } catch (error) {
        report(error);
        return new SafeSpan(undefined, report);
      }
      if (typeof span === "object" && span !== null && !isThenable(span)) return new SafeSpan(span as Span, report);
      // Not a span: a number, null, or a promise (an async `startSpan`), whose rejection is handled here.
      if (isThenable(span)) span.then(undefined, noop);
      report(span, `the telemetry tracer's startSpan returned ${isThenable(span) ? "a promise, not a span (startSpan must return the span itself)" : `${describe(span)}, not a span`}`);
      return new SafeSpan(undefined, report);
    },
    startActiveSpan: ((...args: unknown[]) => (tracer.startActiveSpan as (...given: unknown[]) => unknown)(...args)) as Tracer["startActiveSpan"],
  };
  SAFE.set(tracer, safe);
  SAFE_TRACERS.add(safe);
  return safe;
}

/** A span whose methods never throw (see {@link safeTracer}). */
class SafeSpan implements Span {
  constructor(
    private readonly inner: Span | undefined,
    private readonly report: Report,
  ) {}

  /**
   * Calls the inner span's method `name` with `args`, if it has one; what throws is reported, and
   * so is the rejection of a promise it returns (span methods are synchronous: it is not awaited).
   */
  private call(name: keyof Span, ...args: unknown[]): unknown {
    let result: unknown;
    try {
      const method = (this.inner as unknown as Record<string, unknown> | undefined)?.[name];
      result = typeof method === "function" ? (method as (...given: unknown[]) => unknown).apply(this.inner, args) : undefined;
    } catch (error) {
      this.report(error);
      return undefined;
    }
    if (isThenable(result)) {
      result.then(undefined, (error: unknown) => this.report(error, `the telemetry tracer's span.${name} returned a promise that rejected (${describe(error)})`));
    }
    return result;
  }

  spanContext(): SpanContext {
    const context = this.call("spanContext") as SpanContext | undefined;
    return typeof context?.traceId === "string" && typeof context.spanId === "string" ? context : INVALID_CONTEXT;
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.call("setAttribute", key, value);
    return this;
  }
  setAttributes(attributes: Attributes): this {
    this.call("setAttributes", attributes);
    return this;
  }
  addEvent(name: string, attributesOrStartTime?: Attributes | TimeInput, startTime?: TimeInput): this {
    this.call("addEvent", name, attributesOrStartTime, startTime);
    return this;
  }
  addLink(link: Link): this {
    this.call("addLink", link);
    return this;
  }
  addLinks(links: Link[]): this {
    this.call("addLinks", links);
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.call("setStatus", status);
    return this;
  }
  updateName(name: string): this {
    this.call("updateName", name);
    return this;
  }
  end(endTime?: TimeInput): void {
    this.call("end", endTime);
  }
  isRecording(): boolean {
    return this.call("isRecording") === true;
  }
  recordException(exception: Exception, time?: TimeInput): void {
    this.call("recordException", exception, time);
  }
}

/** Reports a failure of the tracer: `error`, and what went wrong (by default, that the tracer threw it). */
type Report = (error: unknown, what?: string) => void;

/** Whether `value` is a promise (or any thenable). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

function noop(): void {}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return "an error that cannot be shown";
  }
}

