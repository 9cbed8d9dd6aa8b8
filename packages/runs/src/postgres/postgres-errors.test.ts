import { RunStoreError } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { describeTarget, isConnectionLost, wrapPostgresError } from "./postgres-errors";

describe("PostgreSQL errors", () => {
  it("describes where the store connects without the password", () => {
    expect(describeTarget("postgres://app:s3cret@db.internal:6543/runs?sslmode=require", undefined)).toBe("db.internal:6543/runs");
    expect(describeTarget(undefined, { host: "10.0.0.5", port: 5433, database: "prod", password: "s3cret" })).toBe("10.0.0.5:5433/prod");
    expect(describeTarget(undefined, { connectionString: "postgres://u:p@h/d" })).toBe("h:5432/d");
  });

  it("says the database is unreachable, also for a refusal of every address of a host", () => {
    const refused = new AggregateError([Object.assign(new Error("connect ECONNREFUSED ::1:5432"), { code: "ECONNREFUSED" })], "");
    const error = wrapPostgresError("write", "r1", refused, "localhost:5432/test");
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ message: "PostgresRunStore: cannot reach the database at localhost:5432/test (ECONNREFUSED).", operation: "write", runId: "r1", cause: refused });
  });

  it("says when the server refuses the login, and wraps other errors with their SQLSTATE", () => {
    const login = Object.assign(new Error('password authentication failed for user "app"'), { code: "28P01" });
    expect(wrapPostgresError("getRun", "r1", login, "h:5432/d").message).toBe('PostgresRunStore: cannot log in to the database at h:5432/d: password authentication failed for user "app" (28P01).');
    const other = Object.assign(new Error("value too long"), { code: "22001" });
    expect(wrapPostgresError("createRun", "r1", other, "h").message).toBe('PostgresRunStore: createRun failed for run "r1": value too long (22001)');
    expect(wrapPostgresError("listRuns", undefined, new Error("Connection terminated unexpectedly"), "h:1/d").message).toBe(
      "PostgresRunStore: lost the connection to the database at h:1/d (Connection terminated unexpectedly).",
    );
    // A statement pg refused unsent, its connection failed before: the same words.
    const unsent = new Error("Client has encountered a connection error and is not queryable");
    expect(wrapPostgresError("cancelRun", "r1", unsent, "h:1/d").message).toBe(
      "PostgresRunStore: lost the connection to the database at h:1/d (Client has encountered a connection error and is not queryable).",
    );
    expect(isConnectionLost(unsent)).toBe(true);
  });

  it("reports timeouts with reason \"timeout\": a statement the server cancelled, a silent server, a connection not made in time", () => {
    const cancelled = Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" });
    const cases: [unknown, RegExp][] = [
      [cancelled, /write took longer than statementTimeoutMs at h:1\/d, and the server cancelled it/],
      [new Error("Query read timeout"), /did not answer write within statementTimeoutMs/],
      [new Error("Connection terminated due to connection timeout"), /could not connect to the database at h:1\/d within connectionTimeoutMs/],
    ];
    for (const [cause, message] of cases) {
      const error = wrapPostgresError("write", "r1", cause, "h:1/d");
      expect(error).toMatchObject({ reason: "timeout", operation: "write", runId: "r1", cause });
      expect(error.message).toMatch(message);
    }
    expect(wrapPostgresError("write", "r1", new Error("Connection terminated unexpectedly"), "h:1/d")).toMatchObject({ reason: "error" });
  });

  it("tells a call that found no free connection in a full pool from one whose connection could not be made", () => {
    const pool = { options: { max: 10 }, totalCount: 10, idleCount: 0, waitingCount: 20 };
    const queued = new Error("timeout exceeded when trying to connect");
    const error = wrapPostgresError("createRun", "r1", queued, "h:1/d", undefined, { pool, ownsPool: true });
    expect(error).toMatchObject({ reason: "timeout", operation: "createRun", runId: "r1", cause: queued });
    expect(error.message).toBe(
      "PostgresRunStore: no connection of the pool's 10 to the database at h:1/d was free within connectionTimeoutMs: all were busy with other calls. Run fewer runs at once, raise connectionTimeoutMs, or pass a pg.Pool with a bigger `max` as `pool` (timeout exceeded when trying to connect).",
    );
    // A pool of the caller's: its own settings are named.
    expect(wrapPostgresError("getRun", "r1", queued, "h:1/d", undefined, { pool: { ...pool, waitingCount: 0 }, ownsPool: false }).message).toBe(
      "PostgresRunStore: no connection of the pool's 10 to the database at h:1/d was free within the pool's connectionTimeoutMillis: all were busy with other calls. Run fewer runs at once, give the pool a bigger `max`, or raise its connectionTimeoutMillis (timeout exceeded when trying to connect).",
    );
    // A pool whose size cannot be read.
    expect(wrapPostgresError("getRun", "r1", queued, "h:1/d").message).toMatch(/^PostgresRunStore: no connection of the pool to the database at h:1\/d was free within connectionTimeoutMs: all were busy/);
    const notMade = new Error("Connection terminated due to connection timeout");
    expect(wrapPostgresError("getRun", "r1", notMade, "h:1/d", undefined, { pool, ownsPool: false })).toMatchObject({
      reason: "timeout",
      message: "PostgresRunStore: could not connect to the database at h:1/d within the pool's connectionTimeoutMillis (Connection terminated due to connection timeout).",
    });
  });

  it("says the server closed the connection (57P01, 57P02) or is starting up or shutting down (57P03), not that it cannot be reached", () => {
    const terminated = Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
    const error = wrapPostgresError("write", "r1", terminated, "h:1/d");
    expect(error).toMatchObject({ reason: "error", operation: "write", runId: "r1", cause: terminated });
    expect(error.message).toBe(
      "PostgresRunStore: the database at h:1/d closed the connection during write: it was terminated by an administrator (pg_terminate_backend) or a server restart (57P01: terminating connection due to administrator command). A later call connects again.",
    );
    const crashed = Object.assign(new Error("terminating connection because of crash of another server process"), { code: "57P02" });
    expect(wrapPostgresError("getRun", "r1", crashed, "h:1/d").message).toMatch(/^PostgresRunStore: the database at h:1\/d closed the connection during getRun: .* \(57P02: terminating connection because of crash/);
    const starting = Object.assign(new Error("the database system is starting up"), { code: "57P03" });
    expect(wrapPostgresError("getRun", "r1", starting, "h:1/d")).toMatchObject({
      reason: "error",
      message: "PostgresRunStore: the database at h:1/d is starting up or shutting down and accepts no connections now (57P03: the database system is starting up); try again shortly.",
    });
    for (const cause of [terminated, crashed, starting]) expect(wrapPostgresError("getRun", "r1", cause, "h:1/d").message).not.toMatch(/cannot reach/);
  });

  it("says a lock was not obtained within the connection's lock_timeout (55P03), with where it is set and what to do", () => {
    const locked = Object.assign(new Error("canceling statement due to lock timeout"), { code: "55P03" });
    const error = wrapPostgresError("write", "r1", locked, "h:1/d");
    expect(error).toMatchObject({ reason: "timeout", operation: "write", runId: "r1", cause: locked });
    expect(error.message).toBe(
      "PostgresRunStore: write did not obtain a lock at h:1/d within the lock_timeout of its connection (55P03: canceling statement due to lock timeout): another transaction held a row or table it needs (a long transaction, a migration, a LOCK TABLE). The store sets no lock_timeout: it is the connection string's options (-c lock_timeout=...) or the database role's (ALTER ROLE ... SET lock_timeout); raise it, or find what holds the lock (pg_locks, pg_stat_activity). A later call tries again.",
    );
    expect(wrapPostgresError("getRun", "r1", locked, "h:1/d", undefined, { migrating: true }).message).toMatch(/^PostgresRunStore: the migration of its tables before getRun did not obtain a lock/);
  });

  it("tells a lost connection (worth one more try) from timeouts, refusals and a server that cannot be reached", () => {
    const lost = [
      Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
      Object.assign(new Error("terminating connection due to idle-session timeout"), { code: "57P05" }),
      Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
      new Error("Connection terminated unexpectedly"),
      new Error("Client has encountered a connection error and is not queryable"),
    ];
    for (const error of lost) expect(isConnectionLost(error), error.message).toBe(true);
    const other = [
      Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" }),
      Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" }),
      Object.assign(new Error("canceling statement due to lock timeout"), { code: "55P03" }),
      Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
      Object.assign(new Error("the database system is starting up"), { code: "57P03" }),
      new Error("Connection terminated due to connection timeout"),
      new Error("Query read timeout"),
      new Error("timeout exceeded when trying to connect"),
      undefined,
    ];
    for (const error of other) expect(isConnectionLost(error), String(error?.message)).toBe(false);
  });

  it("names the limit that ran out: statementTimeoutMs only when the store set it, else the connection's own; and the migration when it was running", () => {
    const cancelled = Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" });
    const given = wrapPostgresError("claimRun", "r1", cancelled, "h:1/d", undefined, { ownsPool: false });
    expect(given).toMatchObject({ reason: "timeout", operation: "claimRun", runId: "r1" });
    expect(given.message).toBe(
      "PostgresRunStore: claimRun took longer than the statement_timeout of its connection at h:1/d, and the server cancelled it (canceling statement due to statement timeout). The store sets none on a pool it is given: it is the pool's statement_timeout, the connection string's options (-c statement_timeout=...) or the database role's (ALTER ROLE ... SET statement_timeout).",
    );
    // A store's own pool with statementTimeoutMs: 0 sets none either.
    expect(wrapPostgresError("claimRun", "r1", cancelled, "h:1/d", undefined, { ownsPool: true, statementTimeoutMs: 0 }).message).toMatch(
      /claimRun took longer than the statement_timeout of its connection at h:1\/d, .* The store sets none with statementTimeoutMs: 0: it is the connection string's options \(-c statement_timeout=\.\.\.\) or the database role's/,
    );
    expect(wrapPostgresError("claimRun", "r1", cancelled, "h:1/d", undefined, { ownsPool: true, statementTimeoutMs: 300 }).message).toMatch(/^PostgresRunStore: claimRun took longer than statementTimeoutMs \(300 ms\) at h:1\/d/);
    const silent = wrapPostgresError("getRun", "r1", new Error("Query read timeout"), "h:1/d", undefined, { ownsPool: false });
    expect(silent).toMatchObject({ reason: "timeout", message: "PostgresRunStore: the database at h:1/d did not answer getRun within the query_timeout of the pool (Query read timeout)." });
    // While preparing the tables: the migration is named, and the call it came before.
    const migrating = wrapPostgresError("createRun", "r1", cancelled, "h:1/d", undefined, { ownsPool: false, migrating: true });
    expect(migrating).toMatchObject({ reason: "timeout", operation: "createRun", runId: "r1" });
    expect(migrating.message).toMatch(/^PostgresRunStore: the migration of its tables before createRun took longer than the statement_timeout of its connection/);
    const denied = Object.assign(new Error("permission denied for database test"), { code: "42501" });
    expect(wrapPostgresError("createRun", "r1", denied, "h:1/d", undefined, { migrating: true })).toMatchObject({
      operation: "createRun",
      runId: "r1",
      reason: "error",
      cause: denied,
      message: 'PostgresRunStore: createRun failed for run "r1" while migrating its tables: permission denied for database test (42501)',
    });
    expect(wrapPostgresError("migrate", undefined, cancelled, "h:1/d", undefined, { migrating: true }).message).toMatch(/^PostgresRunStore: the migration of its tables took longer than statementTimeoutMs at h:1\/d/);
  });

  it("refuses a cursor key the database cannot read as listRuns refuses a damaged cursor", () => {
    const cause = Object.assign(new Error('invalid input syntax for type bigint: "abc"'), { code: "22P02" });
    expect(wrapPostgresError("listRuns", undefined, cause, "h:5432/d")).toMatchObject({
      name: "InvalidArgumentError",
      argument: "options.cursor",
      message: "RunStore.listRuns: options.cursor is not a cursor listRuns made (its position is damaged); pass the `cursor` of a row listed with the same sort and order.",
      cause,
    });
    expect(wrapPostgresError("createRun", "r1", cause, "h").message).toBe('PostgresRunStore: createRun failed for run "r1": invalid input syntax for type bigint: "abc" (22P02)');
  });

  it("names the server that has no SSL, or whose certificate pg cannot verify, with what to change", () => {
    const noSsl = wrapPostgresError("open", undefined, new Error("The server does not support SSL connections"), "h:5432/d");
    expect(RunStoreError.isInstance(noSsl)).toBe(true);
    expect(noSsl.message).toBe(
      "PostgresRunStore: the database at h:5432/d does not support SSL connections, which the connection asks for (sslmode in the connection string, or the ssl option); connect without SSL, or enable SSL on the server.",
    );
    const selfSigned = Object.assign(new Error("self-signed certificate"), { code: "DEPTH_ZERO_SELF_SIGNED_CERT" });
    expect(wrapPostgresError("open", undefined, selfSigned, "h:5432/d").message).toBe(
      "PostgresRunStore: cannot verify the SSL certificate of the database at h:5432/d: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT). pg verifies it for sslmode=prefer, require and verify-ca too (as verify-full): give the server's CA with sslrootcert=<file>, or add uselibpqcompat=true for libpq's meaning of the sslmode (require: encrypted, not verified).",
    );
    const altName = Object.assign(new Error("Hostname/IP does not match certificate's altnames: Host: h. is not in the cert's altnames: DNS:other"), { code: "ERR_TLS_CERT_ALTNAME_INVALID" });
    expect(wrapPostgresError("open", undefined, altName, "h:5432/d").message).toMatch(/^PostgresRunStore: cannot verify the SSL certificate of the database at h:5432\/d: Hostname\/IP does not match .* \(ERR_TLS_CERT_ALTNAME_INVALID\)\. /);
  });
});
