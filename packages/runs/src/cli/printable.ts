/**
 * C0 and C1 control characters and DEL: what a terminal may act on instead of printing; and the
 * bidirectional formatting characters (embeddings, overrides, isolates, marks), which make a
 * terminal show the rest of the line reversed.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` as `agentrx` prints a recorded value (a run id, a thread id, an input, a model's text):
 * each control character written as its `\u001b` escape. A run's inputs come from its users, and
 * an escape sequence in them would reach the terminal of whoever lists the runs, which acts on it
 * (clears the screen, sets the window's title, forges colours or lines) instead of showing it.
 *
 * @internal
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
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
