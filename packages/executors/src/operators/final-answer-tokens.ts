import { EARLY_STOP_OUTPUT, InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { Observable, type OperatorFunction } from "rxjs";
import type { AgentStreamEvent, OutputEvent } from "../executor/events";

/**
 * Options of {@link finalAnswerTokens}.
 *
 * @example
 * ```ts
 * import { finalAnswerTokens, type FinalAnswerTokensOptions } from "@agentrx/executors";
 *
 * const react: FinalAnswerTokensOptions = { answerPrefix: "Final Answer:" };
 * const answerTokens = finalAnswerTokens(react); // streams live after the prefix
 * ```
 */
export interface FinalAnswerTokensOptions {
  /**
   * Text that marks the start of the final answer in the model's output, such as
   * `"Final Answer:"` for ReAct agents. With it, tokens stream live as soon as the prefix has
   * been seen in a model call (also when the prefix is split across tokens); the prefix and the
   * whitespace after it are not emitted. Without it, each model call's tokens are held until
   * the run shows whether that call was the final answer.
   */
  answerPrefix?: string;
}

/**
 * Keeps only the final answer's tokens of an `AgentExecutor.stream()` run, as strings.
 *
 * While a model call streams, nobody knows yet whether it will end in tool calls or in the
 * answer. So by default the tokens of each model call (iteration) are held back: an `action`
 * or `step` event of that iteration drops them, and the `output` event releases them, one value
 * per token, when they end with the output (the tokens are cut where the output starts, and
 * whitespace the parser trimmed after it is dropped).
 * Otherwise (a forced stop, a `returnDirect` tool, a model that does not stream, a parser that
 * rewrites the text) the output is emitted as one value. Either way the values joined are the
 * whole final answer (nothing is emitted for an empty answer), and the result completes when the
 * run does. The price of the default is latency: the answer arrives when the run ends.
 *
 * With `answerPrefix`, tokens after the prefix stream live. Whitespace at the end of a token is
 * held back until more text follows, since parsers trim the answer. If the prefix never shows,
 * the output is emitted as one value at the end; if the output continues what was streamed, the
 * rest is emitted. Live tokens cannot be taken back: when they turn out not to be the answer (a
 * model that writes the prefix and then still calls a tool, or a run cut short by a limit or a
 * budget while the answer streamed), the real output follows them, whole. So the values joined
 * end with the output, and equal it whenever the streamed answer was the final one.
 *
 * Each `start` event begins a segment afresh (`replayRun` plays a resumed run back as segments):
 * a model call cut off at a segment's end is made again in the next as the same iteration, so its
 * streamed text is not taken for the start of the retry's.
 *
 * Unsubscribing from the result unsubscribes from the run (and so cancels it).
 *
 * @example
 * ```ts
 * import { finalAnswerTokens, type AgentStreamEvent } from "@agentrx/executors";
 * import { from } from "rxjs";
 *
 * const run = from<AgentStreamEvent[]>([
 *   { type: "token", iteration: 0, text: "Let me look." },
 *   { type: "action", iteration: 0, action: { tool: "search", toolInput: {}, log: "" }, messages: [] },
 *   { type: "token", iteration: 1, text: "It is " },
 *   { type: "token", iteration: 1, text: "sunny." },
 *   { type: "output", output: "It is sunny.", returnValues: { output: "It is sunny." }, messages: [], stopReason: "finish" },
 * ]);
 * run.pipe(finalAnswerTokens()).subscribe((text) => process.stdout.write(text)); // "It is sunny."
 * ```
 */
export function finalAnswerTokens(
  options: FinalAnswerTokensOptions = {},
): OperatorFunction<AgentStreamEvent, string> {
  checkOptionKeys("finalAnswerTokens", options, ["answerPrefix"] satisfies (keyof FinalAnswerTokensOptions)[]);
  const { answerPrefix } = options ?? {};
  if (answerPrefix !== undefined && (typeof answerPrefix !== "string" || answerPrefix.length === 0)) {
    throw new InvalidArgumentError({
      argument: "answerPrefix",
      value: answerPrefix,
      message: `finalAnswerTokens: \`answerPrefix\` must be a non-empty string such as "Final Answer:", got ${JSON.stringify(answerPrefix)}.`,
    });
  }
  return (events) =>
    new Observable<string>((subscriber) => {
      const tracker = answerPrefix === undefined ? bufferedTracker() : prefixTracker(answerPrefix);
      return events.subscribe({
        next: (event) => {
          if (event.subRun !== undefined) return; // a sub-run's answer is a tool result, not the run's
          switch (event.type) {
            case "start":
              tracker.segment();
              break;
            case "token":
              tracker.token(event.iteration, event.text, (text) => subscriber.next(text));
              break;
            case "action":
            case "step":
              tracker.notFinal(event.iteration);
              break;
            case "output":
              for (const text of tracker.output(event)) {
                if (subscriber.closed) return;
                subscriber.next(text);
              }
              break;
            default:
              break;
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}

interface Tracker {
  /**
   * A segment of the run starts (a recorded run played back by `replayRun` has one per resume): a
   * model call cut off at the end of the last one is made again as the same iteration, so what it
   * streamed is not the start of the retry's text.
   */
  segment(): void;
  token(iteration: number, text: string, emit: (text: string) => void): void;
  notFinal(iteration: number): void;
  output(event: OutputEvent): string[];
}

/** Holds the latest model call's tokens until the run shows whether they were the answer. */
function bufferedTracker(): Tracker {
  let iteration = -1;
  let tokens: string[] = [];
  const notFinal = new Set<number>();
  return {
    segment() {
      iteration = -1;
      tokens = [];
    },
    token(at, text) {
      if (notFinal.has(at)) return;
      if (at !== iteration) {
        iteration = at;
        tokens = [];
      }
      tokens.push(text);
    },
    notFinal(at) {
      notFinal.add(at);
      if (at === iteration) tokens = [];
    },
    output({ output }) {
      const held = tokens;
      tokens = [];
      if (output === "") return [];
      // The tokens end with the answer, perhaps followed by whitespace the parser trimmed, and
      // preceded by text that is not part of it (whitespace, a "Final Answer:" marker, or what a
      // call cut short by a limit streamed before the "generate" call of the same iteration).
      const joined = held.join("");
      const end = joined.trimEnd().length;
      const start = end - output.length;
      if (start >= 0 && joined.slice(start, end) === output) return sliceTokens(held, start, end);
      return [output];
    },
  };
}

/** Streams a model call's tokens live once `prefix` has been seen in its text. */
function prefixTracker(prefix: string): Tracker {
  let iteration = -1;
  let seen = ""; // the end of the current call's text, until the prefix shows
  let live = -1; // the iteration streaming the answer, if any
  let leading = true; // still skipping whitespace right after the prefix
  let streamed = ""; // the answer text emitted so far
  let trailing = ""; // whitespace held back: parsers trim the answer, so it may never belong to it
  const notFinal = new Set<number>();
  const send = (text: string, emit: (text: string) => void) => {
    let rest = trailing + text;
    if (leading) {
      rest = rest.replace(/^\s+/, "");
      if (rest === "") return;
      leading = false;
    }
    const body = rest.replace(/\s+$/, "");
    trailing = rest.slice(body.length);
    if (body === "") return;
    streamed += body;
    emit(body);
  };
  return {
    segment() {
      // What the cut-off call streamed stays `streamed`: a retry that streams again starts a new
      // answer at its prefix, and one that does not (a resume under `invoke`) is followed by the
      // rest of the output.
      iteration = -1;
      seen = "";
      live = -1;
      trailing = "";
    },
    token(at, text, emit) {
      if (notFinal.has(at)) return;
      if (at === live) {
        send(text, emit);
        return;
      }
      if (at !== iteration) {
        iteration = at;
        seen = "";
      }
      seen += text;
      const index = seen.indexOf(prefix);
      if (index === -1) {
        // Only the end of the text can still start the prefix: keep that much, not the whole call.
        seen = seen.slice(Math.max(seen.length - prefix.length + 1, 0));
        return;
      }
      const after = seen.slice(index + prefix.length);
      live = at;
      leading = true;
      streamed = "";
      trailing = "";
      seen = "";
      send(after, emit);
    },
    notFinal(at) {
      notFinal.add(at);
      if (at === iteration) seen = "";
      if (at === live) {
        live = -1;
        streamed = "";
        trailing = "";
      }
    },
    output({ output, stopReason }) {
      const sent = streamed;
      streamed = "";
      trailing = "";
      if (output === "") return [];
      // The output goes on from what was streamed (the usual case), or it is another text: the
      // "force" text or a "generate" call's answer after a call cut short mid-answer. Streamed
      // tokens cannot be taken back, but the output must not be lost: it follows them whole.
      // (The "force" text is recognised as such: a streamed "A" must not make it "gent stopped…".)
      const forcedStop = stopReason !== "finish" && output === EARLY_STOP_OUTPUT;
      if (sent !== "" && !forcedStop && output.startsWith(sent)) {
        const rest = output.slice(sent.length);
        return rest === "" ? [] : [rest];
      }
      return [output];
    },
  };
}

/** The tokens covering characters `start` to `end` of their concatenation, cut at both ends. */
function sliceTokens(tokens: string[], start: number, end: number): string[] {
  const sliced: string[] = [];
  let offset = 0;
  for (const token of tokens) {
    const from = Math.max(start - offset, 0);
    const to = Math.min(end - offset, token.length);
    if (to > from) sliced.push(token.slice(from, to));
    offset += token.length;
  }
  return sliced;
}
