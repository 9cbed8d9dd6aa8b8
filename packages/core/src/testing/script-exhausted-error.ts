import { AgentRxError } from "../errors/agentrx-error";

const MARKER = "agentrx.error.ScriptExhaustedError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * A `ScriptedChatModel` was called more often than its script has responses.
 *
 * @example
 * ```ts
 * import { ScriptExhaustedError } from "@agentrx/core/testing";
 *
 * const error = new ScriptExhaustedError({ callIndex: 2, scriptLength: 2 });
 * console.log(error.message);
 * ```
 */
export class ScriptExhaustedError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The 0-based index of the call that found no response. */
  readonly callIndex: number;
  /** How many responses the script has. */
  readonly scriptLength: number;

  constructor({ callIndex, scriptLength }: { callIndex: number; scriptLength: number }) {
    super({
      name: "ScriptExhaustedError",
      message:
        `ScriptedChatModel received call #${callIndex + 1} but its script has only ${scriptLength} ` +
        `response${scriptLength === 1 ? "" : "s"}. Add responses, or set onExhausted to "repeat-last" or "cycle".`,
    });
    this.callIndex = callIndex;
    this.scriptLength = scriptLength;
  }

  /** Returns true when `error` is a {@link ScriptExhaustedError} (from any copy of the package). */
  static override isInstance(error: unknown): error is ScriptExhaustedError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}
