// Executes every ```ts code block of README.md and docs/*.md, so the docs cannot rot. Each block
// is written to .docs-tmp/ and imported as its own module; it passes when it runs to completion
// without throwing. Blocks see no OPENAI_API_KEY, so they run offline on scripted models. Blocks
// whose fence limits them to other runtimes (```ts runtime=deno) are skipped; the runtime matrix
// (test/runtimes/runtime-matrix.test.ts) runs the blocks under Deno and Bun.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { root, runsUnder, writeDocBlocks, type DocBlock } from "../scripts/doc-blocks.mjs";

const tmp = join(root, ".docs-tmp");
const blocks: DocBlock[] = writeDocBlocks(tmp);

beforeAll(() => {
  vi.stubEnv("OPENAI_API_KEY", "");
  vi.stubEnv("OPENAI_BASE_URL", "");
});
afterAll(() => {
  vi.unstubAllEnvs();
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
        try {
          await import(pathToFileURL(join(tmp, block.fileName)).href);
        } finally {
          log.mockRestore();
        }
      });
    }
  });
}
