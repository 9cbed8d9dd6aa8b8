import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { checkOptionKeys } from "./check-option-keys";

/**
 * C0 and C1 control characters and DEL: what a terminal may act on instead of printing; and the
 * bidirectional formatting characters (embeddings, overrides, isolates, marks), which make a
 * terminal show the rest of the line reversed.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The same characters but tab and line feed. */
const CONTROL_BUT_LINE_BREAKS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Options of {@link escapeControlCharacters}. */
export interface EscapeControlCharactersOptions {
  /** Leave tab and line feed as they are (for text shown over several lines). Default `false`. */
  readonly keepLineBreaks?: boolean;
}

/**
 * `text` with each control character (C0, DEL, C1) and each bidirectional formatting character
 * written as its `\u001b`-style escape, for showing text that came from a model, a tool or a
 * run's users on a terminal: an escape sequence in it would make the terminal clear the screen,
 * set the window's title or forge colours and lines instead of showing it, and an override
 * character would show the rest of the line reversed. Everything else is left as it is.
 *
 * @example
 * ```ts
 * import { escapeControlCharacters } from "@agentrx/core";
 *
 * console.log(escapeControlCharacters("a\u001b[2Jb")); // a\u001b[2Jb, as ten printable characters
 * console.log(escapeControlCharacters("one\ntwo", { keepLineBreaks: true })); // two lines
 * ```
 */
export function escapeControlCharacters(text: string, options?: EscapeControlCharactersOptions): string {
  if (typeof text !== "string") {
    throw new InvalidArgumentError({ argument: "text", value: text, message: `escapeControlCharacters: text must be a string, got ${text === null ? "null" : typeof text}.` });
  }
  if (options !== undefined) checkOptions(options);
  const pattern = options?.keepLineBreaks === true ? CONTROL_BUT_LINE_BREAKS : CONTROL;
  return text.replace(pattern, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function checkOptions(options: EscapeControlCharactersOptions): void {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new InvalidArgumentError({ argument: "options", value: options, message: "escapeControlCharacters: options must be an object such as { keepLineBreaks: true }." });
  }
  checkOptionKeys("escapeControlCharacters", options, ["keepLineBreaks"], "options.");
  const keep: unknown = options.keepLineBreaks;
  if (keep !== undefined && typeof keep !== "boolean") {
    throw new InvalidArgumentError({ argument: "options.keepLineBreaks", value: keep, message: `escapeControlCharacters: options.keepLineBreaks must be a boolean, got ${typeof keep}.` });
  }
}
