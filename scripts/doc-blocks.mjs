// Finds the ```ts code blocks of README.md and docs/*.md. Shared by the docs test (which runs
// every block) and by `npm run typecheck` (which type-checks every block).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));

const FENCE = /^```(?:ts|typescript)[^\n]*\n([\s\S]*?)^```/gm;

/** The markdown files whose blocks run: README.md, then docs/*.md in name order. */
export function docFiles() {
  const docs = join(root, "docs");
  return [
    join(root, "README.md"),
    ...readdirSync(docs)
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => join(docs, name)),
  ];
}

/** The ```ts blocks of one file, each with a file name unique across the repository. */
export function docBlocks(file) {
  const name = relative(root, file);
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(FENCE)].map((match, index) => ({
    source: name,
    index: index + 1,
    fileName: `${name.replace(/[^\w]+/g, "_")}_${index + 1}.ts`,
    code: `${match[1] ?? ""}\nexport {};\n`,
  }));
}

/** Writes every block of every doc file into `dir` (emptied first) and returns the blocks. */
export function writeDocBlocks(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const blocks = docFiles().flatMap(docBlocks);
  for (const block of blocks) writeFileSync(join(dir, block.fileName), block.code);
  return blocks;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = join(root, process.argv[2] ?? ".docs-check");
  const blocks = writeDocBlocks(dir);
  console.log(`Wrote ${blocks.length} doc code blocks to ${relative(root, dir)}/`);
}
