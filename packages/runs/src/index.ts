// The Node build of `@agentrx/runs`: the browser build's exports (./index.browser.ts) and the
// stores that need Node, SqliteRunStore and PostgresRunStore.
export * from "./index.browser";
export { SqliteRunStore } from "./sqlite/index";
export type { SqliteDriver, SqliteRunStoreOptions } from "./sqlite/index";
export { PostgresRunStore } from "./postgres/index";
export type {
  PostgresConnectionStringOptions,
  PostgresPool,
  PostgresPoolClient,
  PostgresPoolOptions,
  PostgresQueryResult,
  PostgresRunStoreOptions,
} from "./postgres/index";
