// A newcomer's path, from the packages as npm packs them: `npm pack` every package (what
// `npm run pack:local` does), install the tarballs into a fresh project outside the repository
// (`"type": "module"`, a strict nodenext tsconfig.json, the peer dependencies), as
// docs/quickstart.md#install says; then the README's quickstart, taken from README.md, type-checks
// there with `tsc` (with the other README and docs/quickstart.md blocks), runs with `npx tsx`, and
// `npx agentrx runs` lists its run; and every entry point loads with require() and with import.
// The same blocks type-check with TypeScript 7 too (what `npm install typescript` gives today, a
// native compiler), in the tsconfig.json docs/quickstart.md shows and in a bundler's setting.
// The rest of the tests see the packages' sources or the repository's links to them, not what a
// tarball holds and how its package.json resolves for TypeScript and Node.js.
//
// npm installs from its cache (the repository's install fills it) and asks the registry only for
// what the cache lacks. When that install fails because the registry cannot be reached, the tests
// are skipped with one line saying why; with CI set they fail instead.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docBlocks, root, runsUnder } from "../../scripts/doc-blocks.mjs";
import {
  entryPoints,
  installProject,
  type Output,
  packageFolders,
  packLocalWorkspaces,
  packWorkspaces,
  registryProblem,
  run,
} from "./packed-project";

const workDir = mkdtempSync(join(tmpdir(), "agentrx-packed-"));
const project = join(workDir, "my-app");
const packages: string[] = packLocalWorkspaces().map((folder) => JSON.parse(readFileSync(join(root, folder, "package.json"), "utf8")).name);
// The one entry point that needs an optional peer the project does not install (vitest, a test
// runner of the project's choosing): left out of the require() and import check.
const needsOptionalPeer = new Set(["@agentrx/runs/testing"]);
/** TypeScript's first native major (installed beside the project, from npm's registry). */
const TYPESCRIPT_7 = "7.0.2";

// The README's quickstart (the block that records with `new SqliteRunStore()`), saved as
// quickstart.ts as the README says; the README's other blocks and those of docs/quickstart.md,
// which need only what that page installs, are type-checked next to it.
const readme = docBlocks(join(root, "README.md")).filter((block) => runsUnder(block, "node"));
const quickstart = readme.find((block) => block.code.includes("new SqliteRunStore("));
const typeChecked = [...readme, ...docBlocks(join(root, "docs", "quickstart.md")).filter((block) => runsUnder(block, "node"))];

let skipReason: string | undefined;
let quickstartRun: Output | undefined;

/** `npx <command>` in the project, from its own node_modules/.bin (`--no`: never downloaded). */
const npx = (args: string[], timeoutMs?: number) => run("npx", ["--no", "--", ...args], project, timeoutMs);

describe("the packed packages, installed into a project of one's own", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    const started = Date.now();
    const tarballs = await packWorkspaces(join(workDir, "packs"));
    try {
      await installProject(project, tarballs);
    } catch (error) {
      const problem = await registryProblem(workDir);
      if (problem === undefined) throw error;
      if (process.env.CI) throw new Error(`${problem}; with CI set, the packed-install tests need it. ${(error as Error).message}`);
      skipReason = problem;
      console.warn(`Skipping the packed-install tests: ${skipReason} (with CI set, this fails instead).`);
      return;
    }
    for (const block of typeChecked) writeFileSync(join(project, block === quickstart ? "quickstart.ts" : block.fileName), block.code);
    console.info(`packed-install: packed ${tarballs.length} packages and installed them in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 240_000);
  // node_modules holds some 15,000 files: on a busy machine that takes a while.
  afterAll(() => rm(workDir, { recursive: true, force: true }), 120_000);

  it("packs every package: `npm run pack:local` names each folder of packages/", () => {
    expect([...packLocalWorkspaces()].sort()).toEqual(packageFolders());
  });

  it("finds the README's quickstart", () => {
    expect(quickstart, "README.md has no ```ts block that records with `new SqliteRunStore()`").toBeDefined();
    expect(quickstart!.code).toContain("createAgentExecutor");
  });

  it("type-checks the README's quickstart and docs/quickstart.md's blocks under strict nodenext", async ({ skip }) => {
    skip(skipReason !== undefined, skipReason);
    const { stdout } = await npx(["tsc", "-p", "."], 120_000);
    expect(stdout).toBe("");
  }, 150_000);

  it(`type-checks the same with TypeScript ${TYPESCRIPT_7}, under nodenext and under bundler resolution, with the declarations checked too`, async ({ skip }) => {
    skip(skipReason !== undefined, skipReason);
    // Beside the project, not in it: the project keeps the repository's TypeScript for the test above.
    const beside = join(workDir, "typescript-7");
    mkdirSync(beside);
    const fetch = ["--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=5000"];
    try {
      await run("npm", ["install", "--prefix", beside, "--prefer-offline", "--no-audit", "--no-fund", ...fetch, `typescript@${TYPESCRIPT_7}`], workDir, 120_000);
    } catch (error) {
      const problem = await registryProblem(workDir);
      if (problem === undefined) throw error;
      if (process.env.CI) throw new Error(`${problem}; with CI set, this test needs TypeScript ${TYPESCRIPT_7} from it. ${(error as Error).message}`);
      return skip(true, `${problem}: TypeScript ${TYPESCRIPT_7} is not installed`);
    }
    const tsc = join(beside, "node_modules", "typescript", "bin", "tsc");
    expect((await run(tsc, ["--version"], project)).stdout.trim()).toBe(`Version ${TYPESCRIPT_7}`);
    const { compilerOptions } = JSON.parse(readFileSync(join(project, "tsconfig.json"), "utf8"));
    const settings = {
      "tsconfig.nodenext.json": { ...compilerOptions, skipLibCheck: false },
      "tsconfig.bundler.json": { ...compilerOptions, module: "preserve", moduleResolution: "bundler", skipLibCheck: false },
    };
    for (const [file, options] of Object.entries(settings)) {
      writeFileSync(join(project, file), JSON.stringify({ compilerOptions: options, include: ["*.ts"] }));
      const { stdout } = await run(tsc, ["-p", file], project, 120_000);
      expect(stdout, `${file} under TypeScript ${TYPESCRIPT_7}`).toBe("");
    }
  }, 150_000);

  it("runs the quickstart with `npx tsx quickstart.ts`: its trace, its answer and its run's id", async ({ skip }) => {
    skip(skipReason !== undefined, skipReason);
    quickstartRun = await npx(["tsx", "quickstart.ts"]);
    expect(quickstartRun.stdout).toMatch(/^action\s+get_weather \{"city":"Paris"\}$/m);
    expect(quickstartRun.stdout).toMatch(/^step\s+get_weather \(\d+ ms\) clear, 26°C$/m);
    expect(quickstartRun.stdout).toContain("Sunny in Paris, clear in Rome. finish\n");
    expect(quickstartRun.stdout).toMatch(/^See it again: npx agentrx show [\w-]+$/m);
  });

  it("lists the quickstart's run with `npx agentrx runs` and shows it with `npx agentrx show`", async ({ skip }) => {
    skip(skipReason !== undefined, skipReason);
    const runId = /See it again: npx agentrx show ([\w-]+)/.exec(quickstartRun?.stdout ?? "")?.[1];
    expect(runId, "the quickstart's run (the test before) printed no run id").toBeDefined();
    const runs = await npx(["agentrx", "runs"]);
    expect(runs.stdout).toMatch(new RegExp(`^${runId}\\s.*\\bfinished\\b.*Weather in Paris and Rome\\?$`, "m"));
    expect(runs.stdout).toContain(".agentrx/runs.db"); // the project's, where the quickstart recorded
    const shown = await npx(["agentrx", "show", runId!]);
    expect(shown.stdout).toContain("Sunny in Paris, clear in Rome.");
  });

  it("loads every entry point with require() from a .cjs file, with the names import gives", async ({ skip }) => {
    skip(skipReason !== undefined, skipReason);
    const specifiers = entryPoints(project, packages).filter((specifier) => !needsOptionalPeer.has(specifier));
    expect(specifiers).toEqual(expect.arrayContaining([...packages, "@agentrx/core/testing", "@agentrx/core/openai"]));
    writeFileSync(
      join(project, "entry-points.cjs"),
      "const names = {};\nfor (const specifier of process.argv.slice(2)) names[specifier] = Object.keys(require(specifier)).sort();\nconsole.log(JSON.stringify(names));\n",
    );
    writeFileSync(
      join(project, "entry-points.mjs"),
      "const names = {};\nfor (const specifier of process.argv.slice(2)) names[specifier] = Object.keys(await import(specifier)).sort();\nconsole.log(JSON.stringify(names));\n",
    );
    const [required, imported] = await Promise.all(["entry-points.cjs", "entry-points.mjs"].map(async (file) => JSON.parse((await run("node", [file, ...specifiers], project)).stdout) as Record<string, string[]>));
    for (const specifier of specifiers) expect(required![specifier]?.length, `require("${specifier}") gives no exports`).toBeGreaterThan(0);
    expect(required).toEqual(imported);
  });
});
