export declare const root: string;
export interface DocBlock {
  source: string;
  index: number;
  fileName: string;
  /** The runtimes the block is limited to (its fence's `runtime=`), or undefined for all. */
  runtimes: DocRuntime[] | undefined;
  /** The repository file the block shows whole (its fence's `file=`): checked against it, run by its own test. */
  file?: string | undefined;
  /** The block uses vitest's own API (its fence says `vitest`): only the docs test, inside vitest, runs it. */
  vitest?: boolean;
  code: string;
}
/** A runtime of the matrix. */
export type DocRuntime = "node" | "deno" | "bun";
export declare const RUNTIME_NAMES: Record<DocRuntime, string>;
export declare function blockRuntimes(info: string, code: string, where: string): DocRuntime[] | undefined;
export declare function runsUnder(block: DocBlock, runtime: DocRuntime): boolean;
export declare function docFiles(): string[];
export declare function docBlocks(file: string): DocBlock[];
export declare function writeDocBlocks(dir: string): DocBlock[];
/** Makes `dir` (emptied first) a working directory for the blocks, with the repository's top-level entries (but .agentrx) linked into it; returns `dir`. */
export declare function blockWorkDir(dir: string): string;
