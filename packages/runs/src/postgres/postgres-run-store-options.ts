/** What a query resolves with: the part of `pg`'s `QueryResult` the store reads. */
export interface PostgresQueryResult {
  rows: Record<string, unknown>[];
  rowCount: number | null;
}

/** A connection checked out of a pool: the part of `pg`'s `PoolClient` the store uses. */
export interface PostgresPoolClient {
  query(text: string): Promise<unknown>;
  query(config: { text: string; values?: unknown[] }): Promise<PostgresQueryResult>;
  release(destroy?: boolean): void;
}

/**
 * The part of a `pg.Pool` the store uses. Declared here so that the package's types do not need
 * `@types/pg`; a `pg.Pool` fits it.
 */
export interface PostgresPool {
  query(config: { name?: string; text: string; values?: unknown[] }): Promise<PostgresQueryResult>;
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
  on?(event: "error", listener: (error: Error) => void): unknown;
}

/** Where a {@link PostgresRunStore} connects: a pool you own. */
export interface PostgresPoolOptions {
  /**
   * A `pg.Pool` you own: the store queries through it and leaves it open on `close()`. Nothing is
   * read from the environment: pass `process.env.DATABASE_URL` as `connectionString` to use it.
   */
  pool: PostgresPool;
  connectionString?: undefined;
  /** Only with `connectionString`: set `statement_timeout` and `query_timeout` on your pool. */
  statementTimeoutMs?: undefined;
  /** Only with `connectionString`: set `connectionTimeoutMillis` on your pool. */
  connectionTimeoutMs?: undefined;
  /**
   * The schema that holds the store's tables, created when missing: letters, digits and
   * underscores, not starting with a digit. A `?schema=` in the pool's own `connectionString`
   * (`new pg.Pool({ connectionString })`) picks it too, as for the store's `connectionString`; one
   * that names another schema than this option is refused.
   * @default the `?schema=` of the pool's `connectionString`, else "agentrx"
   */
  schema?: string | undefined;
}

/** Where a {@link PostgresRunStore} connects: a connection string. */
export interface PostgresConnectionStringOptions {
  /**
   * A connection string (`postgres://user:password@host:5432/database`): the store creates a
   * `pg.Pool` for it and ends that pool on `close()`. A `?schema=<name>` in a `postgres://` or
   * `postgresql://` URL picks the schema, as it does for `agentrx --db` (`pg` ignores the
   * parameter), so an application and the CLI given the same `DATABASE_URL` use the same schema.
   */
  connectionString: string;
  pool?: undefined;
  /**
   * How long one statement may run, in milliseconds, before it fails with a `RunStoreError` whose
   * `reason` is `"timeout"`: the pool's connections get it as PostgreSQL's `statement_timeout` (the
   * server cancels the statement, e.g. one waiting for a row another transaction locked), and as
   * `pg`'s `query_timeout` half a second later (for a server that stopped answering). 0 turns both
   * off. With `pool`, configure your pool instead.
   * @default 10000
   */
  statementTimeoutMs?: number | undefined;
  /**
   * How long opening a connection may take, in milliseconds, before the call fails with a
   * `RunStoreError` whose `reason` is `"timeout"` (the pool's `connectionTimeoutMillis`). 0 waits
   * as long as the operating system does.
   * @default 10000
   */
  connectionTimeoutMs?: number | undefined;
  /**
   * The schema that holds the store's tables, created when missing: letters, digits and
   * underscores, not starting with a digit. A `?schema=` in `connectionString` that names another
   * one is refused with an `InvalidArgumentError`: give it in one place.
   * @default the `?schema=` of `connectionString`, else "agentrx"
   */
  schema?: string | undefined;
}

/** Options of {@link PostgresRunStore}: exactly one of `pool` or `connectionString`, and a `schema`. */
export type PostgresRunStoreOptions = PostgresPoolOptions | PostgresConnectionStringOptions;
