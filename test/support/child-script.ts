// Test-only: the tests that kill, crash or race child processes start dozens of them. Through
// `node --import tsx`, each child spends about 2.5 s of CPU on loader hooks and on transpiling
// every source file it imports before its first line runs; on a 2-core machine that was most of
// what those tests cost. `childScript` bundles a child's TypeScript once per test process with
// esbuild (the `@agentrx/*` sources mapped as in tsconfig.json, every npm package left to Node), so
// each child starts as a plain ES module.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

/** The repository root: its tsconfig.json maps `@agentrx/*` to their sources. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

// Inside the repository's node_modules, so that a bundle's npm imports (and `import.meta.resolve`)
// resolve from the root as the sources' do.
const OUT_DIR = join(REPO_ROOT, "node_modules", ".cache", "agentrx-test-children");

const bundles = new Map<string, Promise<string>>();

/**
 * The path of a runnable ES module bundled from the TypeScript file at `path` (once per test
 * process; concurrent test files that bundle the same script each write it atomically, under a
 * name made from its content).
 */
export function childScript(path: string): Promise<string> {
  let bundled = bundles.get(path);
  if (bundled === undefined) {
    bundled = bundle(path);
    bundles.set(path, bundled);
    bundled.catch(() => bundles.delete(path));
  }
  return bundled;
}

const SKIP = Symbol("resolving a nested dependency");

/**
 * Leaves every npm package to Node, as `packages: "external"` would, except that a package a
 * workspace package keeps in its own node_modules (another version than the root's) is imported by
 * its resolved path, since the bundle resolves from the root. `@agentrx/*` is bundled from the
 * sources (tsconfig.json's paths).
 */
const npmPackagesExternal: Plugin = {
  name: "npm-packages-external",
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === SKIP || args.path.startsWith("@agentrx/") || args.path.startsWith("node:")) return undefined;
      const name = args.path.split("/").slice(0, args.path.startsWith("@") ? 2 : 1).join("/");
      if (!hasNestedCopy(args.resolveDir, name)) return { path: args.path, external: true };
      const resolved = await builder.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: SKIP });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { path: resolved.path, external: true };
    });
  },
};

/** Whether a node_modules between `dir` and the repository root (not the root's own) holds `name`. */
function hasNestedCopy(dir: string, name: string): boolean {
  for (let at = dir; relative(REPO_ROOT, at) !== "" && !relative(REPO_ROOT, at).startsWith(".."); at = dirname(at)) {
    if (existsSync(join(at, "node_modules", name))) return true;
  }
  return false;
}

async function bundle(path: string): Promise<string> {
  const result = await build({
    entryPoints: [path],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    tsconfig: join(REPO_ROOT, "tsconfig.json"),
    plugins: [npmPackagesExternal],
    write: false,
    logLevel: "silent",
  });
  const code = result.outputFiles[0]?.contents;
  if (code === undefined) throw new Error(`esbuild produced no output for ${path}`);
  const hash = createHash("sha256").update(code).digest("hex").slice(0, 16);
  mkdirSync(OUT_DIR, { recursive: true });
  const out = join(OUT_DIR, `${basename(path, ".ts")}-${hash}.mjs`);
  const temporary = `${out}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(temporary, code);
  renameSync(temporary, out);
  pruneOlderBundles(basename(path, ".ts"), out);
  return out;
}

/** A bundle of an older version of a script is deleted once no test run can still use it. */
const STALE_BUNDLE_MS = 60 * 60 * 1000;

/** Deletes the bundles of `name` other than `current` that are over an hour old (older sources). */
function pruneOlderBundles(name: string, current: string): void {
  const pattern = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-[0-9a-f]{16}\\.mjs$`);
  for (const file of readdirSync(OUT_DIR)) {
    const path = join(OUT_DIR, file);
    if (path === current || !pattern.test(file)) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_BUNDLE_MS) rmSync(path, { force: true });
    } catch {
      // another test process pruned it first
    }
  }
}
