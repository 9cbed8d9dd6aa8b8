import { AgentRxError } from "@agentrx/core";

const MARKER = "agentrx.error.ReplayDivergenceError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/** What a model call was sent, as a recording keeps it: how many messages, and their digest. */
export interface ModelCallInput {
  /** How many messages were sent. */
  inputCount: number;
  /** A digest of the messages (see `digestMessages` in `@agentrx/executors`). */
  inputDigest: string;
}

/**
 * How a re-run left its recording: `"count"`, the call was sent another number of messages;
 * `"content"`, as many messages with other content; `"exhausted"`, the run made more model calls
 * than were recorded; `"incomplete"`, the call matched, but the record holds only part of its
 * reply (a part nested too deeply to record, see docs/runs.md), so the re-run would go on from
 * another answer than the model gave (its tools called with other arguments).
 */
export type ReplayDivergenceReason = "count" | "content" | "exhausted" | "incomplete";

/**
 * A `RecordedChatModel` was called with a conversation its recording does not have: the re-run
 * took another path than the recorded run (another input, prompt, tool result or agent), or made
 * more model calls than were recorded. `call` names the model call (0-based), `expected` and
 * `actual` what the recording and the re-run sent.
 *
 * @example
 * ```ts
 * import { ReplayDivergenceError } from "@agentrx/runs";
 *
 * const error = new ReplayDivergenceError({
 *   runId: "run-1",
 *   call: 1,
 *   iteration: 1,
 *   recordedCalls: 2,
 *   expected: { inputCount: 4, inputDigest: "393e70879c2be8a1" },
 *   actual: { inputCount: 4, inputDigest: "0f1e2d3c4b5a6978" },
 * });
 * console.log(ReplayDivergenceError.isInstance(error), error.reason); // true "content"
 * ```
 */
export class ReplayDivergenceError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The recorded run the model answers from. */
  readonly runId: string;
  /** The model call that diverged, 0-based over the run. */
  readonly call: number;
  /** The iteration (agent call) the recorded call belongs to; `undefined` past the end of the recording. */
  readonly iteration: number | undefined;
  /** What the recorded call was sent; `undefined` past the end of the recording. */
  readonly expected: ModelCallInput | undefined;
  /** What this call was sent. */
  readonly actual: ModelCallInput;
  /** How many model calls the recording has. */
  readonly recordedCalls: number;
  /** What differs. */
  readonly reason: ReplayDivergenceReason;
  /** With reason `"incomplete"`: the text that stands in the record for the part it left out. */
  readonly leftOut: string | undefined;

  constructor({
    runId,
    call,
    iteration,
    expected,
    actual,
    recordedCalls,
    leftOut,
  }: {
    runId: string;
    call: number;
    iteration?: number;
    expected?: ModelCallInput;
    actual: ModelCallInput;
    recordedCalls: number;
    /** The recorded call matched, but its reply holds this text in place of a part the record left out. */
    leftOut?: string;
  }) {
    const reason: ReplayDivergenceReason =
      expected === undefined ? "exhausted" : expected.inputCount !== actual.inputCount ? "count" : leftOut !== undefined ? "incomplete" : "content";
    super({ name: "ReplayDivergenceError", message: messageOf(reason, runId, call, iteration, expected, actual, recordedCalls, leftOut) });
    this.runId = runId;
    this.call = call;
    this.iteration = iteration;
    this.expected = expected;
    this.actual = actual;
    this.recordedCalls = recordedCalls;
    this.reason = reason;
    this.leftOut = reason === "incomplete" ? leftOut : undefined;
  }

  /** Returns true when `error` is a {@link ReplayDivergenceError} (from any copy of the package). */
  static override isInstance(error: unknown): error is ReplayDivergenceError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}

const FIX = "Re-run with the recorded inputs, prompt, agent and tools (tools that return what they returned then), or record the run again.";

function messageOf(
  reason: ReplayDivergenceReason,
  runId: string,
  call: number,
  iteration: number | undefined,
  expected: ModelCallInput | undefined,
  actual: ModelCallInput,
  recordedCalls: number,
  leftOut: string | undefined,
): string {
  const which = `model call ${call} (0-based${iteration === undefined ? "" : `, iteration ${iteration}`}) of the re-run of run "${runId}"`;
  if (reason === "exhausted" || expected === undefined) {
    return `RecordedChatModel: ${which} goes past the end of the recording: the recording has only ${recordedCalls} model call${recordedCalls === 1 ? "" : "s"}. The re-run took another path than the recorded run. ${FIX}`;
  }
  if (reason === "incomplete") {
    return `RecordedChatModel: ${which} cannot be answered as recorded: the record holds only part of the model's reply (${leftOut}). Answering with it would give the agent other tool arguments than the model gave. Record the run again with shallower values, or replay it up to this call only.`;
  }
  if (reason === "count") {
    return `RecordedChatModel: ${which} diverges from the recording: it was sent ${actual.inputCount} message${actual.inputCount === 1 ? "" : "s"}, the recorded call was sent ${expected.inputCount}. ${FIX}`;
  }
  return `RecordedChatModel: ${which} diverges from the recording: it was sent ${actual.inputCount} message${actual.inputCount === 1 ? "" : "s"}, as the recorded call was, but their content differs (digest ${actual.inputDigest}, recorded ${expected.inputDigest}). ${FIX}`;
}
