import { RunStoreError } from "@agentrx/executors";
import type { SqliteConnection } from "./sqlite-driver";
import { backfillSearchWords } from "./sqlite-search-words";

/** One step of the SQLite schema; applied once, in order, inside a transaction. */
export interface SqliteMigration {
  version: number;
  up: string;
}

/** The SQLite schema of a run store, as versioned steps. Append new steps; never edit one that shipped. */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE agentrx_runs (
        run_id TEXT PRIMARY KEY NOT NULL,
        thread_id TEXT,
        status TEXT NOT NULL,
        stop_reason TEXT,
        inputs TEXT NOT NULL,
        usage TEXT,
        error TEXT,
        checkpoint TEXT,
        metadata TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        event_count INTEGER NOT NULL DEFAULT 0,
        owner TEXT,
        lease_expires_at INTEGER
      );
      CREATE INDEX agentrx_runs_thread_created ON agentrx_runs (thread_id, created_at);
      CREATE INDEX agentrx_runs_status_created ON agentrx_runs (status, created_at);
      CREATE INDEX agentrx_runs_created ON agentrx_runs (created_at);
      CREATE INDEX agentrx_runs_updated ON agentrx_runs (updated_at);
      CREATE TABLE agentrx_run_events (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    // A rowid table (not WITHOUT ROWID): messages can be large, and SQLite keeps large rows better
    // in a rowid table, with the primary key in its own index.
    up: `
      CREATE TABLE agentrx_thread_messages (
        thread_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        run_id TEXT,
        tokens INTEGER NOT NULL,
        at INTEGER NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (thread_id, seq)
      );
    `,
  },
  {
    version: 3,
    // Fencing and lineage. Runs recorded before this step get epoch 0 (no epoch shown) and take
    // epoch 1 at their next claim; new runs are created at epoch 1.
    up: `
      ALTER TABLE agentrx_runs ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE agentrx_runs ADD COLUMN fork_of_run_id TEXT;
      ALTER TABLE agentrx_runs ADD COLUMN fork_of_iteration INTEGER;
    `,
  },
  {
    version: 4,
    // Search, previews, cost and sort for the runs list. Runs recorded before this step get their
    // input and answer text from their inputs and their last output event, and their cost from
    // their usage; rows whose JSON cannot be read keep empty text. The full-text index (FTS5) is
    // created after this step where the SQLite build has FTS5 (see FTS_SETUP).
    up: `
      ALTER TABLE agentrx_runs ADD COLUMN input_text TEXT NOT NULL DEFAULT '';
      ALTER TABLE agentrx_runs ADD COLUMN answer_text TEXT NOT NULL DEFAULT '';
      ALTER TABLE agentrx_runs ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
      UPDATE agentrx_runs SET
        input_text = CASE WHEN json_valid(inputs) THEN substr(CASE WHEN json_type(inputs, '$.input') = 'text' THEN json_extract(inputs, '$.input') ELSE inputs END, 1, 2000) ELSE '' END,
        cost_usd = CASE WHEN json_valid(usage) AND json_type(usage, '$.cost.total') IN ('real', 'integer') THEN max(json_extract(usage, '$.cost.total'), 0) ELSE 0 END,
        answer_text = coalesce((
          SELECT substr(json_extract(e.data, '$.output'), 1, 2000) FROM agentrx_run_events e
          WHERE e.run_id = agentrx_runs.run_id AND e.type = 'output' AND json_valid(e.data) AND json_type(e.data, '$.subRun') IS NULL
          ORDER BY e.seq DESC LIMIT 1
        ), '');
      CREATE INDEX agentrx_runs_created_id ON agentrx_runs (created_at, run_id);
      CREATE INDEX agentrx_runs_updated_id ON agentrx_runs (updated_at, run_id);
      CREATE INDEX agentrx_runs_cost_id ON agentrx_runs (cost_usd, run_id);
    `,
  },
  {
    version: 5,
    // A run's row is written at every step: keep that write small. The indexes on created_at and
    // updated_at alone are covered by (created_at, run_id) and (updated_at, run_id); the full-text
    // index is touched only when the text changes (see FTS_UPDATE_TRIGGER). And inbox_closed: 1
    // while the run's inbox is closed (RunUpdate.closeInbox) until its next claim.
    up: `
      DROP INDEX IF EXISTS agentrx_runs_created;
      DROP INDEX IF EXISTS agentrx_runs_updated;
      ALTER TABLE agentrx_runs ADD COLUMN inbox_closed INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 6,
    // Search reads the run's search words (see searchTerms in @agentrx/runs), as every store does:
    // FTS5's own tokenizer split the text otherwise than the other stores (it kept "й", Greek
    // accents and compatibility forms such as "ﬁ" or "Ａ" that they fold, so such words were not
    // found). The words of the runs recorded before are computed when this step is applied (see
    // backfillSearchWords), and the full-text index is made again over them (see WORDS_FTS_SETUP).
    up: `
      ALTER TABLE agentrx_runs ADD COLUMN input_words TEXT NOT NULL DEFAULT '';
      ALTER TABLE agentrx_runs ADD COLUMN answer_words TEXT NOT NULL DEFAULT '';
    `,
  },
  {
    version: 7,
    // A process of an older release that had the file open when a newer one migrated it goes on
    // writing runs without their search words (it knows nothing of them): its INSERT leaves them
    // empty, its UPDATE of a run's text leaves them as they were. These triggers, in the file, see
    // its writes too, and mark such a run `words_pending`; a store of this release computes the
    // words of the marked runs when it opens the file and before each search (see
    // pendingSearchWords). A run this release writes gets its words with its text: its INSERT is
    // marked only when its text has no words at all (computed once, then unmarked), and a step's
    // UPDATE that does not name the text does not reach the trigger at all. On a file of version 6,
    // the runs written since version 6 was applied are marked too (see WORDS_PENDING_SINCE_6).
    up: `
      ALTER TABLE agentrx_runs ADD COLUMN words_pending INTEGER;
      CREATE INDEX agentrx_runs_words_pending ON agentrx_runs (words_pending) WHERE words_pending IS NOT NULL;
      CREATE TRIGGER agentrx_runs_words_insert AFTER INSERT ON agentrx_runs
      WHEN (new.input_words = '' AND new.input_text <> '') OR (new.answer_words = '' AND new.answer_text <> '') BEGIN
        UPDATE agentrx_runs SET words_pending = 1 WHERE rowid = new.rowid;
      END;
      CREATE TRIGGER agentrx_runs_words_update AFTER UPDATE OF input_text, answer_text ON agentrx_runs
      WHEN (old.input_text IS NOT new.input_text AND old.input_words IS new.input_words) OR (old.answer_text IS NOT new.answer_text AND old.answer_words IS new.answer_words) BEGIN
        UPDATE agentrx_runs SET words_pending = 1 WHERE rowid = new.rowid;
      END;
    `,
  },
];

/**
 * The full-text index of the runs list: an FTS5 table over `input_text` and `answer_text`
 * (external content: it stores no second copy of the text), kept in step by triggers. Created
 * with migration 4 where SQLite has FTS5 (better-sqlite3 and Node's `node:sqlite` do); without
 * it, search reads the text columns directly.
 */
const FTS_SETUP = `
  CREATE VIRTUAL TABLE agentrx_runs_fts USING fts5(input_text, answer_text, content='agentrx_runs', content_rowid='rowid');
  INSERT INTO agentrx_runs_fts (agentrx_runs_fts) VALUES ('rebuild');
  CREATE TRIGGER agentrx_runs_fts_insert AFTER INSERT ON agentrx_runs BEGIN
    INSERT INTO agentrx_runs_fts (rowid, input_text, answer_text) VALUES (new.rowid, new.input_text, new.answer_text);
  END;
  CREATE TRIGGER agentrx_runs_fts_delete AFTER DELETE ON agentrx_runs BEGIN
    INSERT INTO agentrx_runs_fts (agentrx_runs_fts, rowid, input_text, answer_text) VALUES ('delete', old.rowid, old.input_text, old.answer_text);
  END;
`;

/**
 * Keeps the full-text index in step when a run's text changes, and only then: the write of every
 * step names `answer_text` (set when the run answers), which would otherwise re-index the row each
 * time. Replaces migration 4's trigger with migration 5.
 */
const FTS_UPDATE_TRIGGER = `
  DROP TRIGGER IF EXISTS agentrx_runs_fts_update;
  CREATE TRIGGER agentrx_runs_fts_update AFTER UPDATE OF input_text, answer_text ON agentrx_runs
  WHEN old.input_text IS NOT new.input_text OR old.answer_text IS NOT new.answer_text BEGIN
    INSERT INTO agentrx_runs_fts (agentrx_runs_fts, rowid, input_text, answer_text) VALUES ('delete', old.rowid, old.input_text, old.answer_text);
    INSERT INTO agentrx_runs_fts (rowid, input_text, answer_text) VALUES (new.rowid, new.input_text, new.answer_text);
  END;
`;

/** The full-text index of migrations 4 and 5 (over the text itself), replaced by migration 6. */
const TEXT_FTS_DROP = `
  DROP TRIGGER IF EXISTS agentrx_runs_fts_insert;
  DROP TRIGGER IF EXISTS agentrx_runs_fts_delete;
  DROP TRIGGER IF EXISTS agentrx_runs_fts_update;
  DROP TABLE IF EXISTS agentrx_runs_fts;
`;

/**
 * The full-text index of the runs list from migration 6 on: an FTS5 table over the run's search
 * words (external content, kept in step by triggers, touched only when the words change). Its
 * "ascii" tokenizer splits them at the spaces between them and changes nothing else: the words
 * are already lowercased and folded, so the index holds exactly the words the other stores hold.
 */
const WORDS_FTS_SETUP = `
  CREATE VIRTUAL TABLE agentrx_runs_fts USING fts5(input_words, answer_words, content='agentrx_runs', content_rowid='rowid', tokenize='ascii');
  INSERT INTO agentrx_runs_fts (agentrx_runs_fts) VALUES ('rebuild');
  CREATE TRIGGER agentrx_runs_fts_insert AFTER INSERT ON agentrx_runs BEGIN
    INSERT INTO agentrx_runs_fts (rowid, input_words, answer_words) VALUES (new.rowid, new.input_words, new.answer_words);
  END;
  CREATE TRIGGER agentrx_runs_fts_delete AFTER DELETE ON agentrx_runs BEGIN
    INSERT INTO agentrx_runs_fts (agentrx_runs_fts, rowid, input_words, answer_words) VALUES ('delete', old.rowid, old.input_words, old.answer_words);
  END;
  CREATE TRIGGER agentrx_runs_fts_update AFTER UPDATE OF input_words, answer_words ON agentrx_runs
  WHEN old.input_words IS NOT new.input_words OR old.answer_words IS NOT new.answer_words BEGIN
    INSERT INTO agentrx_runs_fts (agentrx_runs_fts, rowid, input_words, answer_words) VALUES ('delete', old.rowid, old.input_words, old.answer_words);
    INSERT INTO agentrx_runs_fts (rowid, input_words, answer_words) VALUES (new.rowid, new.input_words, new.answer_words);
  END;
`;

/**
 * Migration 7 applied to a file of version 6: marks the runs an older release's process may have
 * written without their words while the file was at version 6: those whose words are empty while
 * their text is not, and those written since version 6 was applied (a minute earlier, for the
 * clocks of other processes; an older process that answered a run again left its former words).
 * Not needed when version 6 is applied in the same migration: its backfill computed every run's words.
 */
const WORDS_PENDING_SINCE_6 = `
  UPDATE agentrx_runs SET words_pending = 1
  WHERE (input_words = '' AND input_text <> '') OR (answer_words = '' AND answer_text <> '')
    OR updated_at >= (SELECT applied_at - 60000 FROM agentrx_schema_migrations WHERE version = 6);
`;

/** Whether the file has the full-text index of the runs list. */
export function hasRunsFts(db: SqliteConnection): boolean {
  return hasTable(db, "agentrx_runs_fts");
}

const LATEST = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]!.version;

function hasTable(db: SqliteConnection, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

function hasFts5(db: SqliteConnection): boolean {
  const row = db.prepare("SELECT sqlite_compileoption_used('ENABLE_FTS5') AS fts5").get() as { fts5: number } | undefined;
  return row?.fts5 === 1;
}

function currentVersion(db: SqliteConnection): number {
  const row = db.prepare("SELECT max(version) AS version FROM agentrx_schema_migrations").get() as { version: number | null };
  return row.version ?? 0;
}

/**
 * Brings the file's schema up to date: creates `agentrx_schema_migrations` and applies the missing
 * steps in one `BEGIN IMMEDIATE` transaction, so two processes opening a new file at once do not
 * both apply them (the second waits for the first, then finds nothing to do). `upTo` stops at an
 * earlier version (for tests: a file as an earlier release left it).
 */
export function migrateSqlite(db: SqliteConnection, path: string, at: number = Date.now(), upTo: number = LATEST): void {
  if (hasTable(db, "agentrx_schema_migrations") && currentVersion(db) === LATEST) return;
  const migrate = db.immediate(() => {
    if (!hasTable(db, "agentrx_schema_migrations")) {
      if (hasTable(db, "agentrx_runs")) {
        throw new RunStoreError({
          operation: "open",
          message: `SqliteRunStore: ${path} has an agentrx_runs table but no agentrx_schema_migrations table, so it is not an AgentRx run store (or one damaged by hand). Point \`path\` at another file.`,
        });
      }
      db.exec("CREATE TABLE agentrx_schema_migrations (version INTEGER PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)");
    }
    const current = currentVersion(db);
    if (current > LATEST) {
      throw new RunStoreError({
        operation: "open",
        message: `SqliteRunStore: ${path} has schema version ${current}, newer than this version of @agentrx/runs knows (${LATEST}). Upgrade @agentrx/runs.`,
      });
    }
    const record = db.prepare("INSERT INTO agentrx_schema_migrations (version, applied_at) VALUES (?, ?)");
    for (const migration of SQLITE_MIGRATIONS) {
      if (migration.version <= current || migration.version > upTo) continue;
      db.exec(migration.up);
      if (migration.version === 4 && hasFts5(db)) db.exec(FTS_SETUP);
      if (migration.version === 5 && hasRunsFts(db)) db.exec(FTS_UPDATE_TRIGGER);
      if (migration.version === 6) {
        db.exec(TEXT_FTS_DROP);
        backfillSearchWords(db);
        if (hasFts5(db)) db.exec(WORDS_FTS_SETUP);
      }
      if (migration.version === 7 && current === 6) db.exec(WORDS_PENDING_SINCE_6);
      record.run(migration.version, at);
    }
  });
  migrate();
}
