import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.SubRunDepthError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * A `handoff` or `asTool` call would start a sub-run nested deeper than the tool's `maxDepth`
 * (10 by default): agents that hand off to, or call, each other in a loop. Nothing was started;
 * the call fails with this error, so the calling agent's model reads it (with
 * `handleToolRuntimeErrors` on, the default) and can answer itself. Raise the tool's `maxDepth`
 * when an agent tree is that deep on purpose (see docs/agent-types.md, "Handoffs").
 *
 * @example
 * ```ts
 * import { SubRunDepthError } from "@agentrx/executors";
 *
 * const error = new SubRunDepthError({ label: 'handoff "to_a"', path: ["to_b", "to_a"], maxDepth: 1 });
 * console.log(SubRunDepthError.isInstance(error), error.depth); // true 2
 * ```
 */
export class SubRunDepthError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The sub-runs from the top run down, by their tools' names, the one the call would start last. */
  readonly path: readonly string[];
  /** How deep the sub-run would have been (`path.length`; the top run's own tools start sub-runs at depth 1). */
  readonly depth: number;
  /** The tool's `maxDepth`. */
  readonly maxDepth: number;

  constructor({ label, path, maxDepth }: { label: string; path: readonly string[]; maxDepth: number }) {
    const last = path.at(-1) ?? "";
    super({
      name: "SubRunDepthError",
      message:
        `${label} would start a sub-run ${path.length} levels deep (${path.join(" > ")}), deeper than its maxDepth of ${maxDepth}: ` +
        "agents that hand off to or call each other in a loop would never end, so it was not started. " +
        `Answer without calling "${last}" again; if the agent tree is meant to be that deep, raise the tool's \`maxDepth\`.`,
    });
    this.path = [...path];
    this.depth = path.length;
    this.maxDepth = maxDepth;
  }

  /** Returns true when `error` is a {@link SubRunDepthError} (from any copy of the package). */
  static override isInstance(error: unknown): error is SubRunDepthError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
