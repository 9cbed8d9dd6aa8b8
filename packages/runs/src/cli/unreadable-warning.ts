import { quoteValue } from "./quote-value";

/** How many event numbers a warning lists before it says how many more there are. */
const LISTED = 10;

/**
 * The warning `agentrx show` and `agentrx trace` print on stderr (one line) when some events of a
 * run could not be read: which ones, and that the rest was shown. `undefined` when there are none.
 *
 * @internal
 */
export function unreadableWarning(runId: string, seqs: readonly number[], where: string): string | undefined {
  if (seqs.length === 0) return undefined;
  const listed = seqs.slice(0, LISTED).join(", ");
  const more = seqs.length > LISTED ? ` and ${seqs.length - LISTED} more` : "";
  const events = seqs.length === 1 ? `event ${listed} of run ${quoteValue(runId)} could not be read` : `${seqs.length} events of run ${quoteValue(runId)} could not be read (${listed}${more})`;
  return `agentrx: warning: ${events}; the rest is shown, ${where}\n`;
}
