import { printable } from "./printable";

/** How many characters of a value a message repeats before it cuts it. */
const SHOWN = 80;

/**
 * A value the user gave (a run id, a flag's value) as a message quotes it: JSON-quoted, and cut
 * after 80 characters with its length, so a 100 KB run id does not make a 100 KB error line.
 *
 * @internal
 */
export function quoteValue(value: string): string {
  if (value.length <= SHOWN) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, SHOWN))}… (${value.length.toLocaleString("en-US")} characters)`;
}

/**
 * A value as one shell word (quoted when it holds anything but safe characters), for a command a
 * message suggests.
 *
 * @internal
 */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/**
 * A run id in a sentence: as it is, or quoted and cut (see {@link quoteValue}) when it is longer
 * than 80 characters or holds a control character (JSON-quoted, an escape sequence is not sent to
 * the terminal).
 *
 * @internal
 */
export function shownRunId(runId: string): string {
  return runId.length > 80 || printable(runId) !== runId ? quoteValue(runId) : runId;
}
