// Test-only: bundles code for the browser with esbuild the way an application's bundler would
// (the packages' built dist, resolved through their package.json `exports` with the `browser`
// condition, every dependency bundled too) and records every Node built-in the bundle would need.
import { builtinModules } from "node:module";
import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";

/** The repository's root. */
export const root = fileURLToPath(new URL("../..", import.meta.url));

const BUILTINS = new Set(builtinModules.filter((name) => !name.startsWith("_")));

/** A Node built-in that a module imports (or requires), with the module that does it. */
export interface NodeBuiltinImport {
  /** The specifier as written, e.g. `node:fs` or `crypto`. */
  specifier: string;
  /** The importing file, relative to the repository's root. */
  importer: string;
}

/** Whether `specifier` names a Node built-in: `node:` anything, or a bare name such as `fs`, `fs/promises` or `crypto`. */
export function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith("node:") || BUILTINS.has(specifier);
}

const INNER = Symbol("resolving a built-in");

/**
 * An esbuild plugin that records every Node built-in specifier (`node:` prefixed or bare) into
 * `found`, with its importer, and leaves it external so the build goes on and reports them all.
 * A bare name that the importing package's own `browser` field replaces (e.g. `"crypto": false`,
 * which bundlers honour) is left to esbuild and not recorded: no built-in reaches the bundle.
 */
export function nodeBuiltinRecorder(found: NodeBuiltinImport[]): Plugin {
  return {
    name: "node-builtin-recorder",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === INNER || !isNodeBuiltin(args.path)) return undefined;
        const resolved = await pluginBuild.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: INNER,
        });
        if (resolved.errors.length === 0 && replacedByBrowserField(resolved.path, args.path)) return undefined;
        found.push({ specifier: args.path, importer: fromRoot(args.importer) });
        return { path: args.path, external: true };
      });
    },
  };
}

/**
 * A built-in that esbuild resolved anyway was replaced by a `browser` field: with `false` it
 * resolves to no file at all, or to a file of the importer's choosing. One that resolves into a
 * package of the same name (a polyfill that happens to be installed, like `buffer`) still counts.
 */
function replacedByBrowserField(path: string, specifier: string): boolean {
  if (!isAbsolute(path)) return true;
  const name = specifier.replace(/^node:/, "").split("/")[0]!;
  return !path.includes(`${sep}node_modules${sep}${name}${sep}`);
}

function fromRoot(path: string): string {
  return isAbsolute(path) ? relative(root, path) : path;
}

/** What {@link bundleForBrowser} produced. */
export interface BrowserBundle {
  /** The bundle, one ESM file. */
  code: string;
  /** Every Node built-in the bundled modules import. */
  builtins: NodeBuiltinImport[];
  /** Every bundled file, relative to the repository's root. */
  inputs: string[];
}

/** Options of {@link bundleForBrowser}: the code to bundle, given inline or as a file. */
export type BundleForBrowserOptions = { contents: string; resolveDir?: string } | { entryPoint: string };

/**
 * Bundles `contents` (resolved from the repository's root) or `entryPoint` for the browser:
 * `platform: "browser"`, so the `browser` export condition and `browser` fields apply; everything
 * bundled, the repository's own packages from their dist through node_modules/@agentrx (the
 * repository's tsconfig paths, which point at the sources, are not used).
 */
export async function bundleForBrowser(options: BundleForBrowserOptions): Promise<BrowserBundle> {
  const builtins: NodeBuiltinImport[] = [];
  const result = await build({
    ...("contents" in options
      ? { stdin: { contents: options.contents, resolveDir: options.resolveDir ?? root, sourcefile: "entry.js", loader: "js" as const } }
      : { entryPoints: [options.entryPoint] }),
    absWorkingDir: root,
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    target: "es2022",
    metafile: true,
    logLevel: "silent",
    tsconfigRaw: "{}",
    plugins: [nodeBuiltinRecorder(builtins)],
  });
  return {
    code: result.outputFiles[0]!.text,
    builtins,
    inputs: Object.keys(result.metafile.inputs),
  };
}

/** `builtins` as lines of "importer imports specifier", for a failure message. */
export function describeBuiltins(builtins: readonly NodeBuiltinImport[]): string {
  return builtins.map(({ importer, specifier }) => `${importer} imports "${specifier}"`).join("\n");
}
