// The runtime matrix: the same scripts in child processes under Node.js (tsx; the Node.js running
// the tests, then each supported line: 20.19, 22, 24, 26), Deno (`deno run -A`) and Bun (`bun run`),
// each on the built packages (dist/, through node_modules, as users get
// them: tsconfig.dist.json has no `paths` to the sources). The children print JSON lines, which the
// tests parse. Deno, Bun and the Node.js lines come from `node scripts/fetch-runtimes.mjs`; without
// them the tests are skipped with one line saying so, and fail with CI set. better-sqlite3 (a native
// addon built by `npm install` for the Node.js that ran it) does not load under another Node.js
// line: there the stores use node:sqlite, and what needs better-sqlite3 is skipped, saying why.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOpenAICompatibleServer } from "@agentrx/core/testing";
import { SqliteRunStore } from "@agentrx/runs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockWorkDir, type DocBlock, docBlocks, docFiles, runsUnder, writeDocBlocks } from "../../scripts/doc-blocks.mjs";
import { betterSqliteUnavailable, FETCH_RUNTIMES, missingRuntime, REPO_ROOT, runtimeBins, type RuntimeBin } from "./runtime-bins";

const FIXTURES = join(REPO_ROOT, "test", "runtimes", "fixtures");
const TSCONFIG = join(REPO_ROOT, "test", "runtimes", "tsconfig.dist.json");
const TSX = join(REPO_ROOT, "node_modules", ".bin", "tsx");
/** tsx's command line, run by a Node.js line's binary (the .bin script would pick the PATH's node). */
const TSX_CLI = join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs");
/** How long one documentation block may take before the runner moves on to the next. */
const BLOCK_LIMIT_MS = 20_000;

const bins = runtimeBins();
const absent = bins.filter((bin) => !bin.exists).map((bin) => bin.name);
if (absent.length > 0 && !process.env.CI) {
  console.warn(`Runtime matrix: ${absent.join(" and ")} not installed (.cache/runtimes/), so their tests are skipped; \`${FETCH_RUNTIMES}\` installs them.`);
}

const tmp = mkdtempSync(join(tmpdir(), "agentrx-runtimes-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** One JSON line a child printed. */
type ChildRecord = Record<string, any> & { type: string };

interface ChildResult {
  records: ChildRecord[];
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

/** The command line that runs `script` under `bin`'s runtime, on the built packages. */
function commandLine(bin: RuntimeBin, script: string, args: string[]): [string, string[]] {
  if (bin.name === "deno") return [bin.path, ["run", "-A", "--sloppy-imports", script, ...args]];
  if (bin.name === "bun") return [bin.path, ["run", `--tsconfig-override=${TSCONFIG}`, script, ...args]];
  if (bin.name !== "node") return [bin.path, [TSX_CLI, "--tsconfig", TSCONFIG, script, ...args]];
  return [TSX, ["--tsconfig", TSCONFIG, script, ...args]];
}

/** Runs `script` under `bin`'s runtime with the repository as its folder; resolves however it exits. */
function runChild(bin: RuntimeBin, script: string, { env = {}, args = [], timeoutMs = 60_000 }: { env?: Record<string, string>; args?: string[]; timeoutMs?: number } = {}): Promise<ChildResult> {
  const { OPENAI_API_KEY: _key, OPENAI_BASE_URL: _url, OPENAI_MODEL: _model, ...rest } = process.env;
  const [file, argv] = commandLine(bin, script, args);
  return new Promise((resolve) => {
    execFile(
      file,
      argv,
      {
        cwd: REPO_ROOT,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...rest, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", AGENTRX_RUNS_DB: join(tmp, `${bin.name}.db`), ...(betterSqliteUnavailable(bin) ? { AGENTRX_SQLITE_DRIVER: "node:sqlite" } : {}), ...env },
      },
      (error, stdout, stderr) => {
        const records = stdout.split("\n").flatMap((line) => {
          if (!line.startsWith("{")) return [];
          try {
            return [JSON.parse(line) as ChildRecord];
          } catch {
            return [];
          }
        });
        resolve({ records, stdout, stderr, exitCode: error ? ((error as { code?: unknown }).code as number | null) ?? 1 : 0 });
      },
    );
  });
}

function only(records: ChildRecord[], type: string): ChildRecord[] {
  return records.filter((record) => record.type === type);
}

/** Fails with what the child printed when it did not exit cleanly. */
function expectClean(result: ChildResult): void {
  expect(result.exitCode, `the child failed:\n${result.stderr}\n${result.stdout}`).toBe(0);
}

function expectRuntime(result: ChildResult, bin: RuntimeBin): void {
  const [runtime] = only(result.records, "runtime");
  expect(runtime?.runtime).toBe(bin.runtime);
  if (bin.nodeMajor !== undefined) expect(Number.parseInt(runtime?.version, 10)).toBe(bin.nodeMajor);
  // The built packages, not the sources.
  expect(runtime?.resolved).toMatch(/\/packages\/[a-z]+\/dist\/.*\.js$/);
}

for (const bin of bins) {
  const problem = missingRuntime(bin);
  describe.skipIf(problem !== undefined && !process.env.CI)(`under ${bin.name}`, () => {
    if (problem !== undefined) {
      it("has its runtime installed", () => {
        throw new Error(problem);
      });
      return;
    }

    // A child on a Node.js line starts tsx from a cold cache: more than vitest's default 20 s on a busy machine.
    describe.concurrent("scenarios", { timeout: 90_000 }, () => {
      it("the quickstart runs on the scripted model and records the run in SQLite, which a second store reads back", async () => {
        const result = await runChild(bin, join(FIXTURES, "quickstart.ts"));
        expectClean(result);
        expectRuntime(result, bin);
        const [runtime] = only(result.records, "runtime");
        // Deno and Bun cannot load better-sqlite3 (a V8-API addon), nor a Node.js line it was not built for: the store uses node:sqlite.
        expect(runtime?.driver).toBe(bin.runtime === "node" && !betterSqliteUnavailable(bin) ? "better-sqlite3" : "node:sqlite");
        expect(result.stdout).toContain("Model: ScriptedChatModel, offline");
        expect(only(result.records, "action").map((record) => record.input)).toEqual([{ city: "Paris" }, { city: "Rome" }]);
        expect(only(result.records, "step").map((record) => record.observation).sort()).toEqual(["clear, 26°C", "sunny, 21°C"]);
        expect(only(result.records, "output")).toEqual([
          { type: "output", output: "Paris is sunny at 21°C, while Rome is clear and warmer at 26°C: pack sunglasses for both.", stopReason: "finish" },
        ]);
        expect(only(result.records, "tokens")[0]?.count).toBeGreaterThan(5);
        const [recorded] = only(result.records, "recorded");
        expect(recorded).toMatchObject({ status: "finished", stopReason: "finish" });
        expect(recorded?.events).toBeGreaterThan(5);
        expect(recorded?.types).toEqual(expect.arrayContaining(["start", "action", "step", "token", "output"]));
        // Both drivers write the same file format: this process (Node.js, better-sqlite3) reads the run.
        const store = new SqliteRunStore({ path: join(tmp, `${bin.name}.db`), driver: "better-sqlite3" });
        try {
          expect(await store.getRun(recorded?.runId)).toMatchObject({ status: "finished", stopReason: "finish", eventCount: recorded?.events });
        } finally {
          await store.close();
        }
      });

      it.skipIf(betterSqliteUnavailable(bin) !== undefined)(`the agentrx command lists and shows a run this runtime recorded${betterSqliteUnavailable(bin) ? ` (skipped: ${betterSqliteUnavailable(bin)})` : ""}`, async () => {
        const db = join(tmp, `${bin.name}-cli.db`);
        const recording = await runChild(bin, join(FIXTURES, "quickstart.ts"), { env: { AGENTRX_RUNS_DB: db } });
        expectClean(recording);
        const runId = only(recording.records, "recorded")[0]?.runId as string;
        const cli = join(REPO_ROOT, "packages", "runs", "dist", "cli", "agentrx.js");
        const list = await runChild(bin, cli, { args: ["runs", "--db", db] });
        expectClean(list);
        expect(list.stdout).toMatch(new RegExp(`${runId}\\s+-\\s+finished\\s+finish`));
        const show = await runChild(bin, cli, { args: ["show", runId, "--db", db] });
        expectClean(show);
        expect(show.stdout).toContain("Paris is sunny at 21°C");
      });

      it("examples/quickstart.ts itself runs to the end and says where it recorded the run", async () => {
        const result = await runChild(bin, join(REPO_ROOT, "examples", "quickstart.ts"));
        expectClean(result);
        expect(result.stdout).toContain("Model: ScriptedChatModel, offline");
        expect(result.stdout).toMatch(/answer\s+Paris is sunny at 21°C/);
        expect(result.stdout).toMatch(/stopReason=finish/);
        expect(result.stdout).toContain(`Recorded as run `);
        expect(result.stdout).toContain(join(tmp, `${bin.name}.db`));
      });

      it("OpenAIChatModel streams a run from the loopback server, then a run cancelled mid-tool aborts the tool's signal", async () => {
        const server = await startOpenAICompatibleServer({
          apiKey: "sk-loopback",
          responses: [
            { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
            { content: "Paris is sunny today." },
            { toolCalls: [{ name: "wait_for_abort", arguments: {} }] },
          ],
        });
        try {
          const result = await runChild(bin, join(FIXTURES, "openai-loopback.ts"), {
            env: { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "sk-loopback", OPENAI_MODEL: "loopback-model" },
          });
          expectClean(result);
          expectRuntime(result, bin);
          const streamed = result.records.filter((record) => ["action", "step", "token", "output"].includes(record.type));
          expect(streamed).toEqual([
            { type: "action", tool: "get_weather", input: { city: "Paris" } },
            { type: "step", observation: "sunny in Paris" },
            { type: "token", text: "Paris " },
            { type: "token", text: "is " },
            { type: "token", text: "sunny " },
            { type: "token", text: "today." },
            { type: "output", output: "Paris is sunny today.", stopReason: "finish" },
          ]);
          expect(only(result.records, "tool-started")).toHaveLength(1);
          const [cancelled] = only(result.records, "cancelled");
          expect(cancelled).toMatchObject({ signal: { aborted: true, reason: "AbortError" }, answered: false });
          expect(cancelled?.seen).toContain("action");
          expect(cancelled?.seen).not.toContain("step");
          // Unsubscribing ends the run silently: no error, no completion.
          expect(only(result.records, "run-error")).toEqual([]);
          expect(only(result.records, "run-complete")).toEqual([]);
          // Both runs streamed over SSE; the cancelled one asked the model nothing after its tool call.
          const requests = server.chatRequests();
          expect(requests.map((body) => body.stream)).toEqual([true, true, true]);
          expect(requests[2].tools.map((entry: { function: { name: string } }) => entry.function.name)).toEqual(["wait_for_abort"]);
        } finally {
          await server.close();
        }
      });
    });

    if (bin.name === "node") return; // docs/docs.test.ts runs the blocks under Node.js, vitest the suite.
    if (bin.runtime === "node") {
      it("the run store conformance suites pass (vitest on this Node.js line: SqliteRunStore on node:sqlite where present, on better-sqlite3 where it loads, MemoryRunStore)", async () => {
        const counts = await conformanceUnderNode(bin);
        expect(counts.failed).toBe(0);
        expect(counts.tests - counts.skipped).toBeGreaterThan(40);
      }, 240_000);
      describeDocBlocks(bin);
      return;
    }
    it("SqliteRunStore on node:sqlite passes the run store conformance suite (from the sources, in vitest under Deno, bun test under Bun)", async () => {
      const counts = bin.name === "deno" ? await conformanceUnderDeno(bin) : await conformanceUnderBun(bin);
      // 90 tests (the fencing cases, the claim clearing a cancel's error, the runs-list search with its search text, paging and pruning cases, cancelRun, the run
      // inboxes, clears racing appends, the 1,024-byte ids, SQLite's own WAL checkpoints and the refused constructor options included): 87 run; the cross-process test, the "node:sqlite is missing" test
      // and the checkpoint worker's test (Node.js only) are skipped.
      expect(counts).toEqual({ tests: 90, failed: 0, skipped: 3 });
    }, 120_000);
    describeDocBlocks(bin);
  });
}

const CONFORMANCE = "packages/runs/src/sqlite/sqlite-run-store-node-sqlite.test.ts";

/** The store conformance suites of packages/runs under a Node.js line, in vitest run by that line's binary. */
async function conformanceUnderNode(bin: RuntimeBin): Promise<{ tests: number; failed: number; skipped: number }> {
  const report = join(tmp, `conformance-${bin.name}.json`);
  const vitest = join(REPO_ROOT, "node_modules", "vitest", "vitest.mjs");
  const files = [CONFORMANCE, "packages/runs/src/memory/memory-run-store.test.ts", ...(betterSqliteUnavailable(bin) ? [] : ["packages/runs/src/sqlite/sqlite-run-store.test.ts"])];
  const result = await runCommand(bin.path, [vitest, "run", ...files, "--typecheck.enabled=false", "--reporter=json", `--outputFile=${report}`]);
  const json = JSON.parse(readFileSync(report, "utf8")) as { numTotalTests: number; numFailedTests: number; numPendingTests: number };
  expect(json.numFailedTests, result).toBe(0);
  return { tests: json.numTotalTests, failed: json.numFailedTests, skipped: json.numPendingTests };
}

async function conformanceUnderDeno(bin: RuntimeBin): Promise<{ tests: number; failed: number; skipped: number }> {
  const report = join(tmp, "conformance-deno.json");
  const vitest = join(REPO_ROOT, "node_modules", "vitest", "vitest.mjs");
  const result = await runCommand(bin.path, ["run", "-A", vitest, "run", CONFORMANCE, "--reporter=json", `--outputFile=${report}`]);
  const json = JSON.parse(readFileSync(report, "utf8")) as { numTotalTests: number; numFailedTests: number; numPendingTests: number };
  expect(json.numFailedTests, result).toBe(0);
  return { tests: json.numTotalTests, failed: json.numFailedTests, skipped: json.numPendingTests };
}

async function conformanceUnderBun(bin: RuntimeBin): Promise<{ tests: number; failed: number; skipped: number }> {
  const report = join(tmp, "conformance-bun.xml");
  const result = await runCommand(bin.path, ["test", "--preload", join(FIXTURES, "bun-test-vitest-shim.ts"), "--reporter=junit", `--reporter-outfile=${report}`, `./${CONFORMANCE}`]);
  const suite = /<testsuites\b[^>]*>/.exec(readFileSync(report, "utf8"))?.[0] ?? "";
  const count = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1] ?? Number.NaN);
  expect(count("failures"), result).toBe(0);
  return { tests: count("tests"), failed: count("failures") + (count("errors") || 0), skipped: count("skipped") };
}

/** Runs a command in the repository without the OpenAI variables; resolves with its output. */
function runCommand(file: string, args: string[]): Promise<string> {
  const { OPENAI_API_KEY: _key, OPENAI_BASE_URL: _url, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(file, args, { cwd: REPO_ROOT, timeout: 110_000, maxBuffer: 64 * 1024 * 1024, env: { ...env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" } }, (error, stdout, stderr) =>
      resolve(`${error ? `${error.message}\n` : ""}${stdout}\n${stderr}`.slice(-8000)),
    );
  });
}

/**
 * Every ```ts block of README.md and docs/*.md, under `bin`'s runtime: one child runs them one
 * after the other (each with a time limit), and each block is a test that reads its result.
 */
function describeDocBlocks(bin: RuntimeBin): void {
  const blocks = docFiles().flatMap(docBlocks);
  // On a Node.js line better-sqlite3 was not built for, a block that opens an SQLite store cannot run.
  const sqliteMissing = betterSqliteUnavailable(bin);
  const needsBetterSqlite = (block: DocBlock) => sqliteMissing !== undefined && /SqliteRunStore|better-sqlite3/.test(block.code) && !/driver: "node:sqlite"/.test(block.code);
  // A block that uses vitest's own API (`vi`) runs only inside vitest, in the docs test.
  const runs = (block: DocBlock) => runsUnder(block, bin.runtime) && !needsBetterSqlite(block) && !block.vitest;
  const runnable = blocks.filter(runs);
  let results: Promise<Map<string, ChildRecord>> | undefined;
  // Inside the repository, so that the blocks' imports resolve through its node_modules.
  const dir = join(REPO_ROOT, ".cache", "doc-blocks", bin.name);
  // The blocks' working directory: a temporary folder that links the repository's files, so that
  // what they write at relative paths (the README quickstart's `new SqliteRunStore()` records into
  // .agentrx/runs.db) is not left in the checkout.
  const workDir = join(tmp, `doc-blocks-${bin.name}`);

  beforeAll(() => {
    writeDocBlocks(dir);
    blockWorkDir(workDir);
    const files = runnable.map((block) => join(dir, block.fileName));
    results = runChild(bin, join(FIXTURES, "run-doc-blocks.ts"), { args: [String(BLOCK_LIMIT_MS), workDir, ...files], timeoutMs: 5 * 60_000 }).then((result) => {
      const done = only(result.records, "done");
      if (done.length !== 1) throw new Error(`the doc block runner under ${bin.name} stopped early (exit code ${String(result.exitCode)}):\n${result.stderr.slice(-4000)}`);
      return new Map(only(result.records, "block").map((record) => [record.file as string, record]));
    });
    results.catch(() => undefined); // reported by every test below
  });

  describe("docs code blocks", () => {
    const sources = [...new Set(blocks.map((block) => block.source))];
    for (const source of sources) {
      for (const block of blocks.filter((each) => each.source === source)) {
        const label = needsBetterSqlite(block)
          ? ` (skipped: it opens an SQLite store with better-sqlite3, and ${sqliteMissing})`
          : block.vitest && runsUnder(block, bin.runtime)
            ? " (skipped here: it uses vitest's own API, and the docs test runs it inside vitest)"
            : "";
        it.skipIf(!runs(block))(`${source} block ${block.index}${label}`, async () => {
          const result = (await results!).get(join(dir, block.fileName));
          expect(result, `no result for ${block.fileName}`).toBeDefined();
          expect(result?.error).toBeUndefined();
          expect(result?.ok).toBe(true);
        }, 6 * 60_000);
      }
    }
    // The README quickstart records with `new SqliteRunStore()`: into .agentrx/runs.db of the working directory.
    const defaultStore = runnable.some((block) => /new SqliteRunStore\(\)/.test(block.code));
    it.skipIf(!defaultStore)("run in a temporary folder: what they write at relative paths is not left in the checkout", async () => {
      await results;
      expect(existsSync(join(workDir, ".agentrx", "runs.db"))).toBe(true);
    }, 6 * 60_000);
  });
}
