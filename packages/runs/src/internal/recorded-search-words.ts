import type { JsonObject } from "@agentrx/executors";
import { inputWordsOf } from "./run-record";
import { type RunSearchWords, searchWordsOf } from "./search-words";

/** What a store's backfill reads of a run recorded without its search words (see {@link recordedSearchWords}). */
export interface RecordedRunText {
  /** The input's text as the row keeps it (capped). */
  input_text: string;
  /** The answer's text as the row keeps it (capped). */
  answer_text: string;
  /** The run's inputs as JSON text, or null when not needed (its `input` is a string). */
  inputs: string | null;
  /** The data of its last `output` event (not a sub-run's) as JSON text, or null without one. */
  output: string | null;
}

/**
 * The search words of a run recorded without them (before its store indexed words: a migration's
 * backfill; or, in SQLite, by a process of an older release after the file was migrated: see
 * `pendingSearchWords`), as the store computes them for a run it records now: from the inputs
 * (their `input` when a string, else what they say) and from the last output event's `output`. A
 * row whose JSON cannot be read gets the words of its text columns.
 */
export function recordedSearchWords(row: RecordedRunText): RunSearchWords {
  const inputs = parsedObject(row.inputs);
  const output = parsedObject(row.output);
  return {
    input_words: inputs === undefined ? searchWordsOf(row.input_text) : inputWordsOf(inputs),
    answer_words: output === undefined ? searchWordsOf(row.answer_text) : searchWordsOf(output["output"]),
  };
}

/** The JSON object `text` holds, or undefined (no text, not JSON, not an object). */
export function parsedObject(text: string | null): JsonObject | undefined {
  if (text === null) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}
