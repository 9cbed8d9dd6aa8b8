/** C0 and C1 control characters and DEL: what a terminal may act on instead of printing. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

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
