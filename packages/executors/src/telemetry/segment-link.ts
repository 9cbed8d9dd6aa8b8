import type { Attributes, Link, Span } from "@opentelemetry/api";
import type { ForkOf } from "../runs/run-store";
import { formatTraceparent, parseTraceparent } from "./traceparent";

// How the segments of one run find each other across traces: a run's record keeps the W3C
// `traceparent` of its last traced segment's `invoke_agent` span (in its checkpoint; a segment that
// is not traced keeps the one before), and the span of the next traced segment links to that one;
// a fork's first span links to its source run's last traced segment the same way, and the fork's
// record starts with that `traceparent` (docs/telemetry.md, "The spans"). @internal

/** A traced run segment: the `traceparent` of its `invoke_agent` span, for its record. @internal */
export interface SegmentTrace {
  /** The W3C `traceparent` of the run's `invoke_agent` span; undefined before it starts, or when it is not sampled into a real trace. */
  traceparent(): string | undefined;
}

/**
 * The `invoke_agent` span of a top run's segment (not a sub-run's: a sub-run is resumed only with
 * its caller), kept for its `traceparent` after it ends; read when the run's record first asks (an
 * unrecorded run never does). @internal
 */
export class SegmentSpan implements SegmentTrace {
  private span: Span | undefined;
  /** Its `traceparent`, once read (null: it has none). */
  private value: string | null | undefined;

  /** Keeps the segment's span (the first one given). */
  keep(span: Span | undefined): void {
    this.span ??= span;
  }

  traceparent(): string | undefined {
    if (this.value === undefined && this.span !== undefined) this.value = traceparentOf(this.span) ?? null;
    return this.value ?? undefined;
  }
}

/**
 * Where a top run segment's record reads the `traceparent` it keeps: its own span's (`own`, when
 * the segment is traced), else `previous`, the one its record kept of the last traced segment
 * before it (a fork's first segment: its source's), when that is a valid one. So a segment that is
 * not traced, or whose span has not started yet or has no valid context, keeps the last traced
 * segment's, and the next traced segment links to that one rather than to nothing
 * (docs/telemetry.md, "The spans"). Undefined when there is neither. @internal
 */
export function keptTrace(own: SegmentTrace | undefined, previous: unknown): SegmentTrace | undefined {
  if (parseTraceparent(previous) === undefined) return own;
  const kept = previous as string;
  return { traceparent: () => own?.traceparent() ?? kept };
}

/**
 * The W3C `traceparent` (version 00) of `span`; undefined for a span without a valid context (a
 * non-recording span without a tracer provider has all-zero ids). @internal
 */
export function traceparentOf(span: Span | undefined): string | undefined {
  const context = span?.spanContext();
  if (context === undefined) return undefined;
  const value = formatTraceparent(context);
  return parseTraceparent(value) === undefined ? undefined : value;
}

/**
 * The link from a resumed segment's span to the span of the segment before it (`traceparent`, as
 * the run's checkpoint kept it): undefined without one. A value that is not a valid version-00
 * `traceparent` (see `parseTraceparent`; a record changed by hand, say) makes no link: a resume never fails for its trace.
 * @internal
 */
export function linksTo(traceparent: unknown): Link[] | undefined {
  const parent = parseTraceparent(traceparent);
  return parent === undefined ? undefined : [{ context: { ...parent, isRemote: true } }];
}

/** How a top run's segment span starts: its link to the span before it, and what names its source. @internal */
export interface SegmentStart {
  /** The link to the span of the segment before (see {@link linksTo}): the paused one, or a fork's source's. */
  links?: Link[];
  /** A fork's first segment: the run it was copied from and its fork point (see {@link forkAttributes}). */
  attributes?: Attributes;
}

/**
 * How a top run's segment span starts: linked to `previous` (the `traceparent` its record kept of
 * the segment before; a fork's: its source's), and, for a fork's first segment (`forkOf`), with the
 * attributes that name its source. Undefined when there is neither. @internal
 */
export function segmentStart(previous: unknown, forkOf: ForkOf | undefined): SegmentStart | undefined {
  const links = linksTo(previous);
  if (forkOf === undefined) return links === undefined ? undefined : { links };
  const attributes = forkAttributes(forkOf);
  return links === undefined ? { attributes } : { links, attributes };
}

/**
 * The attributes of a fork's first `invoke_agent` span: `agentrx.fork_of.run.id` (the source run)
 * and `agentrx.fork_of.iteration` (the fork point: the copy holds the source's iterations before
 * it), as the fork's record has them (`forkOf`). The GenAI conventions have none for this. @internal
 */
export function forkAttributes(forkOf: ForkOf): Attributes {
  return { "agentrx.fork_of.run.id": forkOf.runId, "agentrx.fork_of.iteration": forkOf.iteration };
}
