import { RunFinishedError, RunStoreError } from "@agentrx/executors";
import { damagedCursorError } from "../internal/run-list-query";
import { wrapStoreError } from "../internal/store-errors";

const STORE = "PostgresRunStore";
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "ECONNRESET", "EAI_AGAIN", "EPIPE", "57P01", "57P03"]);
const REFUSED_LOGIN = new Set(["28000", "28P01", "3D000"]);
/** Node.js's codes for a server certificate it cannot verify. */
const UNVERIFIED_CERTIFICATE = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** Where the store connects, for messages: host, port and database, never the password. */
export function describeTarget(connectionString: string | undefined, poolOptions: Record<string, unknown> | undefined): string {
  const source = connectionString ?? (typeof poolOptions?.connectionString === "string" ? poolOptions.connectionString : undefined);
  if (source !== undefined) {
    try {
      const url = new URL(source);
      return `${url.hostname || "localhost"}:${url.port || "5432"}${url.pathname || ""}`;
    } catch {
      return "the configured connection string";
    }
  }
  const host = typeof poolOptions?.host === "string" ? poolOptions.host : (process.env.PGHOST ?? "localhost");
  const port = poolOptions?.port ?? process.env.PGPORT ?? 5432;
  const database = typeof poolOptions?.database === "string" ? `/${poolOptions.database}` : "";
  return `${host}:${String(port)}${database}`;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code) return code;
  // Node reports a refused connection to every address of a host name as an AggregateError.
  const inner = (error as { errors?: unknown } | null)?.errors;
  return Array.isArray(inner) ? codeOf(inner[0]) : undefined;
}

/**
 * A `pg` error as a `RunStoreError`; connection failures say where the store tried to connect: an
 * unreachable server, a refused login, a server without the SSL the connection asks for, a
 * certificate that cannot be verified. A `listRuns` cursor whose key the database cannot read (a
 * damaged SQLite row's text) is the `InvalidArgumentError` of a damaged cursor instead.
 */
export function wrapPostgresError(operation: string, runId: string | undefined, error: unknown, target: string, subject?: string): Error {
  if (RunStoreError.isInstance(error) || RunFinishedError.isInstance(error)) return error;
  const code = codeOf(error);
  if (code !== undefined && (UNREACHABLE.has(code) || REFUSED_LOGIN.has(code))) {
    const reason = REFUSED_LOGIN.has(code) ? `cannot log in to the database at ${target}: ${(error as Error).message}` : `cannot reach the database at ${target}`;
    return new RunStoreError({ operation, runId, message: `${STORE}: ${reason} (${code}).`, cause: error });
  }
  const message = (error as Error | null)?.message ?? "";
  // The only value of listRuns the database parses is the cursor's key: a text one (a damaged
  // SQLite row's position, see decodeCursor) that no bigint or double is.
  if (operation === "listRuns" && code === "22P02") return damagedCursorError(error);
  // pg's own words, without a code, when the server answers "no" to SSL.
  if (/^The server does not support SSL connections/.test(message)) {
    return new RunStoreError({
      operation,
      runId,
      message: `${STORE}: the database at ${target} does not support SSL connections, which the connection asks for (sslmode in the connection string, or the ssl option); connect without SSL, or enable SSL on the server.`,
      cause: error,
    });
  }
  if (code !== undefined && UNVERIFIED_CERTIFICATE.has(code)) {
    // pg 8 reads sslmode=prefer, require and verify-ca as verify-full (and warns of it once per process).
    return new RunStoreError({
      operation,
      runId,
      message: `${STORE}: cannot verify the SSL certificate of the database at ${target}: ${message} (${code}). pg verifies it for sslmode=prefer, require and verify-ca too (as verify-full): give the server's CA with sslrootcert=<file>, or add uselibpqcompat=true for libpq's meaning of the sslmode (require: encrypted, not verified).`,
      cause: error,
    });
  }
  if (code === "42P01" || code === "3F000") {
    // The tables (or their schema) were there when the store opened: someone dropped them since.
    return new RunStoreError({ operation, runId, reason: "gone", message: `${STORE}: ${operation} found the store's tables gone at ${target}: ${message} (${code}); they were dropped after the store opened them. A new store on an empty schema creates them again.`, cause: error });
  }
  if (code === "57014" && /statement timeout/i.test(message)) {
    return new RunStoreError({ operation, runId, reason: "timeout", message: `${STORE}: ${operation} took longer than statementTimeoutMs at ${target}, and the server cancelled it (${message}).`, cause: error });
  }
  if (/Query read timeout/i.test(message)) {
    return new RunStoreError({ operation, runId, reason: "timeout", message: `${STORE}: the database at ${target} did not answer ${operation} within statementTimeoutMs (${message}).`, cause: error });
  }
  if (/timeout exceeded when trying to connect|connection timeout/i.test(message)) {
    return new RunStoreError({ operation, runId, reason: "timeout", message: `${STORE}: could not connect to the database at ${target} within connectionTimeoutMs (${message}).`, cause: error });
  }
  if (/Connection terminated/i.test(message)) {
    return new RunStoreError({ operation, runId, message: `${STORE}: lost the connection to the database at ${target} (${message}).`, cause: error });
  }
  return wrapStoreError(STORE, operation, runId, error, subject);
}
