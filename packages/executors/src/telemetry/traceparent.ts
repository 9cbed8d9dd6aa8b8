// W3C Trace Context `traceparent` values: what a run's record keeps of its segment's span (see
// docs/telemetry.md) and what @agentrx/serve reads from and sends in A2A requests.

/**
 * What a valid `traceparent` says.
 *
 * @example
 * ```ts
 * import type { TraceParent } from "@agentrx/executors";
 *
 * const parent: TraceParent = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 };
 * ```
 */
export interface TraceParent {
  /** 32 lowercase hex digits, not all zeros. */
  traceId: string;
  /** 16 lowercase hex digits, not all zeros. */
  spanId: string;
  /** The trace flags (bit 0: sampled). */
  traceFlags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZEROS = /^0+$/;

/**
 * A `traceparent` value, strictly as W3C Trace Context has it: lowercase hex; version `ff`
 * invalid; version `00` exactly its four fields, a later version possibly more after a `-`; trace
 * and span ids not all zeros. Undefined for anything else, a value that is not a string included.
 *
 * @internal
 * @example
 * ```ts
 * import { parseTraceparent } from "@agentrx/executors";
 *
 * console.log(parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")?.spanId); // "00f067aa0ba902b7"
 * console.log(parseTraceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01")); // undefined
 * ```
 */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  const match = typeof value === "string" ? TRACEPARENT.exec(value) : null;
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (ZEROS.test(traceId) || ZEROS.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

/**
 * A span context as a version-00 `traceparent` value (no check that its ids are valid: see
 * {@link parseTraceparent}).
 *
 * @internal
 * @example
 * ```ts
 * import { formatTraceparent } from "@agentrx/executors";
 *
 * console.log(formatTraceparent({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 }));
 * // "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
 * ```
 */
export function formatTraceparent({ traceId, spanId, traceFlags }: TraceParent): string {
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}
