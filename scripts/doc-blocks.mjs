// Finds the ```ts code blocks of README.md and docs/*.md. Shared by the docs test (which runs
// every block under Node.js), the runtime matrix (which runs them under Deno and Bun) and
// `npm run typecheck` (which type-checks every block).
//
// A block whose fence says ```ts file=<path> is that file of the repository, shown whole: the docs
// test checks that it is the file, word for word, and the file's own test runs it (a worker that
// needs Redis, say), so it is not run as a block.
//
// A block runs under every runtime of the matrix unless its fence names the ones it needs, as in
// ```ts runtime=node (or runtime=node,bun); its first line must then be a comment that names
// those runtimes and says why, for readers: // Node.js only: <reason>. A block whose fence also
// says `vitest` (```ts runtime=node vitest) uses vitest's own API (`vi`'s fake timers): it runs
// in the docs test, inside vitest, and not in the runtime matrix's plain processes.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));

const FENCE = /^```(?:ts|typescript)([^\n]*)\n([\s\S]*?)^```/gm;

/** The runtimes a block can be limited to, and how its first-line comment names them. */
export const RUNTIME_NAMES = { node: "Node.js", deno: "Deno", bun: "Bun" };

/**
 * The runtimes a block's fence info limits it to (`runtime=node` or `runtime=node,bun`), or
 * undefined when it runs under all of them. Throws when the info names an unknown runtime or the
 * block does not start with a comment that names each runtime.
 */
export function blockRuntimes(info, code, where) {
  const match = /(?:^|\s)runtime=(\S*)/.exec(info);
  if (!match) return undefined;
  const runtimes = (match[1] ?? "").split(",").filter(Boolean);
  const unknown = runtimes.filter((name) => !(name in RUNTIME_NAMES));
  if (runtimes.length === 0 || unknown.length > 0) {
    throw new Error(`${where}: runtime=${match[1]} names ${unknown.length ? `unknown runtime(s) ${unknown.join(", ")}` : "no runtime"}; use ${Object.keys(RUNTIME_NAMES).join(", ")}, separated by commas.`);
  }
  const first = code.split("\n", 1)[0] ?? "";
  const unnamed = runtimes.filter((name) => !first.includes(RUNTIME_NAMES[name]));
  if (!first.startsWith("//") || unnamed.length > 0) {
    throw new Error(`${where}: a block limited to runtime=${runtimes.join(",")} starts with a comment that names ${runtimes.map((name) => RUNTIME_NAMES[name]).join(" and ")} and says why (e.g. "// ${RUNTIME_NAMES[runtimes[0]]} only: <reason>"); its first line is ${JSON.stringify(first)}.`);
  }
  return runtimes;
}

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

/**
 * The ```ts blocks of one file, each with a file name unique across the repository, and the
 * runtimes it is limited to (`runtimes`, undefined for all).
 */
export function docBlocks(file) {
  const name = relative(root, file);
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(FENCE)].map((match, index) => {
    const code = match[2] ?? "";
    return {
      source: name,
      index: index + 1,
      fileName: `${name.replace(/[^\w]+/g, "_")}_${index + 1}.ts`,
      runtimes: blockRuntimes(match[1] ?? "", code, `${name} code block ${index + 1}`),
      file: /(?:^|\s)file=(\S+)/.exec(match[1] ?? "")?.[1],
      vitest: /(?:^|\s)vitest(?:\s|$)/.test(match[1] ?? ""),
      code: `${code}\nexport {};\n`,
    };
  });
}

/** Whether `block` runs under `runtime` ("node", "deno" or "bun"). */
export function runsUnder(block, runtime) {
  if (block.file !== undefined) return false; // a file's own test runs it
  return block.runtimes === undefined || block.runtimes.includes(runtime);
}

/** Writes every block of every doc file into `dir` (emptied first) and returns the blocks. */
export function writeDocBlocks(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const blocks = docFiles().flatMap(docBlocks);
  for (const block of blocks) writeFileSync(join(dir, block.fileName), block.code);
  return blocks;
}

/**
 * Makes `dir` (emptied first) a working directory for the blocks that is not the checkout: each
 * top-level entry of the repository is linked into it (but `.agentrx`), so that a block reads what
 * it would in the repository (`node --import tsx examples/...` resolves from the working
 * directory), while what it creates at a relative path (`new SqliteRunStore()` records into
 * `.agentrx/runs.db`) is made in `dir`, not left in the checkout. Returns `dir`.
 */
export function blockWorkDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(root)) {
    if (name === ".agentrx") continue;
    const target = join(root, name);
    symlinkSync(target, join(dir, name), statSync(target).isDirectory() ? "junction" : "file");
  }
  return dir;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = join(root, process.argv[2] ?? ".docs-check");
  const blocks = writeDocBlocks(dir);
  console.log(`Wrote ${blocks.length} doc code blocks to ${relative(root, dir)}/`);
}
