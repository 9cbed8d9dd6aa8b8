// How a documentation block says which runtimes it needs: ```ts runtime=node, with a first-line
// comment that tells readers why (scripts/doc-blocks.mjs).
import { describe, expect, it } from "vitest";
import { blockRuntimes, runsUnder, type DocBlock } from "../../scripts/doc-blocks.mjs";

describe("blockRuntimes", () => {
  it("runs a block without runtime= everywhere", () => {
    expect(blockRuntimes("", "const a = 1;", "x.md block 1")).toBeUndefined();
    expect(blockRuntimes(" title=example", "const a = 1;", "x.md block 1")).toBeUndefined();
  });

  it("limits a block to the runtimes its fence names, when its first line names them too", () => {
    expect(blockRuntimes(" runtime=node", "// Node.js only: it spawns node with tsx.\nconst a = 1;", "x.md block 1")).toEqual(["node"]);
    expect(blockRuntimes(" runtime=node,bun", "// Node.js and Bun only: Deno lacks X.\n", "x.md block 1")).toEqual(["node", "bun"]);
  });

  it("refuses an unknown runtime, or a block that does not tell readers why", () => {
    expect(() => blockRuntimes(" runtime=workerd", "// workerd only\n", "x.md code block 2")).toThrow(/x\.md code block 2: runtime=workerd names unknown runtime\(s\) workerd; use node, deno, bun/);
    expect(() => blockRuntimes(" runtime=node", "const a = 1;\n", "x.md code block 3")).toThrow(/x\.md code block 3: a block limited to runtime=node starts with a comment that names Node\.js and says why/);
    expect(() => blockRuntimes(" runtime=node,deno", "// Node.js only: ...\n", "x.md code block 4")).toThrow(/names Node\.js and Deno/);
  });
});

it("runsUnder follows the block's runtimes", () => {
  const block = (runtimes: DocBlock["runtimes"]): DocBlock => ({ source: "x.md", index: 1, fileName: "x_md_1.ts", runtimes, code: "" });
  expect(["node", "deno", "bun"].map((runtime) => runsUnder(block(undefined), runtime as "node"))).toEqual([true, true, true]);
  expect(["node", "deno", "bun"].map((runtime) => runsUnder(block(["node"]), runtime as "node"))).toEqual([true, false, false]);
});
