// What a bundler pulls in for `AgentExecutor` alone, bundled from the sources (through the
// repository's tsconfig paths) the way an application's bundler does it: nothing of
// `@agentrx/viewer` (the trace page, the `ui` server, the notebook display), which
// `@agentrx/executors` only imports lazily, through a specifier bundlers leave alone, when a run is
// displayed in a notebook or `renderTracePage` is called (see docs/notebooks.md).
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { root } from "./browser/bundle-for-browser";

/** Bundles `contents` (an entry importing the packages by name) from the sources, as a server bundler would (Node built-ins and database drivers left out). */
async function bundle(contents: string) {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    absWorkingDir: root,
    bundle: true,
    write: false,
    platform: "node",
    format: "esm",
    minify: true,
    metafile: true,
    logLevel: "silent",
    tsconfig: join(root, "tsconfig.json"),
    // The peer dependencies an application installs anyway.
    external: ["@langchain/core", "@langchain/core/*", "rxjs", "rxjs/*", "zod", "zod/*", "@opentelemetry/api", "better-sqlite3", "pg"],
  });
  const text = result.outputFiles[0]?.text ?? "";
  return { inputs: Object.keys(result.metafile.inputs), text, bytes: Buffer.byteLength(text) };
}

describe("a bundle of AgentExecutor alone", () => {
  it("has nothing of @agentrx/viewer in it, and the viewer's own bundle does", async () => {
    const executor = await bundle(`export { AgentExecutor } from "@agentrx/executors";`);
    expect(executor.inputs.some((input) => input.startsWith("packages/executors/src/executor/"))).toBe(true);
    expect(executor.inputs.filter((input) => input.startsWith("packages/viewer/"))).toEqual([]);
    // The trace page's script, its shell and the notebook table, by marks only they carry.
    for (const mark of ["agentrx-data", "Content-Security-Policy", "agentrx-run-head", "waterfall"]) expect(executor.text).not.toContain(mark);
    expect(executor.text).toContain("@agentrx/viewer"); // the lazy import's specifier, left alone

    // The same marks are found in a bundle that does use the viewer: the check can fail.
    const viewer = await bundle(`export { AgentExecutor } from "@agentrx/executors"; export { renderTracePage, displayRun } from "@agentrx/viewer";`);
    expect(viewer.inputs.some((input) => input.startsWith("packages/viewer/src/trace-page/"))).toBe(true);
    for (const mark of ["agentrx-data", "Content-Security-Policy", "agentrx-run-head"]) expect(viewer.text).toContain(mark);
    expect(executor.bytes).toBeLessThan(viewer.bytes * 0.8);
    console.log(`AgentExecutor alone: ${executor.bytes} bytes minified; with the viewer: ${viewer.bytes} bytes`);
  }, 60_000);
});
