import { InvalidArgumentError } from "@agentrx/core";
import { Observable, type MonoTypeOperatorFunction } from "rxjs";
import type { AgentStreamEvent } from "../executor/events";
import {
  ANSI_STYLE,
  PLAIN_STYLE,
  formatLine,
  indentLines,
  label,
  oneLine,
  type TraceStyle,
} from "./trace-format";

/** Options of {@link renderTrace} and {@link printTrace}. */
export interface RenderTraceOptions {
  /**
   * Where the text goes. Called with whole lines, and with pieces of a line while tokens stream.
   * @default (text) => process.stdout.write(text)
   */
  write?: (text: string) => void;
  /**
   * ANSI colours: `true` always, `false` never, `"auto"` when writing to `process.stdout`, it is
   * a TTY and the `NO_COLOR` environment variable is unset or empty (a custom `write` gets plain
   * text unless colours are forced).
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
  /** Write a `usage` line for every model call that reported token usage. @default false */
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
 * `action` (tool and input), per `step` (tool, duration, observation) and for the answer with
 * its `stopReason`; the model's streamed text is written inline as it arrives. If the run
 * fails, an `error` line is written before the error is passed on. Nothing is printed until the
 * result is subscribed to, and unsubscribing from it unsubscribes from the run.
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
      const closeTokenLine = () => {
        if (!tokenLine) return;
        tokenLine = false;
        write("\n");
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
            if (event.type === "token") {
              if (!tokens || event.text === "") return;
              if (event.iteration !== tokenIteration) closeTokenLine();
              tokenIteration = event.iteration;
              const text = indentLines(event.text);
              write(tokenLine ? style.dim(text) : `${label(style, "model")}${style.dim(text)}`);
              tokenLine = true;
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
            const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
            write(`${label(style, "error")}${style.label("error", oneLine(message, maxLength))}\n`);
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

/** Validates and resolves the options once, at construction. */
export function resolveTraceOptions(options: RenderTraceOptions, caller: string): ResolvedTraceOptions {
  const { write, colors = "auto", maxLength = 120, tokens = true, usage = false } = options ?? {};
  const fail = (argument: string, value: unknown, expected: string): never => {
    throw new InvalidArgumentError({
      argument,
      value,
      message: `${caller}: \`${argument}\` must be ${expected}, got ${typeof value === "string" ? JSON.stringify(value) : String(value)}.`,
    });
  };
  if (write !== undefined && typeof write !== "function") fail("write", write, "a function (text: string) => void");
  if (colors !== true && colors !== false && colors !== "auto") fail("colors", colors, 'true, false or "auto"');
  if (typeof maxLength !== "number" || Number.isNaN(maxLength) || maxLength < 10) {
    fail("maxLength", maxLength, "a number >= 10 (or Infinity)");
  }
  if (typeof tokens !== "boolean") fail("tokens", tokens, "a boolean");
  if (typeof usage !== "boolean") fail("usage", usage, "a boolean");
  const stdout = write === undefined ? globalThis.process?.stdout : undefined;
  const useColors = colors === "auto" ? autoColors(stdout, globalThis.process?.env ?? {}) : colors;
  return {
    write: write ?? ((text) => void stdout?.write(text)),
    style: useColors ? ANSI_STYLE : PLAIN_STYLE,
    maxLength,
    tokens,
    usage,
  };
}

/** Colours for `"auto"`: only on a TTY, and never when `NO_COLOR` is set to a non-empty value. */
export function autoColors(stream: { isTTY?: boolean } | undefined, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return stream?.isTTY === true;
}
