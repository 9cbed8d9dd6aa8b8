import { type RecordedRunText, recordedSearchWords } from "../internal/recorded-search-words";
import { searchHaystack } from "../internal/search-words";
import { type SqliteConnection, sqliteErrorCode } from "./sqlite-driver";

/** How many runs a backfill reads at a time. */
const BACKFILL_BATCH = 500;

/**
 * What `recordedSearchWords` reads of a run `r` of `agentrx_runs` (its rowid as `id`): the text
 * columns, the inputs when their `input` is not a string, and the data of its last output event
 * that is not a sub-run's.
 */
const RECORDED_RUN_TEXT = `r.rowid AS id, r.input_text, r.answer_text,
  CASE WHEN json_valid(r.inputs) AND json_type(r.inputs, '$.input') IS NOT 'text' THEN r.inputs END AS inputs,
  (SELECT e.data FROM agentrx_run_events e
    WHERE e.run_id = r.run_id AND e.type = 'output' AND json_valid(e.data) AND json_type(e.data, '$.subRun') IS NULL
    ORDER BY e.seq DESC LIMIT 1) AS output`;

type RecordedRow = RecordedRunText & { id: number };

/**
 * Sets the search words of every run, as the store computes them for a run it records now (see
 * `recordedSearchWords`): migration 6's backfill, run inside the migration's transaction.
 */
export function backfillSearchWords(db: SqliteConnection): void {
  const read = db.prepare(`SELECT ${RECORDED_RUN_TEXT} FROM agentrx_runs r WHERE r.rowid > ? ORDER BY r.rowid LIMIT ?`);
  const write = db.prepare("UPDATE agentrx_runs SET input_words = ?, answer_words = ? WHERE rowid = ?");
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const rows = read.all(after, BACKFILL_BATCH) as RecordedRow[];
    for (const row of rows) {
      const words = recordedSearchWords(row);
      write.run(words.input_words, words.answer_words, row.id);
    }
    if (rows.length < BACKFILL_BATCH) return;
    after = rows[rows.length - 1]!.id;
  }
}

/** What a store does with the runs marked `words_pending` (see {@link pendingSearchWords}). */
export interface PendingSearchWords {
  /**
   * Computes and writes the words of the marked runs and clears their mark; returns how many runs
   * it updated. On a file the process may not write (the write fails with `SQLITE_READONLY`) it
   * writes nothing, returns 0 and sets {@link readOnly}.
   */
  index(): number;
  /** Set once the file refused {@link index}'s write: from then on it writes nothing, and a search matches the marked runs with {@link matching}. */
  readonly readOnly: boolean;
  /**
   * The rowids of the marked runs whose words, computed now as {@link index} does (and written
   * nowhere), include every one of `terms` as the start of a word (as MemoryRunStore matches, see
   * `searchHaystack`); undefined when no run is marked.
   */
  matching(terms: readonly string[]): number[] | undefined;
}

/** Whether `error` says the file cannot be written (`SQLITE_READONLY`, or one of its extended codes such as `SQLITE_READONLY_DIRECTORY`). */
function isReadOnlyError(error: unknown): boolean {
  return sqliteErrorCode(error)?.startsWith("SQLITE_READONLY") === true;
}

/**
 * Makes what computes the search words of the runs marked `words_pending` (from schema version 7:
 * a process of an older release, which knows nothing of the words, wrote their text; see the
 * triggers of migration 7), as {@link backfillSearchWords} does, and clears the mark. Each batch
 * of 500 runs is one `BEGIN IMMEDIATE` transaction, so no writer changes a run between its read
 * and its update. When no run is marked it reads one entry of a partial index and writes nothing.
 * A run whose text has no words (punctuation only) is computed once, and stays unmarked until its
 * text changes. A store that may only read the file cannot write the words: the first refused
 * write (rolled back, nothing changed) is remembered, and each search then computes the marked
 * runs' words in memory ({@link PendingSearchWords.matching}), so it still finds them.
 */
export function pendingSearchWords(db: SqliteConnection): PendingSearchWords {
  const anyPending = db.prepare("SELECT 1 AS pending FROM agentrx_runs WHERE words_pending IS NOT NULL LIMIT 1");
  const read = db.prepare(`SELECT ${RECORDED_RUN_TEXT} FROM agentrx_runs r WHERE r.words_pending IS NOT NULL LIMIT ${BACKFILL_BATCH}`);
  const readAfter = db.prepare(`SELECT ${RECORDED_RUN_TEXT} FROM agentrx_runs r WHERE r.words_pending IS NOT NULL AND r.rowid > ? ORDER BY r.rowid LIMIT ${BACKFILL_BATCH}`);
  const write = db.prepare("UPDATE agentrx_runs SET input_words = ?, answer_words = ?, words_pending = NULL WHERE rowid = ?");
  const batch = db.immediate((): number => {
    const rows = read.all() as RecordedRow[];
    for (const row of rows) {
      const words = recordedSearchWords(row);
      write.run(words.input_words, words.answer_words, row.id);
    }
    return rows.length;
  });
  let readOnly = false;
  return {
    get readOnly() {
      return readOnly;
    },
    index: () => {
      if (readOnly || anyPending.get() === undefined) return 0;
      let updated = 0;
      for (;;) {
        let count: number;
        try {
          count = batch();
        } catch (error) {
          if (!isReadOnlyError(error)) throw error;
          readOnly = true;
          return updated;
        }
        updated += count;
        if (count < BACKFILL_BATCH) return updated;
      }
    },
    matching: (terms) => {
      if (anyPending.get() === undefined) return undefined;
      const found: number[] = [];
      for (let after = Number.MIN_SAFE_INTEGER; ; ) {
        const rows = readAfter.all(after) as RecordedRow[];
        for (const row of rows) {
          const words = searchHaystack(recordedSearchWords(row));
          if (terms.every((term) => words.includes(` ${term}`))) found.push(row.id);
        }
        if (rows.length < BACKFILL_BATCH) return found;
        after = rows[rows.length - 1]!.id;
      }
    },
  };
}
