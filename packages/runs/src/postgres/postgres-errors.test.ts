import { RunStoreError } from "@agentrx/executors";
import { describe, expect, it } from "vitest";
import { describeTarget, wrapPostgresError } from "./postgres-errors";

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
  });

  it("reports timeouts with reason \"timeout\": a statement the server cancelled, a silent server, a connection not made in time", () => {
    const cancelled = Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" });
    const cases: [unknown, RegExp][] = [
      [cancelled, /write took longer than statementTimeoutMs at h:1\/d, and the server cancelled it/],
      [new Error("Query read timeout"), /did not answer write within statementTimeoutMs/],
      [new Error("timeout exceeded when trying to connect"), /could not connect to the database at h:1\/d within connectionTimeoutMs/],
      [new Error("Connection terminated due to connection timeout"), /within connectionTimeoutMs/],
    ];
    for (const [cause, message] of cases) {
      const error = wrapPostgresError("write", "r1", cause, "h:1/d");
      expect(error).toMatchObject({ reason: "timeout", operation: "write", runId: "r1", cause });
      expect(error.message).toMatch(message);
    }
    expect(wrapPostgresError("write", "r1", new Error("Connection terminated unexpectedly"), "h:1/d")).toMatchObject({ reason: "error" });
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
