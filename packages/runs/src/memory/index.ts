export { MemoryRunStore } from "./memory-run-store";
export type { MemoryRunStoreOptions } from "./memory-run-store";
