import { cutText } from "./cut-text";
import type { TraceText } from "./trace-data";

/**
 * A text of a trace page that may have to be cut to keep the page small: it serializes (through
 * `toJSON`) as the whole string when it fits `limit`, else as `{ head, length }`.
 *
 * @internal
 */
export class CappedText {
  /** How many characters the page may carry of it; set by {@link capTexts}. */
  limit = Number.POSITIVE_INFINITY;

  constructor(readonly text: string) {}

  toJSON(): TraceText {
    if (this.text.length <= this.limit) return this.text;
    return { head: cutText(this.text, this.limit), length: this.text.length };
  }
}

/**
 * Shares `budget` characters among `texts` so that their total fits it: texts shorter than the
 * fair share stay whole, and the longest are cut to one common limit (the largest that fits).
 * A page of many long observations keeps the start of each; a page with one huge observation
 * keeps all of it when the budget allows.
 *
 * @internal
 */
export function capTexts(texts: readonly CappedText[], budget: number): void {
  const sorted = [...texts].sort((a, b) => a.text.length - b.text.length);
  let remaining = budget;
  let limit = Number.POSITIVE_INFINITY;
  for (let i = 0; i < sorted.length; i++) {
    const length = (sorted[i] as CappedText).text.length;
    const share = remaining / (sorted.length - i);
    if (length > share) {
      limit = Math.floor(share);
      break;
    }
    remaining -= length;
  }
  for (const text of texts) text.limit = limit;
}
