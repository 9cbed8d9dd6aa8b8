// Test-only (not exported by the package): the PostgreSQL database the tests of this repository use.
import pg from "pg";

/** The database of the tests: `DATABASE_URL`, or the local server with trust auth. */
export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface PostgresTestDatabase {
  connectionString: string;
  /** A fresh schema for this test file (`agentrx_test_<random>`), dropped by `drop()`. */
  schema: string;
  /** True when the server is unreachable outside CI: register the tests as skipped. */
  skip: boolean;
  /** Throws the reason the server is unreachable (in CI, where that must fail the tests). */
  assertReachable(): void;
  /** A pool on the database for the tests' own queries (created on first use). */
  pool(): pg.Pool;
  /** Drops the schema and ends the pool. */
  drop(): Promise<void>;
}

/**
 * Probes the test database once. Outside CI an unreachable server makes the tests skip, with one
 * console line that says why; in CI (`CI` set) they fail with that reason instead.
 */
export async function postgresTestDatabase(label: string): Promise<PostgresTestDatabase> {
  const schema = `agentrx_test_${Math.random().toString(36).slice(2, 10)}`;
  let unreachable: string | undefined;
  const probe = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await probe.connect();
    await probe.query("SELECT 1");
  } catch (error) {
    const code = (error as { code?: string }).code ?? (error as { errors?: { code?: string }[] }).errors?.[0]?.code;
    const url = new URL(TEST_DATABASE_URL);
    unreachable = `PostgreSQL is not reachable at ${url.host}${url.pathname} (${code ?? (error as Error).message}); set DATABASE_URL to a reachable database`;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const skip = unreachable !== undefined && !process.env.CI;
  if (skip) console.warn(`Skipping the ${label} tests: ${unreachable} (with CI set, this fails instead).`);
  let pool: pg.Pool | undefined;
  const poolOf = () => (pool ??= new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 4 }));
  return {
    connectionString: TEST_DATABASE_URL,
    schema,
    skip,
    assertReachable() {
      if (unreachable !== undefined) throw new Error(`The ${label} tests need PostgreSQL: ${unreachable}.`);
    },
    pool: poolOf,
    async drop() {
      if (unreachable === undefined) await poolOf().query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool?.end();
      pool = undefined;
    },
  };
}
