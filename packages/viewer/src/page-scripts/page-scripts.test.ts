import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DIFF_PAGE_SCRIPT, RUN_LIST_SCRIPT, TRACE_PAGE_SCRIPT } from "./page-scripts.generated";

const script = fileURLToPath(new URL("../../scripts/build-page-scripts.mjs", import.meta.url));

describe("the pages' scripts", () => {
  it("are bundled from the current sources (the committed module is up to date)", () => {
    // Exits non-zero, naming the file, when src/page-scripts/page-scripts.generated.ts is stale.
    expect(() => execFileSync(process.execPath, [script, "--check"], { stdio: "pipe" })).not.toThrow();
  });

  it("are whole scripts, not functions pasted together at run time", () => {
    for (const code of [TRACE_PAGE_SCRIPT, RUN_LIST_SCRIPT, DIFF_PAGE_SCRIPT]) {
      expect(code).not.toMatch(/<\/script/i);
      expect(code).not.toContain("__name");
      expect(() => new Function(code)).not.toThrow(); // parses
    }
  });
});
