export { PostgresRunStore } from "./postgres-run-store";
export type {
  PostgresConnectionStringOptions,
  PostgresPool,
  PostgresPoolClient,
  PostgresPoolOptions,
  PostgresQueryResult,
  PostgresRunStoreOptions,
} from "./postgres-run-store";
export { postgresMigrationSql } from "./postgres-migrations";
