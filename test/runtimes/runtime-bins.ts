// Where the tests find the runtimes of the matrix. `node scripts/fetch-runtimes.mjs` installs Deno
// and Bun there (.cache/runtimes/, outside the workspace); Node.js is the one running the tests.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root folder. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The command that installs the missing runtimes. */
export const FETCH_RUNTIMES = "node scripts/fetch-runtimes.mjs";

/** A runtime of the matrix. */
export type RuntimeName = "node" | "deno" | "bun";

/** One runtime's binary and whether it is there. */
export interface RuntimeBin {
  name: RuntimeName;
  /** The binary's absolute path. */
  path: string;
  /** Whether the binary exists (Node.js always does: it runs the tests). */
  exists: boolean;
}

/** The binary `fetch-runtimes` installs for `name`: `.cache/runtimes/node_modules/.bin/<name>`. */
export function fetchedRuntimePath(name: "deno" | "bun"): string {
  return join(REPO_ROOT, ".cache", "runtimes", "node_modules", ".bin", name);
}

/**
 * The matrix's runtimes, Node.js first, each with its binary and whether it exists.
 *
 * @example
 * ```ts
 * import { runtimeBins } from "./runtime-bins";
 *
 * const missing = runtimeBins().filter((bin) => !bin.exists);
 * ```
 */
export function runtimeBins(): RuntimeBin[] {
  return [
    { name: "node", path: process.execPath, exists: true },
    ...(["deno", "bun"] as const).map((name) => {
      const path = fetchedRuntimePath(name);
      return { name, path, exists: existsSync(path) };
    }),
  ];
}

/**
 * Why the tests that need `bin` cannot run, in one line that says how to install it, or
 * `undefined` when it is there. Outside CI they are skipped with this line; with `CI` set (where
 * .ci/run installs the runtimes first) they fail with it.
 */
export function missingRuntime(bin: RuntimeBin): string | undefined {
  if (bin.exists) return undefined;
  return `${bin.name} is not installed at ${bin.path}: run \`${FETCH_RUNTIMES}\` to install Deno and Bun for the runtime tests.`;
}
