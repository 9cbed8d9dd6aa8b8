import { RunFinishedError, RunStoreError } from "@agentrx/executors";
import { wrapStoreError } from "../internal/store-errors";

const STORE = "PostgresRunStore";
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "ECONNRESET", "EAI_AGAIN", "EPIPE", "57P01", "57P03"]);
const REFUSED_LOGIN = new Set(["28000", "28P01", "3D000"]);

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

/** A `pg` error as a `RunStoreError`; connection failures say where the store tried to connect. */
export function wrapPostgresError(operation: string, runId: string | undefined, error: unknown, target: string, subject?: string): Error {
  if (RunStoreError.isInstance(error) || RunFinishedError.isInstance(error)) return error;
  const code = codeOf(error);
  if (code !== undefined && (UNREACHABLE.has(code) || REFUSED_LOGIN.has(code))) {
    const reason = REFUSED_LOGIN.has(code) ? `cannot log in to the database at ${target}: ${(error as Error).message}` : `cannot reach the database at ${target}`;
    return new RunStoreError({ operation, runId, message: `${STORE}: ${reason} (${code}).`, cause: error });
  }
  const message = (error as Error | null)?.message ?? "";
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
