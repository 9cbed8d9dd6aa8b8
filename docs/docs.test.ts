// Executes every ```ts code block of README.md and docs/*.md, so the docs cannot rot. Each block
// is written to .docs-tmp/ and imported as its own module; it passes when it runs to completion
// without throwing. Blocks see no OPENAI_API_KEY, so they run offline on scripted models. Blocks
// whose fence limits them to other runtimes (```ts runtime=deno) are skipped; the runtime matrix
// (test/runtimes/runtime-matrix.test.ts) runs the blocks under Deno and Bun.
//
// The blocks see a temporary folder that links the repository's files as their working directory
// (process.cwd(), and so path.resolve()), so that what they create at relative paths (the README
// quickstart's `new SqliteRunStore()` records into .agentrx/runs.db) is not left in the checkout.
// vitest runs this file in a worker thread, where process.chdir() is not allowed: process.cwd is
// stubbed instead, while each block runs (the process's own folder stays the repository's).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { blockWorkDir, root, runsUnder, writeDocBlocks, type DocBlock } from "../scripts/doc-blocks.mjs";

const tmp = join(root, ".docs-tmp");
const blocks: DocBlock[] = writeDocBlocks(tmp);
const workDir = mkdtempSync(join(tmpdir(), "agentrx-docs-"));

beforeAll(() => {
  blockWorkDir(workDir);
  vi.stubEnv("OPENAI_API_KEY", "");
  vi.stubEnv("OPENAI_BASE_URL", "");
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(workDir, { recursive: true, force: true });
});

it("finds documentation with code blocks", () => {
  expect(blocks.length).toBeGreaterThan(0);
});

const sources = [...new Set(blocks.map((block) => block.source))];
for (const source of sources) {
  const ofSource = blocks.filter((block) => block.source === source);
  describe(source, () => {
    for (const block of ofSource.filter((each) => each.file !== undefined)) {
      it(`code block ${block.index} is ${block.file}, word for word (its own test runs it)`, () => {
        expect(`${block.code.replace(/\nexport \{\};\n$/, "")}`).toBe(readFileSync(join(root, block.file!), "utf8"));
      });
    }
    for (const block of ofSource) {
      it.skipIf(!runsUnder(block, "node"))(`runs code block ${block.index}`, async () => {
        const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
        const cwd = vi.spyOn(process, "cwd").mockReturnValue(workDir);
        try {
          await import(pathToFileURL(join(tmp, block.fileName)).href);
        } finally {
          cwd.mockRestore();
          log.mockRestore();
        }
      });
    }
  });
}

// After the blocks (vitest runs a file's tests in order). The README quickstart records with
// `new SqliteRunStore()`: into .agentrx/runs.db of the working directory.
const defaultStore = blocks.some((block) => runsUnder(block, "node") && /new SqliteRunStore\(\)/.test(block.code));
it.skipIf(!defaultStore)("runs the blocks in a temporary folder: what they write at relative paths is not left in the checkout", () => {
  expect(existsSync(join(workDir, ".agentrx", "runs.db"))).toBe(true);
});
