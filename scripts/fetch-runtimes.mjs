// Installs the JavaScript runtimes of the test matrix (Deno and Bun, at pinned versions) into
// .cache/runtimes/, outside the workspace, so a plain `npm install` of the repository stays lean.
// Both ship their binary inside the npm package (through optionalDependencies), so this is an
// ordinary `npm install` from the npm registry. Running it again when they are there is a no-op.
//
//   node scripts/fetch-runtimes.mjs
//
// The binaries end up in .cache/runtimes/node_modules/.bin/{deno,bun}; the tests find them there
// (test/runtimes/runtime-bins.ts).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root folder. */
export const root = fileURLToPath(new URL("..", import.meta.url));

/** The runtimes of the matrix and their pinned npm versions. */
export const RUNTIME_VERSIONS = { deno: "2.9.6", bun: "1.4.5" };

/** Where the runtimes are installed. */
export const runtimesDir = join(root, ".cache", "runtimes");

/** The path of one runtime's binary (it may not exist yet). */
export function runtimeBin(name) {
  return join(runtimesDir, "node_modules", ".bin", name);
}

/** The installed npm version of one runtime, or undefined when it is not installed. */
function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(join(runtimesDir, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

/** Whether every runtime is installed at its pinned version, with its binary in place. */
export function runtimesInstalled() {
  return Object.entries(RUNTIME_VERSIONS).every(([name, version]) => installedVersion(name) === version && existsSync(runtimeBin(name)));
}

/** Installs the runtimes when they are missing or at another version; returns their binaries. */
export function fetchRuntimes({ log = console.log } = {}) {
  if (!runtimesInstalled()) {
    mkdirSync(runtimesDir, { recursive: true });
    const manifest = { name: "agentrx-test-runtimes", private: true, description: "Written by scripts/fetch-runtimes.mjs.", dependencies: RUNTIME_VERSIONS };
    writeFileSync(join(runtimesDir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    log(`Installing ${Object.entries(RUNTIME_VERSIONS).map(([name, version]) => `${name}@${version}`).join(" and ")} into ${relative(root, runtimesDir)}/ ...`);
    // --prefix keeps npm in this folder: the repository's workspaces are not touched.
    execFileSync("npm", ["install", "--prefix", runtimesDir, "--no-audit", "--no-fund", "--loglevel=error"], { cwd: runtimesDir, stdio: "inherit" });
    if (!runtimesInstalled()) throw new Error(`fetch-runtimes: npm install finished but ${relative(root, runtimesDir)}/node_modules/.bin lacks a runtime at its pinned version.`);
  }
  const bins = Object.fromEntries(Object.keys(RUNTIME_VERSIONS).map((name) => [name, runtimeBin(name)]));
  for (const [name, bin] of Object.entries(bins)) {
    const reported = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim().split("\n")[0];
    log(`${name}: ${relative(root, bin)} (${reported})`);
  }
  return bins;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) fetchRuntimes();
