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
 * The first message where a diverging call's conversation and the recorded call's differ (see
 * {@link ReplayDivergenceError.firstDifference}).
 *
 * @example
 * ```ts
 * import type { MessageDifference } from "@agentrx/runs";
 *
 * const difference: MessageDifference = {
 *   index: 3,
 *   actual: { role: "tool", text: "Cloudy, 17 °C" },
 *   recorded: { role: "tool", text: "Sunny, 21 °C" },
 * };
 * ```
 */
export interface MessageDifference {
  /** The message's 0-based position in the conversation. */
  index: number;
  /** The message this call sent there (its type, `"system"`, `"human"`, `"ai"`, `"tool"`, and its text); `undefined` when it sent fewer messages. */
  actual: { role: string; text: string } | undefined;
  /** The message the recorded call sent there; `undefined` when it sent fewer messages. */
  recorded: { role: string; text: string } | undefined;
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
 * `actual` what the recording and the re-run sent. When the run was recorded with its prompts
 * (`recordPrompts`, on by default for `stream()`, `resume` and `fork`), `firstDifference` and the
 * message name the first message that differs, its role and both texts; otherwise the record
 * holds only a digest of the messages, and the message says how to record them.
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
  /**
   * With reason `"count"` or `"content"`, when the recorded call recorded its prompt
   * (`recordPrompts`): the first message that differs. `undefined` otherwise.
   */
  readonly firstDifference: MessageDifference | undefined;

  constructor({
    runId,
    call,
    iteration,
    expected,
    actual,
    recordedCalls,
    leftOut,
    firstDifference,
    promptRecorded = false,
  }: {
    runId: string;
    call: number;
    iteration?: number;
    expected?: ModelCallInput;
    actual: ModelCallInput;
    recordedCalls: number;
    /** The recorded call matched, but its reply holds this text in place of a part the record left out. */
    leftOut?: string;
    /** The first message that differs, when the recorded call's prompt was recorded. */
    firstDifference?: MessageDifference;
    /** Whether the recorded call recorded its prompt (`recordPrompts`); without it the message says how to. @default false */
    promptRecorded?: boolean;
  }) {
    const reason: ReplayDivergenceReason =
      expected === undefined ? "exhausted" : expected.inputCount !== actual.inputCount ? "count" : leftOut !== undefined ? "incomplete" : "content";
    const difference = reason === "count" || reason === "content" ? firstDifference : undefined;
    super({ name: "ReplayDivergenceError", message: messageOf(reason, runId, call, iteration, expected, actual, recordedCalls, leftOut, difference, promptRecorded) });
    this.runId = runId;
    this.call = call;
    this.iteration = iteration;
    this.expected = expected;
    this.actual = actual;
    this.recordedCalls = recordedCalls;
    this.reason = reason;
    this.leftOut = reason === "incomplete" ? leftOut : undefined;
    this.firstDifference = difference;
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
  difference: MessageDifference | undefined,
  promptRecorded: boolean,
): string {
  const which = `model call ${call} (0-based${iteration === undefined ? "" : `, iteration ${iteration}`}) of the re-run of run "${runId}"`;
  if (reason === "exhausted" || expected === undefined) {
    return `RecordedChatModel: ${which} goes past the end of the recording: the recording has only ${recordedCalls} model call${recordedCalls === 1 ? "" : "s"}. The re-run took another path than the recorded run. ${FIX}`;
  }
  if (reason === "incomplete") {
    return `RecordedChatModel: ${which} cannot be answered as recorded: the record holds only part of the model's reply (${leftOut}). Answering with it would give the agent other tool arguments than the model gave. Record the run again with shallower values, or replay it up to this call only.`;
  }
  const sent = `it was sent ${actual.inputCount} message${actual.inputCount === 1 ? "" : "s"}`;
  if (reason === "count") {
    const first = difference === undefined ? ` ${howToSee(promptRecorded)}` : ` The first message that differs: ${describe(difference)}.`;
    return `RecordedChatModel: ${which} diverges from the recording: ${sent}, the recorded call was sent ${expected.inputCount}.${first} ${FIX}`;
  }
  const what = difference === undefined ? ` (digest ${actual.inputDigest}, recorded ${expected.inputDigest}). ${howToSee(promptRecorded)}` : `: ${describe(difference)}.`;
  return `RecordedChatModel: ${which} diverges from the recording: ${sent}, as the recorded call was, but their content differs${what} ${FIX}`;
}

/** Where to see which message differs, when the error cannot say. */
function howToSee(promptRecorded: boolean): string {
  return promptRecorded
    ? "readPrompts(store, runId) gives the messages the recorded call was sent."
    : "The record keeps only a digest of the messages sent: record the run with `recordPrompts: true` (on by default for stream(), resume and fork) for this error to name the message that differs, and readPrompts(store, runId) to read them.";
}

/** The first message that differs, in words: its position, role and both texts (cut). */
function describe({ index, actual, recorded }: MessageDifference): string {
  if (actual === undefined) return `the recorded call's message ${index} (${recorded?.role}), ${quoted(recorded?.text ?? "")}, was not sent`;
  if (recorded === undefined) return `message ${index} (${actual.role}), ${quoted(actual.text)}, is not in the recorded call`;
  if (actual.role === recorded.role && actual.text === recorded.text) {
    return `message ${index} (${actual.role}) has the recorded text but other tool calls, name or tool-call id`;
  }
  const [now, then] = excerpts(actual.text, recorded.text);
  const recordedRole = actual.role === recorded.role ? "" : `message ${index} (${recorded.role}) `;
  return `message ${index} (${actual.role}) is ${now}, the recorded call's ${recordedRole}was ${then}`;
}

const EXCERPT = 100;

/** The two texts quoted, each cut to about 100 characters around where they start to differ. */
function excerpts(a: string, b: string): [string, string] {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  const start = at < EXCERPT - 20 ? 0 : at - 20;
  return [quoted(a, start), quoted(b, start)];
}

function quoted(text: string, start = 0): string {
  const part = text.slice(start, start + EXCERPT);
  return `${start > 0 ? "…" : ""}${JSON.stringify(part)}${start + EXCERPT < text.length ? `… (${text.length} characters)` : ""}`;
}
