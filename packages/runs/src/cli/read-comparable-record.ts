import { RunEventDecoder, errorMessageOf, type RunInfo, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { isUnreadableRunEvent, readReadableEvents } from "@agentrx/viewer/trace-page";
import type { RunRecord } from "../diff/diff-runs";
import { CliError } from "./cli-error";
import { printable } from "./printable";
import { quoteValue, shellWord } from "./quote-value";

/** How many damaged events the message lists. */
const LISTED = 10;

/**
 * The record of `run` for `agentrx diff`, or a {@link CliError} (exit code 1) when it is damaged:
 * an event that cannot be read (a corrupt row, a gap in its `seq`) or decoded, and the events
 * after it that depend on it. A comparison needs every event of both runs (a missing step would
 * read as a divergence), so a damaged record is refused, as the `ui`'s diff page refuses it: the
 * message names the run, its first damaged event and why, lists the others, and says how to see
 * the rest (`agentrx show`). Sub-runs' events are not compared, so not checked.
 *
 * @internal
 */
export async function readComparableRecord(store: RunStore, run: RunInfo): Promise<RunRecord> {
  const { runId } = run;
  const events: StoredRunEvent[] = [];
  const damaged: { seq: number; why: string }[] = [];
  const decoder = new RunEventDecoder(runId);
  for await (const page of readReadableEvents(store, runId, "agentrx diff")) {
    for (const entry of page) {
      if (isUnreadableRunEvent(entry)) {
        damaged.push({ seq: entry.seq, why: `cannot be read: ${entry.error}` });
        continue;
      }
      events.push(entry);
      if (entry.data["subRun"] !== undefined) continue;
      try {
        decoder.decode(entry);
      } catch (error) {
        damaged.push({ seq: entry.seq, why: `cannot be decoded: ${errorMessageOf(error)}` });
      }
    }
  }
  const first = damaged[0];
  if (first === undefined) return { run, events };
  const seqs = damaged.map((event) => event.seq);
  const others = damaged.length === 1 ? "" : `; damaged events: ${seqs.slice(0, LISTED).join(", ")}${seqs.length > LISTED ? ` and ${seqs.length - LISTED} more` : ""}`;
  throw new CliError({
    message: `run ${quoteValue(runId)} cannot be compared: its record is damaged (event ${first.seq} ${first.why}${others}). A comparison needs every event; see what can be read with: agentrx show ${runId.length > 80 || printable(runId) !== runId ? "<runId>" : shellWord(runId)}`,
  });
}
