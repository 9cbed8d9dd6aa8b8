export { SqliteRunStore } from "./sqlite-run-store";
export type { SqliteRunStoreOptions } from "./sqlite-run-store";
export type { SqliteDriver } from "./sqlite-driver";
