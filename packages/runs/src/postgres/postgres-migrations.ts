import { InvalidArgumentError } from "@agentrx/core";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * `schema`, checked as a PostgreSQL identifier, double-quoted. `named` is what the message calls it
 * when it is not the `argument` itself (the `?schema=` of `connectionString`).
 */
export function quoteSchema(schema: unknown, argument = "schema", named = argument): string {
  if (typeof schema !== "string" || !IDENTIFIER.test(schema)) {
    throw new InvalidArgumentError({
      argument,
      value: schema,
      message: `PostgresRunStore: ${named} must be an identifier of letters, digits and underscores that does not start with a digit (at most 63 characters), got ${JSON.stringify(schema)}.`,
    });
  }
  return `"${schema}"`;
}

/** The PostgreSQL schema of a run store, as versioned steps (in `s`, a quoted schema). Append new steps; never edit one that shipped. */
export const POSTGRES_MIGRATIONS: readonly { version: number; up: (s: string) => string }[] = [
  {
    version: 1,
    up: (s) => `
    CREATE TABLE ${s}.agentrx_runs (
      run_id text PRIMARY KEY,
      thread_id text,
      status text NOT NULL,
      stop_reason text,
      inputs text NOT NULL,
      usage text,
      error text,
      checkpoint text,
      metadata text,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      event_count integer NOT NULL DEFAULT 0,
      owner text,
      lease_expires_at bigint
    );
    CREATE INDEX agentrx_runs_thread_created ON ${s}.agentrx_runs (thread_id, created_at);
    CREATE INDEX agentrx_runs_status_created ON ${s}.agentrx_runs (status, created_at);
    CREATE INDEX agentrx_runs_created ON ${s}.agentrx_runs (created_at);
    CREATE INDEX agentrx_runs_updated ON ${s}.agentrx_runs (updated_at);
    CREATE TABLE ${s}.agentrx_run_events (
      run_id text NOT NULL REFERENCES ${s}.agentrx_runs (run_id) ON DELETE CASCADE,
      seq integer NOT NULL,
      type text NOT NULL,
      at bigint NOT NULL,
      data text NOT NULL,
      PRIMARY KEY (run_id, seq)
    );`,
  },
  {
    version: 2,
    // agentrx_threads holds each thread's last seq: an append bumps it (an upsert, which locks the
    // row) and inserts its messages after it, in one statement, so concurrent appends never collide.
    up: (s) => `
    CREATE TABLE ${s}.agentrx_threads (
      thread_id text PRIMARY KEY,
      last_seq integer NOT NULL,
      updated_at bigint NOT NULL
    );
    CREATE TABLE ${s}.agentrx_thread_messages (
      thread_id text NOT NULL,
      seq integer NOT NULL,
      run_id text,
      tokens integer NOT NULL,
      at bigint NOT NULL,
      message text NOT NULL,
      PRIMARY KEY (thread_id, seq)
    );`,
  },
  {
    version: 3,
    // Fencing and lineage. Runs recorded before this step get epoch 0 (no epoch shown) and take
    // epoch 1 at their next claim; new runs are created at epoch 1. Adding a column with a constant
    // default does not rewrite the table.
    up: (s) => `
    ALTER TABLE ${s}.agentrx_runs ADD COLUMN epoch integer NOT NULL DEFAULT 0;
    ALTER TABLE ${s}.agentrx_runs ADD COLUMN fork_of_run_id text;
    ALTER TABLE ${s}.agentrx_runs ADD COLUMN fork_of_iteration integer;`,
  },
  {
    version: 4,
    // Search, previews, cost and sort for the runs list. The search vectors are written by the
    // store from the text's words as @agentrx/runs splits them (lowercased, accents removed); runs
    // recorded before this step get theirs from their text as PostgreSQL's "simple" configuration
    // splits it, their answer from their last output event and their cost from their usage. A
    // value that is not valid JSON leaves the text empty.
    up: (s) => `
    CREATE OR REPLACE FUNCTION pg_temp.agentrx_json(value text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $json$
    BEGIN
      RETURN value::jsonb;
    EXCEPTION WHEN others THEN
      RETURN NULL;
    END
    $json$;
    ALTER TABLE ${s}.agentrx_runs
      ADD COLUMN input_text text NOT NULL DEFAULT '',
      ADD COLUMN answer_text text NOT NULL DEFAULT '',
      ADD COLUMN cost_usd double precision NOT NULL DEFAULT 0,
      ADD COLUMN input_vector tsvector NOT NULL DEFAULT ''::tsvector,
      ADD COLUMN answer_vector tsvector NOT NULL DEFAULT ''::tsvector;
    UPDATE ${s}.agentrx_runs AS r SET
      input_text = coalesce(left(CASE WHEN jsonb_typeof(pg_temp.agentrx_json(r.inputs) -> 'input') = 'string' THEN pg_temp.agentrx_json(r.inputs) ->> 'input' WHEN pg_temp.agentrx_json(r.inputs) IS NULL THEN '' ELSE r.inputs END, 2000), ''),
      cost_usd = CASE WHEN jsonb_typeof(pg_temp.agentrx_json(r.usage) -> 'cost' -> 'total') = 'number' THEN greatest((pg_temp.agentrx_json(r.usage) -> 'cost' ->> 'total')::double precision, 0) ELSE 0 END,
      answer_text = coalesce((
        SELECT left(pg_temp.agentrx_json(e.data) ->> 'output', 2000) FROM ${s}.agentrx_run_events AS e
        WHERE e.run_id = r.run_id AND e.type = 'output' AND pg_temp.agentrx_json(e.data) IS NOT NULL AND NOT (pg_temp.agentrx_json(e.data) ? 'subRun')
        ORDER BY e.seq DESC LIMIT 1
      ), '');
    UPDATE ${s}.agentrx_runs SET input_vector = to_tsvector('simple', input_text), answer_vector = to_tsvector('simple', answer_text);
    CREATE INDEX agentrx_runs_search ON ${s}.agentrx_runs USING gin ((input_vector || answer_vector));
    CREATE INDEX agentrx_runs_created_id ON ${s}.agentrx_runs (created_at, run_id COLLATE "C");
    CREATE INDEX agentrx_runs_updated_id ON ${s}.agentrx_runs (updated_at, run_id COLLATE "C");
    CREATE INDEX agentrx_runs_cost_id ON ${s}.agentrx_runs (cost_usd, run_id COLLATE "C");`,
  },
  {
    version: 5,
    // A run's row is written at every step, and each index is one more entry to write: the
    // indexes on created_at and updated_at alone are covered by (created_at, run_id) and
    // (updated_at, run_id). And inbox_closed: true while the run's inbox is closed
    // (RunUpdate.closeInbox), until its next claim.
    up: (s) => `
    DROP INDEX IF EXISTS ${s}.agentrx_runs_created;
    DROP INDEX IF EXISTS ${s}.agentrx_runs_updated;
    ALTER TABLE ${s}.agentrx_runs ADD COLUMN inbox_closed boolean NOT NULL DEFAULT false;`,
  },
  {
    version: 6,
    // The search vectors hold the run's words as @agentrx/runs splits them (folded, accents
    // removed; see docs/runs.md), as the other stores index them; those of the runs recorded
    // before were PostgreSQL's "simple" split of the text. Those runs are marked, and the store
    // computes their words when it opens the schema (see backfillSearchVectors), a batch at a
    // time, until none is marked: a schema migrated by running this SQL by hand gets its words
    // when a store first opens it.
    up: (s) => `
    ALTER TABLE ${s}.agentrx_runs ADD COLUMN words_pending boolean;
    UPDATE ${s}.agentrx_runs SET words_pending = true;
    CREATE INDEX agentrx_runs_words_pending ON ${s}.agentrx_runs (run_id COLLATE "C") WHERE words_pending;`,
  },
];

/** The latest schema version this package knows. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]!.version;

/**
 * The SQL that creates or upgrades a run store's tables in `schema`: one transaction, under an
 * advisory lock (so concurrent runs of it wait for each other), applying only the versions
 * missing from `agentrx_schema_migrations`. Safe to run again. `PostgresRunStore` runs it at its
 * first call; run it by hand (`psql -f`) when the application's database user may not create
 * tables.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs";
 * import { postgresMigrationSql } from "@agentrx/runs";
 *
 * writeFileSync("agentrx-runs.sql", postgresMigrationSql("agentrx"));
 * // then: psql "$DATABASE_URL" -f agentrx-runs.sql
 * ```
 */
export function postgresMigrationSql(schema = "agentrx"): string {
  const s = quoteSchema(schema);
  const lock = `agentrx_runs:${schema}`;
  const steps = POSTGRES_MIGRATIONS.map(
    ({ version, up }) => `
  IF NOT EXISTS (SELECT 1 FROM ${s}.agentrx_schema_migrations WHERE version = ${version}) THEN${up(s).replace(/\n/g, "\n  ")}
    INSERT INTO ${s}.agentrx_schema_migrations (version, applied_at) VALUES (${version}, floor(extract(epoch FROM clock_timestamp()) * 1000));
  END IF;`,
  ).join("");
  return `-- AgentRx run store tables in schema ${s}, up to version ${POSTGRES_SCHEMA_VERSION}. Safe to run again.
BEGIN;
SELECT pg_advisory_xact_lock(hashtext('${lock}'));
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.agentrx_schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL);
DO $agentrx$
BEGIN
  IF (SELECT max(version) FROM ${s}.agentrx_schema_migrations) > ${POSTGRES_SCHEMA_VERSION} THEN
    RAISE EXCEPTION 'schema ${schema} has AgentRx run store version %, newer than this version of @agentrx/runs knows (${POSTGRES_SCHEMA_VERSION}): upgrade @agentrx/runs', (SELECT max(version) FROM ${s}.agentrx_schema_migrations);
  END IF;${steps}
END
$agentrx$;
COMMIT;
`;
}
