import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { Observable, type MonoTypeOperatorFunction } from "rxjs";
import type { AgentStreamEvent } from "../executor/events";
import {
  ANSI_STYLE,
  PLAIN_STYLE,
  INDENT,
  formatError,
  formatLine,
  label,
  printable,
  printableName,
  type TraceStyle,
} from "./trace-format";

/**
 * Options of {@link renderTrace} and {@link printTrace}.
 *
 * @example
 * ```ts
 * import { renderTrace, type RenderTraceOptions } from "@agentrx/executors";
 *
 * let log = "";
 * const options: RenderTraceOptions = { write: (text) => (log += text), usage: true, maxLength: 80 };
 * const trace = renderTrace(options);
 * ```
 */
export interface RenderTraceOptions {
  /**
   * Where the text goes. Called with whole lines, and with pieces of a line while tokens stream.
   * @default (text) => process.stdout.write(text); in Deno's Jupyter kernel, the running cell's output
   *   (its stdout stream, with colours under `"auto"`: front ends show them)
   */
  write?: (text: string) => void;
  /**
   * ANSI colours: `true` always, `false` never. `"auto"` decides for `process.stdout` (a custom
   * `write` gets plain text): a `FORCE_COLOR` environment variable decides first (`0` or `false`
   * turns colours off, any other value on, as in Node.js), else a non-empty `NO_COLOR` turns them
   * off, else they are on when stdout is a TTY or a notebook cell's output (Deno's Jupyter kernel).
   * @default "auto"
   */
  colors?: boolean | "auto";
  /**
   * Characters of a tool input or observation shown on its line (whitespace is collapsed and a
   * longer text ends with `…`). The final answer is never cut.
   * @default 120
   */
  maxLength?: number;
  /** Write the model's streamed text inline, on `model` lines. @default true */
  tokens?: boolean;
  /**
   * Write a `usage` line for every model call that reported token usage, ending with its cost when
   * the executor's `prices` priced it (`· $0.0012`), or `· unpriced` when they could not (see
   * docs/cost.md#calls-without-a-price).
   * @default false
   */
  usage?: boolean;
}

interface ResolvedTraceOptions {
  write: (text: string) => void;
  style: TraceStyle;
  maxLength: number;
  tokens: boolean;
  usage: boolean;
}

/**
 * Prints a run as a readable trace while passing its events through unchanged: one line per
 * `action` (tool and input), per `step` (tool, duration, observation, cut at a word boundary to
 * `maxLength`) and for the answer with its `stopReason` (and the budget that stopped it, as in
 * `(budget: tool_calls)`); the model's streamed text is written inline as it arrives, its
 * continuation lines indented under the label; other control characters are written as escapes
 * (`\u001b`), so an escape sequence in a model's or tool's text cannot act on the terminal. If
 * the run fails, an `error` line is written
 * before the error is passed on. Nothing is printed until the result is subscribed to, and
 * unsubscribing from it unsubscribes from the run (ending an open line).
 *
 * ```text
 * action  search {"query":"weather in Paris"}
 * step    search (12 ms) Sunny, 21 °C
 * model   It is sunny in Paris.
 * answer  It is sunny in Paris. (finish)
 * ```
 *
 * @example
 * ```ts
 * import { AgentExecutor, renderTrace } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * executor.stream({ input: "Weather in Paris?" }).pipe(renderTrace()).subscribe();
 * ```
 */
export function renderTrace(options: RenderTraceOptions = {}): MonoTypeOperatorFunction<AgentStreamEvent> {
  const resolved = resolveTraceOptions(options, "renderTrace");
  return (events) =>
    new Observable<AgentStreamEvent>((subscriber) => {
      const { write, style, maxLength, tokens, usage } = resolved;
      let tokenLine = false; // a `model` line is open
      let tokenIteration = -1; // the iteration of its tokens
      let breaks = 0; // line breaks of the model's text not written yet
      const closeTokenLine = () => {
        breaks = 0;
        if (!tokenLine) return;
        tokenLine = false;
        write("\n");
      };
      // Line breaks wait for the text after them: continuation lines are indented under the
      // label, and breaks before or after the model's text (or blank lines) get no indent.
      const writeTokens = (text: string) => {
        let out = "";
        text
          .replace(/\r/g, "")
          .split("\n")
          .forEach((line, index) => {
            if (index > 0) breaks++;
            if (line === "") return;
            if (!tokenLine) out += label(style, "model");
            else if (breaks > 0) out += `${"\n".repeat(breaks)}${INDENT}`;
            out += style.dim(printable(line));
            tokenLine = true;
            breaks = 0;
          });
        if (out !== "") write(out);
      };
      const print = (run: () => void): boolean => {
        try {
          run();
          return true;
        } catch (error) {
          subscriber.error(error);
          return false;
        }
      };
      const subscription = events.subscribe({
        next: (event) => {
          if (subscriber.closed) return; // the writer failed while the run emitted synchronously
          const printed = print(() => {
            if (event.subRun !== undefined) {
              // A sub-run (an executor called as a tool): its actions, steps and answer, indented
              // under the tool call and labelled with its path; its streamed text is not shown.
              if (event.type === "token" || event.type === "usage") return;
              const line = formatLine(event, style, maxLength, false);
              if (line === undefined) return;
              closeTokenLine();
              write(`${INDENT}${style.dim(`[${event.subRun.map((name) => printableName(name, maxLength)).join(" > ")}]`)} ${line}`);
              return;
            }
            if (event.type === "start") {
              // A resume's segment (a replayed record): the text of a call cut off before it ends
              // there; the resume makes that call again, as the same iteration, on a line of its own.
              closeTokenLine();
              tokenIteration = -1;
            }
            if (event.type === "token") {
              if (!tokens || event.text === "") return;
              if (event.iteration !== tokenIteration) closeTokenLine();
              tokenIteration = event.iteration;
              writeTokens(event.text);
              return;
            }
            if (event.type === "usage") closeTokenLine(); // the model call is over
            const line = formatLine(event, style, maxLength, usage);
            if (line === undefined) return;
            closeTokenLine();
            write(line);
          });
          if (printed) subscriber.next(event);
        },
        error: (error: unknown) => {
          try {
            closeTokenLine();
            write(formatError(error, style));
          } catch {
            // The run's error matters more than the writer's.
          }
          subscriber.error(error);
        },
        complete: () => {
          if (print(closeTokenLine)) subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        try {
          closeTokenLine();
        } catch {
          // The run is being torn down; a failing writer has nobody left to tell.
        }
      };
    });
}

/** The options {@link renderTrace} takes. */
const TRACE_OPTION_KEYS = ["write", "colors", "maxLength", "tokens", "usage"] satisfies (keyof RenderTraceOptions)[];

/**
 * Validates and resolves the options once, at construction. Not exported by the package.
 *
 * @internal
 */
export function resolveTraceOptions(options: RenderTraceOptions, caller: string): ResolvedTraceOptions {
  const fail = (argument: string, value: unknown, expected: string): never => {
    throw new InvalidArgumentError({
      argument,
      value,
      message: `${caller}: \`${argument}\` must be ${expected}, got ${typeof value === "string" ? JSON.stringify(value) : Array.isArray(value) ? "an array" : String(value)}.`,
    });
  };
  if (options !== undefined && (typeof options !== "object" || options === null || Array.isArray(options))) fail("options", options, "an object such as { colors: false }");
  // A misspelt option (`maxLenght`, `colours`) would be ignored: refused, naming it.
  checkOptionKeys(caller, options, TRACE_OPTION_KEYS);
  const { write, colors = "auto", maxLength = 120, tokens = true, usage = false } = options ?? {};
  if (write !== undefined && typeof write !== "function") fail("write", write, "a function (text: string) => void");
  if (colors !== true && colors !== false && colors !== "auto") fail("colors", colors, 'true, false or "auto"');
  if (typeof maxLength !== "number" || Number.isNaN(maxLength) || maxLength < 10) {
    fail("maxLength", maxLength, "a number >= 10 (or Infinity)");
  }
  if (typeof tokens !== "boolean") fail("tokens", tokens, "a boolean");
  if (typeof usage !== "boolean") fail("usage", usage, "a boolean");
  const stdout = write === undefined ? globalThis.process?.stdout : undefined;
  // In Deno's Jupyter kernel, process.stdout is the kernel's own, which no cell shows.
  const notebook = write === undefined ? jupyterStdout(stdout) : undefined;
  const env = globalThis.process?.env ?? {};
  const useColors = colors !== "auto" ? colors : notebook !== undefined ? autoColors({ isTTY: true }, env) : stdout !== undefined && autoColors(stdout, env);
  return {
    write: write ?? notebook ?? ((text) => void stdout?.write(text)),
    style: useColors ? ANSI_STYLE : PLAIN_STYLE,
    maxLength,
    tokens,
    usage,
  };
}

/**
 * Colours for `"auto"` on `stream`: `FORCE_COLOR` decides when set (`"0"` and `"false"` mean off,
 * anything else on; it wins over `NO_COLOR`, as in Node.js); otherwise never when `NO_COLOR` is
 * set to a non-empty value, and only on a TTY. Not exported by the package.
 *
 * @internal
 */
export function autoColors(stream: { isTTY?: boolean } | undefined, env: Record<string, string | undefined>): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return stream?.isTTY === true;
}

interface DenoJupyter {
  broadcast(type: string, content: Record<string, unknown>): Promise<void> | void;
}

/**
 * A writer to the running cell's stdout when this runs in Deno's Jupyter kernel (a `stream`
 * message, as `console.log` sends), else `undefined`. A message the kernel fails to send is
 * written to `fallback` instead (the kernel's terminal), not dropped.
 *
 * @internal
 */
export function jupyterStdout(fallback: { write(text: string): unknown } | undefined): ((text: string) => void) | undefined {
  let jupyter: DenoJupyter | undefined;
  try {
    jupyter = (globalThis as { Deno?: { jupyter?: DenoJupyter } }).Deno?.jupyter;
  } catch {
    return undefined; // Deno outside its kernel throws on `Deno.jupyter` (an unstable API there)
  }
  if (typeof jupyter?.broadcast !== "function") return undefined;
  const kernel = jupyter;
  return (text) => {
    // Deno's `broadcast` returns a promise or nothing, depending on its version.
    Promise.resolve()
      .then(() => kernel.broadcast("stream", { name: "stdout", text }))
      .catch(() => fallback?.write(text));
  };
}
