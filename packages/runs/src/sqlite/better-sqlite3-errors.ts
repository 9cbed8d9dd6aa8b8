import { RunStoreError } from "@agentrx/executors";

/** The alternative every "better-sqlite3 cannot be loaded" error names. */
export const NODE_SQLITE_HINT = 'On Node.js 22.13 or later, driver: "node:sqlite" uses the built-in SQLite and needs no addon.';

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const firstLine = (text: string): string => text.split("\n")[0]?.replace(/\.\s*Tried:\s*$/, "").trim() ?? text;

/**
 * What `better-sqlite3`'s loading failure says about its native addon, as one line that says what
 * to run, or undefined when the failure is not the addon's:
 *
 * - `Could not locate the bindings file` (from the `bindings` package): the addon was never
 *   built, as when npm 12 skipped its install script (`allowScripts`) or `--ignore-scripts` was set;
 * - `NODE_MODULE_VERSION` (Node's `ERR_DLOPEN_FAILED`): it was built for another Node.js;
 * - any other `ERR_DLOPEN_FAILED` (`invalid ELF header`, a missing `GLIBC`): for another system.
 */
function addonProblem(error: unknown): string | undefined {
  const message = messageOf(error);
  if (/Could not locate the bindings file/.test(message)) {
    return `the "better-sqlite3" package is installed, but its native addon was never built (npm 12 runs its install script only when the allowScripts field of package.json allows it; --ignore-scripts skips it too): run \`npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3\` (with npm 11 or earlier: \`npm rebuild better-sqlite3\`). ${NODE_SQLITE_HINT} (Could not locate the bindings file)`;
  }
  const abi = /NODE_MODULE_VERSION (\d+)\.\s*This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  if (abi !== null || /compiled against a different Node\.js version/.test(message)) {
    const versions = abi === null ? "" : ` (NODE_MODULE_VERSION ${abi[1]}; this one, Node.js ${globalThis.process?.version ?? "?"}, needs ${abi[2]})`;
    return `the "better-sqlite3" native addon was built for another Node.js version${versions}: run \`npm rebuild better-sqlite3\` with this Node.js (after switching Node.js versions, rebuild native addons). ${NODE_SQLITE_HINT}`;
  }
  if ((error as { code?: unknown } | null)?.code === "ERR_DLOPEN_FAILED") {
    return `the "better-sqlite3" native addon cannot be loaded on this system (${firstLine(message)}), so it was built for another platform or needs a system library this one lacks: run \`npm rebuild better-sqlite3\` on this machine. ${NODE_SQLITE_HINT}`;
  }
  return undefined;
}

/**
 * `error` (thrown while importing `better-sqlite3` or opening its first database) as the
 * `RunStoreError` `store` reports: what happened to the addon and what to run when it is the
 * addon's fault; the "not installed" error of `loadDriver` with the `node:sqlite` alternative
 * added; anything else wrapped, its message kept.
 */
export function betterSqliteLoadError(store: string, error: unknown): RunStoreError {
  const wrapped = RunStoreError.isInstance(error);
  const cause = wrapped ? error.cause : error;
  const problem = addonProblem(cause);
  if (problem !== undefined) return new RunStoreError({ operation: "open", message: `${store}: ${problem}`, cause });
  if (wrapped) return new RunStoreError({ operation: "open", message: `${error.message.replace(/\.?$/, ".")} ${NODE_SQLITE_HINT}`, cause });
  return new RunStoreError({ operation: "open", message: `${store}: the "better-sqlite3" package could not open a database (${firstLine(messageOf(cause))}). Reinstall it: npm install better-sqlite3. ${NODE_SQLITE_HINT}`, cause });
}

/**
 * Why the installed `better-sqlite3` (its package.json, `manifest`) cannot run on Node.js
 * `nodeVersion`, from the lower bound its `engines.node` states (`">=22"`), or undefined when it
 * can, or when either is unknown. better-sqlite3 13, which npm installs as its latest release,
 * needs Node.js 22: on Node.js 20 its addon crashes the process (a segmentation fault) when it
 * opens a database, so the store refuses it before it loads, naming the release to install.
 */
export function betterSqliteEngineProblem(store: string, manifest: unknown, nodeVersion: string | undefined): string | undefined {
  const { version, engines } = (manifest ?? {}) as { version?: unknown; engines?: { node?: unknown } | null };
  const wanted = engines?.node;
  if (typeof wanted !== "string" || nodeVersion === undefined) return undefined;
  const bound = /^\s*>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(wanted);
  if (bound === null) return undefined; // only a plain lower bound is read
  const running = nodeVersion.replace(/^v/, "").split(".").map((part) => Number.parseInt(part, 10) || 0);
  const needed = bound.slice(1).map((part) => Number.parseInt(part ?? "0", 10) || 0);
  // Compared at the first of major, minor and patch that differs: none, or a higher one, fits.
  const differs = needed.findIndex((part, index) => (running[index] ?? 0) !== part);
  if (differs === -1 || (running[differs] ?? 0) > (needed[differs] as number)) return undefined;
  const release = typeof version === "string" ? ` ${version}` : "";
  return (
    `${store}: the installed "better-sqlite3"${release} needs Node.js ${wanted.trim()}, and this is Node.js ${nodeVersion.replace(/^v?/, "")}: ` +
    "its native addon would crash this process. Install the release for this Node.js: npm install better-sqlite3@12 (it supports Node.js 20), or run Node.js 22 or later."
  );
}
