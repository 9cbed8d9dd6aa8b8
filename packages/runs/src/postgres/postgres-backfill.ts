import { parsedObject, recordedSearchWords } from "../internal/recorded-search-words";
import type { PostgresPool } from "./postgres-run-store-options";

/** How many runs {@link backfillSearchVectors} reads at a time. */
const BACKFILL_BATCH = 500;

/**
 * Computes the search vectors of the runs migration 6 marked (`words_pending`: recorded before the
 * store wrote the words it searches), as the store computes them for a run it records now (see
 * `recordedSearchWords`), a batch at a time until none is marked. A run whose answer a live writer
 * changed between the read and the update is read again in the next batch. Several processes may
 * run it at once: each computes the same words. Returns how many runs it updated.
 *
 * @param s the quoted schema
 */
export async function backfillSearchVectors(pool: PostgresPool, s: string): Promise<number> {
  let updated = 0;
  for (let idle = 0; idle < 3; ) {
    const { rows } = await pool.query({
      text: `SELECT run_id, input_text, answer_text, inputs FROM ${s}.agentrx_runs WHERE words_pending ORDER BY run_id COLLATE "C" LIMIT ${BACKFILL_BATCH}`,
      values: [],
    });
    if (rows.length === 0) break;
    const runIds = rows.map((row) => row["run_id"] as string);
    // Every output event of the batch's runs, latest first: a run's answer is its last one that is not a sub-run's.
    const outputs = await pool.query({
      text: `SELECT run_id, data FROM ${s}.agentrx_run_events WHERE run_id = ANY($1::text[]) AND type = 'output' ORDER BY run_id, seq DESC`,
      values: [runIds],
    });
    const answers = new Map<string, string>();
    for (const event of outputs.rows) {
      const runId = event["run_id"] as string;
      if (answers.has(runId)) continue;
      const data = parsedObject(event["data"] as string);
      if (data === undefined || data["subRun"] !== undefined) continue;
      answers.set(runId, event["data"] as string);
    }
    const inputWords: string[] = [];
    const answerWords: string[] = [];
    for (const row of rows) {
      const words = recordedSearchWords({
        input_text: row["input_text"] as string,
        answer_text: row["answer_text"] as string,
        inputs: row["inputs"] as string,
        output: answers.get(row["run_id"] as string) ?? null,
      });
      inputWords.push(words.input_words);
      answerWords.push(words.answer_words);
    }
    // The words travel joined by spaces (no word holds one) and are split again in SQL; a row whose
    // answer changed since the read (a live run answered) is left marked, for the next batch.
    const { rowCount } = await pool.query({
      text: `UPDATE ${s}.agentrx_runs AS r
        SET input_vector = array_to_tsvector(string_to_array(u.input_words, ' ')),
            answer_vector = array_to_tsvector(string_to_array(u.answer_words, ' ')),
            words_pending = NULL
        FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(run_id, answer_text, input_words, answer_words)
        WHERE r.run_id = u.run_id AND r.words_pending AND r.answer_text = u.answer_text`,
      values: [runIds, rows.map((row) => row["answer_text"]), inputWords, answerWords],
    });
    updated += rowCount ?? 0;
    idle = (rowCount ?? 0) === 0 ? idle + 1 : 0;
  }
  return updated;
}
