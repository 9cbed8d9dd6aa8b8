// Every entry point of the AgentRx packages, bundled for the browser from the built dist the way an
// application's bundler does it (package names, `exports` with the `browser` condition, every
// dependency bundled), must pull in no Node built-in. @agentrx/core, agents and executors have no
// Node-only part (nor has @agentrx/serve: its Node handlers use only the `res` they are given);
// @agentrx/tools, @agentrx/runs and @agentrx/viewer leave theirs out of their `browser` builds,
// and their Node entries still export them. Needs `npm run build` first.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { bundleForBrowser, describeBuiltins, nodeBuiltinRecorder, root, type NodeBuiltinImport } from "./browser/bundle-for-browser";

interface Entry {
  /** What an application imports, e.g. `@agentrx/core/testing`. */
  specifier: string;
  /** The file the `browser` condition points to, if the entry has one. */
  browserFile?: string;
}

type Conditions = { [condition: string]: string | Conditions };

/** Every subpath of a package's `exports` (but ./package.json), read from its package.json. */
function entriesOf(directory: string): Entry[] {
  const pkg = JSON.parse(readFileSync(join(root, "packages", directory, "package.json"), "utf8")) as { name: string; exports: Record<string, Conditions> };
  return Object.entries(pkg.exports)
    .filter(([subpath]) => subpath !== "./package.json")
    .map(([subpath, conditions]) => {
      const browser = conditions.browser;
      const browserImport = typeof browser === "object" ? browser.import : undefined;
      const browserFile = typeof browserImport === "object" ? browserImport.default : browserImport;
      return {
        specifier: `${pkg.name}${subpath.slice(1)}`,
        ...(typeof browserFile === "string" ? { browserFile: join("packages", directory, browserFile) } : {}),
      };
    });
}

/** The names an ES module `specifier` exports in Node, imported through the package name by a real Node process. */
function nodeExports(specifier: string): string[] {
  const script = `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m)));`;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" })) as string[];
}

/** The names the browser build of `specifier` exports, as the bundler sees them. */
async function browserExports(specifier: string): Promise<string[]> {
  const result = await build({
    stdin: { contents: `export * from ${JSON.stringify(specifier)};`, resolveDir: root, loader: "js" },
    absWorkingDir: root,
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    metafile: true,
    logLevel: "silent",
    tsconfigRaw: "{}",
    plugins: [nodeBuiltinRecorder([])],
  });
  return Object.values(result.metafile.outputs).flatMap((output) => output.exports);
}

describe("the Node built-in recorder", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentrx-browser-bundle-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names the file and the specifier of a node: import", async () => {
    const bundle = await bundleForBrowser({ contents: `export * from "./test/browser/fixtures/reads-a-file.js";` });
    expect(bundle.builtins).toEqual<NodeBuiltinImport[]>([{ specifier: "node:fs", importer: "test/browser/fixtures/reads-a-file.js" }]);
    expect(describeBuiltins(bundle.builtins)).toBe('test/browser/fixtures/reads-a-file.js imports "node:fs"');
  });

  it("catches bare built-in names, imported or required", async () => {
    writeFileSync(join(dir, "bare.cjs"), `const { createHash } = require("crypto"); module.exports = () => createHash("sha256");`);
    const bundle = await bundleForBrowser({ contents: `import "./bare.cjs"; import "fs/promises"; import "path";`, resolveDir: dir });
    expect(bundle.builtins.map((found) => found.specifier).sort()).toEqual(["crypto", "fs/promises", "path"]);
    expect(bundle.builtins.find((found) => found.specifier === "crypto")?.importer).toMatch(/bare\.cjs$/);
  });

  it("leaves a built-in that the importing package's browser field replaces", async () => {
    const pkg = join(dir, "node_modules", "random-seed");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "random-seed", main: "index.js", browser: { crypto: false } }));
    writeFileSync(join(pkg, "index.js"), `let crypto; try { crypto = require("crypto"); } catch {} module.exports = () => crypto;`);
    const bundle = await bundleForBrowser({ contents: `import "random-seed";`, resolveDir: dir });
    expect(bundle.builtins).toEqual([]);
  });
});

const PACKAGES = ["core", "agents", "executors", "tools", "runs", "serve", "viewer"];

describe.each(PACKAGES.flatMap(entriesOf).map((entry) => [entry.specifier, entry] as const))("%s bundled for the browser", (_specifier, entry) => {
  it("imports no Node built-in", async () => {
    const bundle = await bundleForBrowser({ contents: `export * from ${JSON.stringify(entry.specifier)};` });
    expect(bundle.builtins, `Node built-ins in the browser bundle of ${entry.specifier}:\n${describeBuiltins(bundle.builtins)}`).toEqual([]);
    // The package's own modules come from its build, not from its sources (but the hand-written
    // re-export of @agentrx/executors/trace-page, which moved to @agentrx/viewer/trace-page).
    const ownInputs = bundle.inputs.filter((input) => input.startsWith("packages/"));
    expect(ownInputs.length).toBeGreaterThan(0);
    expect(ownInputs.filter((input) => !/^packages\/[^/]+\/(dist|node_modules)\//.test(input) && input !== "packages/executors/trace-page/index.js")).toEqual([]);
    if (entry.browserFile) expect(bundle.inputs).toContain(entry.browserFile);
  }, 60_000);
});

/** What the Node entry has and the browser build leaves out: exactly these names. */
const NODE_ONLY: Record<string, string[]> = {
  "@agentrx/core/testing": ["startAnthropicMessagesServer", "startGoogleGenAIServer", "startOpenAICompatibleServer", "startOpenAIResponsesServer"],
  "@agentrx/tools": ["OpenApiToolkit", "createHttpRequestTool", "createOpenApiToolkit", "createSafeHttpClient"],
  "@agentrx/runs": ["PostgresRunStore", "SqliteRunStore"],
  "@agentrx/viewer": ["startUiServer"],
};

describe.each(Object.entries(NODE_ONLY))("%s in Node and in the browser", (specifier, nodeOnly) => {
  it("has a browser condition", () => {
    const [directory] = specifier.replace("@agentrx/", "").split("/");
    expect(entriesOf(directory!).find((entry) => entry.specifier === specifier)?.browserFile).toBeDefined();
  });

  it("exports the Node-only names in Node, and everything else in the browser too", async () => {
    const node = nodeExports(specifier);
    const browser = await browserExports(specifier);
    expect(node).toEqual(expect.arrayContaining(nodeOnly));
    expect(browser.filter((name) => !node.includes(name))).toEqual([]);
    expect(node.filter((name) => !browser.includes(name)).sort()).toEqual([...nodeOnly].sort());
  }, 60_000);
});
