import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// A browser project has no `@types/node`: the declarations of the browser entry (what the `browser`
// export condition resolves to, see docs/browsers.md) must type-check without them. This checks the
// built files (`npm run build -w packages/runs` first) as such a project would: the DOM library,
// no `types`, the `browser` condition, `skipLibCheck` off.
const dist = fileURLToPath(new URL("../../dist/", import.meta.url));
const entries = ["index.browser.d.ts", "index.browser.d.cts"].map((name) => `${dist}${name}`);

describe("the browser entry's declarations", () => {
  it.each(entries)("type-check without @types/node: %s", (file) => {
    expect(existsSync(file), `${file} is missing: run npm run build -w packages/runs`).toBe(true);
    const program = ts.createProgram({
      rootNames: [file],
      options: {
        lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
        types: [],
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        customConditions: ["browser"],
        target: ts.ScriptTarget.ES2022,
        strict: true,
        noEmit: true,
        skipLibCheck: false,
      },
    });
    const source = program.getSourceFile(file)!;
    const problems = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n").split("\n")[0]);
    expect(problems).toEqual([]);
    // No import of a Node built-in (an example in a doc comment may show one) and no Node types.
    expect(source.text).not.toMatch(/^(import|export) .* from ["']node:|^\/\/\/ <reference types=["']node["']/m);
  }, 120_000);
});
