// A tracer whose failures never reach the run: a span processor that throws in `onEnd`, an exporter
// that throws, a tracer of the user's whose spans lack a method. Tracing is an observer of the run;
// its failure is reported once, as a process warning, and the run goes on (docs/telemetry.md).
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
  const report = (error: unknown): void => {
    if (reported) return;
    reported = true;
    processWarning(`AgentExecutor: the telemetry tracer threw (${describe(error)}); the run goes on, and its spans may be incomplete. This warning is given once per tracer.`, TELEMETRY_FAILED_WARNING);
  };
  const safe: Tracer = {
    startSpan(name, options, context) {
      try {
        return new SafeSpan(tracer.startSpan(name, options, context), report);
      } catch (error) {
        report(error);
        return new SafeSpan(undefined, report);
      }
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
    private readonly report: (error: unknown) => void,
  ) {}

  /** Calls the inner span's method `name` with `args`, if it has one; what throws is reported. */
  private call(name: keyof Span, ...args: unknown[]): unknown {
    try {
      const method = (this.inner as unknown as Record<string, unknown> | undefined)?.[name];
      return typeof method === "function" ? (method as (...given: unknown[]) => unknown).apply(this.inner, args) : undefined;
    } catch (error) {
      this.report(error);
      return undefined;
    }
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

function describe(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return "an error that cannot be shown";
  }
}

