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
  /** Another fresh schema for one test (`<schema>_<n>`), dropped by `drop()`. */
  newSchema(): string;
  /** The connection string with `application_name` set to `app` (to find its backends in `pg_stat_activity`). */
  urlOf(app: string): string;
  /** A pool of its own whose connections are named `app` (errors of idle connections ignored), ended by `drop()`. */
  appPool(app: string): pg.Pool;
  /** Ends the pools of `appPool`, drops the schemas of `newSchema` and the schema, and ends the pool. */
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
  const schemas = [schema];
  const appPools: pg.Pool[] = [];
  const urlOf = (app: string) => {
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set("application_name", app);
    return url.toString();
  };
  return {
    connectionString: TEST_DATABASE_URL,
    schema,
    skip,
    assertReachable() {
      if (unreachable !== undefined) throw new Error(`The ${label} tests need PostgreSQL: ${unreachable}.`);
    },
    pool: poolOf,
    newSchema() {
      const name = `${schema}_${schemas.length}`;
      schemas.push(name);
      return name;
    },
    urlOf,
    appPool(app) {
      const appPool = new pg.Pool({ connectionString: urlOf(app), max: 4 });
      appPool.on("error", () => undefined);
      appPools.push(appPool);
      return appPool;
    },
    async drop() {
      await Promise.all(appPools.splice(0).map((appPool) => appPool.end()));
      if (unreachable === undefined) for (const name of schemas) await poolOf().query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await pool?.end();
      pool = undefined;
    },
  };
}
