import type { Link, Span } from "@opentelemetry/api";

// How the segments of one run find each other across traces: a run's record keeps the W3C
// `traceparent` of its segment's `invoke_agent` span (in its checkpoint), and the span of the
// segment that resumes it links to that one (docs/telemetry.md, "The spans"). @internal

/** A traced run segment: the `traceparent` of its `invoke_agent` span, for its record. @internal */
export interface SegmentTrace {
  /** The W3C `traceparent` of the run's `invoke_agent` span; undefined before it starts, or when it is not sampled into a real trace. */
  traceparent(): string | undefined;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/**
 * The W3C `traceparent` (version 00) of `span`; undefined for a span without a valid context (a
 * non-recording span without a tracer provider has all-zero ids). @internal
 */
export function traceparentOf(span: Span | undefined): string | undefined {
  const context = span?.spanContext();
  if (context === undefined) return undefined;
  const { traceId, spanId, traceFlags } = context;
  const value = `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, "0")}`;
  return readTraceparent(value) === undefined ? undefined : value;
}

/**
 * The link from a resumed segment's span to the span of the segment before it (`traceparent`, as
 * the run's checkpoint kept it): undefined without one. A value that is not a valid version-00
 * `traceparent` (a record changed by hand, say) makes no link: a resume never fails for its trace.
 * @internal
 */
export function linksTo(traceparent: unknown): Link[] | undefined {
  const context = readTraceparent(traceparent);
  return context === undefined ? undefined : [{ context }];
}

function readTraceparent(value: unknown): Link["context"] | undefined {
  if (typeof value !== "string") return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, traceId = "", spanId = "", flags = "00"] = match;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
}
