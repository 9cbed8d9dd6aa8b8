// Runtime-neutral: used by the `ui` server (its routes) and bundled into the pages' scripts (their links).

/**
 * A run id as one segment of a `ui` URL path (`/runs/<segment>`, `/api/runs/<segment>/...`): the id
 * percent-encoded, so `/`, `%`, `?` and `#` stay in the segment. The ids `.` and `..` would be
 * path steps the browser removes (`/runs/..` is `/`, and `%2E` counts as a dot too), so a `~`
 * goes before them; and before an id made of tildes and then one or two dots (`~.`, `~~..`), so
 * that {@link runIdOfRouteSegment} can tell which `~` was added. Every other id is only
 * percent-encoded, as before. See docs/trace-viewer.md.
 *
 * @example
 * ```ts
 * runRouteSegment("run 1"); // "run%201"
 * runRouteSegment(".."); // "~.."
 * ```
 *
 * @internal
 */
export function runRouteSegment(runId: string): string {
  return encodeURIComponent(DOTS.test(runId) ? `~${runId}` : runId);
}

/**
 * The run id of a path segment made by {@link runRouteSegment} (or typed: `run%201` and `run 1`
 * are the same run); `undefined` when the segment is malformed (a stray `%`, an escape that is
 * not UTF-8).
 *
 * @internal
 */
export function runIdOfRouteSegment(segment: string): string | undefined {
  let text: string;
  try {
    text = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  return ESCAPED_DOTS.test(text) ? text.slice(1) : text;
}

/** The path of a run's trace page in the `ui`. @internal */
export function runPagePath(runId: string): string {
  return `/runs/${runRouteSegment(runId)}`;
}

/** The path under which the `ui` serves a run's API (`/events`, `/text`, `/actions`). @internal */
export function runApiPath(runId: string): string {
  return `/api/runs/${runRouteSegment(runId)}`;
}

/** Ids that need a `~` before them: tildes (maybe none), then one or two dots. */
const DOTS = /^~*\.\.?$/;
/** Segments (decoded) that carry that `~`. */
const ESCAPED_DOTS = /^~+\.\.?$/;
