import { escapeControlCharacters } from "@agentrx/core";

/**
 * `text` as `agentrx` prints a recorded value (a run id, a thread id, an input, a model's text):
 * each control character written as its `\u001b` escape, line breaks too. A run's inputs come from
 * its users, and an escape sequence in them would reach the terminal of whoever lists the runs,
 * which acts on it (clears the screen, sets the window's title, forges colours or lines) instead
 * of showing it.
 *
 * @internal
 */
export function printable(text: string): string {
  return escapeControlCharacters(text);
}

/** C1 control characters and DEL, which `JSON.stringify` leaves as they are (it escapes C0 only). */
const C1 = /[\u007f-\u009f]/g;

/**
 * `value` as `agentrx --json` prints it: `JSON.stringify` with two-space indents, and DEL and the
 * C1 control characters (which JSON text may hold as they are) written as `\u009b` escapes too, so
 * the output is the same JSON and no terminal acts on a CSI in a recorded value.
 *
 * @internal
 */
export function jsonText(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? "null").replace(C1, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
