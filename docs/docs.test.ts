// Executes every ```ts code block in docs/*.md and README.md, so the docs cannot rot.
// Each block is written to .docs-tmp/ and imported as its own module; a block passes when it
// runs to completion without throwing. Blocks see no OPENAI_API_KEY, so they use scripted models.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const root = join(__dirname, "..");
const tmp = join(root, ".docs-tmp");
const files = [
  join(root, "README.md"),
  ...readdirSync(__dirname)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => join(__dirname, name)),
];

const FENCE = /^```(ts|typescript)[^\n]*\n([\s\S]*?)^```/gm;

function blocksOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(FENCE)].map((match) => match[2] ?? "");
}

beforeAll(() => {
  mkdirSync(tmp, { recursive: true });
  vi.stubEnv("OPENAI_API_KEY", "");
  vi.stubEnv("OPENAI_BASE_URL", "");
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(tmp, { recursive: true, force: true });
});

it("finds documentation with code blocks", () => {
  expect(files.flatMap(blocksOf).length).toBeGreaterThan(0);
});

for (const file of files) {
  const name = relative(root, file);
  const blocks = blocksOf(file);
  if (blocks.length === 0) continue;
  describe(name, () => {
    blocks.forEach((code, index) => {
      it(`runs code block ${index + 1}`, async () => {
        const path = join(tmp, `${name.replace(/[^\w]+/g, "_")}_${index + 1}.ts`);
        writeFileSync(path, `${code}\nexport {};\n`);
        const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
        try {
          await import(pathToFileURL(path).href);
        } finally {
          log.mockRestore();
        }
      });
    });
  });
}
