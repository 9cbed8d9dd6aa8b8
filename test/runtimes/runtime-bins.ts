// Where the tests find the runtimes of the matrix. `node scripts/fetch-runtimes.mjs` installs Deno,
// Bun and the supported Node.js lines there (.cache/runtimes/, outside the workspace); the Node.js
// running the tests is the first runtime.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NODE_VERSIONS, nodeLineBin } from "../../scripts/fetch-runtimes.mjs";

/** The repository's root folder. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The command that installs the missing runtimes. */
export const FETCH_RUNTIMES = "node scripts/fetch-runtimes.mjs";

/** A runtime of the matrix: the Node.js running the tests, Deno, Bun, or a Node.js line (`node22`). */
export type RuntimeName = "node" | "deno" | "bun" | `node${string}`;

/** One runtime's binary and whether it is there. */
export interface RuntimeBin {
  name: RuntimeName;
  /** The runtime a block or fixture sees: `"node"` for every Node.js line. */
  runtime: "node" | "deno" | "bun";
  /** For a Node.js line: its major version (20, 22, ...). */
  nodeMajor?: number;
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
  const lines = Object.keys(NODE_VERSIONS).sort((a, b) => Number.parseFloat(a) - Number.parseFloat(b));
  return [
    { name: "node", runtime: "node", path: process.execPath, exists: true },
    ...(["deno", "bun"] as const).map((name) => {
      const path = fetchedRuntimePath(name);
      return { name, runtime: name, path, exists: existsSync(path) };
    }),
    ...lines.map((line): RuntimeBin => {
      const path = nodeLineBin(line);
      return { name: `node${line}`, runtime: "node", nodeMajor: Number.parseInt(line, 10), path, exists: existsSync(path) };
    }),
  ];
}

/**
 * Why `bin` cannot load the repository's `better-sqlite3`, or undefined when it can: the addon in
 * node_modules was built by `npm install` for the Node.js that ran it (CI's, Node.js 20), and an
 * addon loads only under the Node.js ABI it was built for. Other lines use node:sqlite instead.
 */
export function betterSqliteUnavailable(bin: RuntimeBin): string | undefined {
  if (bin.runtime !== "node" || bin.nodeMajor === undefined) return undefined;
  const installedMajor = Number.parseInt(process.versions.node, 10);
  return bin.nodeMajor === installedMajor ? undefined : `better-sqlite3 in node_modules was built for Node.js ${installedMajor}, not ${bin.nodeMajor}`;
}

/**
 * Why the tests that need `bin` cannot run, in one line that says how to install it, or
 * `undefined` when it is there. Outside CI they are skipped with this line; with `CI` set (where
 * .ci/run installs the runtimes first) they fail with it.
 */
export function missingRuntime(bin: RuntimeBin): string | undefined {
  if (bin.exists) return undefined;
  return `${bin.name} is not installed at ${bin.path}: run \`${FETCH_RUNTIMES}\` to install Deno, Bun and the Node.js lines for the runtime tests.`;
}
