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
  /**
   * The schema that holds the store's tables, created when missing: letters, digits and
   * underscores, not starting with a digit.
   * @default "agentrx"
   */
  schema?: string;
}

/** Where a {@link PostgresRunStore} connects: a connection string. */
export interface PostgresConnectionStringOptions {
  /**
   * A connection string (`postgres://user:password@host:5432/database`): the store creates a
   * `pg.Pool` for it and ends that pool on `close()`.
   */
  connectionString: string;
  pool?: undefined;
  /**
   * The schema that holds the store's tables, created when missing: letters, digits and
   * underscores, not starting with a digit.
   * @default "agentrx"
   */
  schema?: string;
}

/** Options of {@link PostgresRunStore}: exactly one of `pool` or `connectionString`, and a `schema`. */
export type PostgresRunStoreOptions = PostgresPoolOptions | PostgresConnectionStringOptions;
