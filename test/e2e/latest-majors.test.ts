// The latest majors of the libraries a new project on Node.js 22 gets next to the packed packages,
// which need Node.js 22 themselves: better-sqlite3 13 (its addon prebuilt in the package: no
// install script, so npm's `allowScripts` has nothing to allow) and openai 7 (which @agentrx/core
// shares with the project, so a client the project makes is the type `client` takes). Under
// Node.js 22 the README's quickstart records with better-sqlite3 13 and `npx agentrx runs` lists the
// run; OpenAIChatModel streams through openai 7, with its own client and with the project's, and
// type-checks with the project's; createAgentExecutor runs over @langchain/openai's ChatOpenAI, whose
// latest release is the first on openai 7 (and on Node.js 22); under Node.js 20 the store refuses better-sqlite3 13, naming the
// release to install, where loading it would crash the process (its addon segfaults there). Deno
// and Bun, which refuse better-sqlite3 12 (a V8-API addon), record with 13 (Node-API) when the
// store is given `driver: "better-sqlite3"`.
//
// Node.js 22 comes from `node scripts/fetch-runtimes.mjs` (CI runs it before `npm test`); without
// it, or without npm's registry (these releases are not what the repository installs), the tests
// are skipped with one line saying why, and fail with CI set.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docBlocks, root, runsUnder } from "../../scripts/doc-blocks.mjs";
import { runtimeBins } from "../runtimes/runtime-bins";
import { CommandError, packWorkspaces, registryProblem, repoVersion, run } from "./packed-project";

/** The releases under test: the first majors that need Node.js 22. */
const RELEASE = "13.2.0";
const OPENAI = "7.59.0";
/** @langchain/openai's first release on openai 7 (and on Node.js 22): what `npm install @langchain/openai` gives. */
const LANGCHAIN_OPENAI = "1.6.0";
const workDir = mkdtempSync(join(tmpdir(), "agentrx-latest-majors-"));
const project = join(workDir, "my-app");
const node22 = runtimeBins().find((bin) => bin.name === "node22");
const quickstart = docBlocks(join(root, "README.md")).find((block) => runsUnder(block, "node") && block.code.includes("new SqliteRunStore("));

let skipReason: string | undefined;

/** Runs `script` (a file of the project, or a package's bin) with the Node.js at `node`. */
const runWith = (node: string, args: string[], timeoutMs = 60_000) => run(node, args, project, timeoutMs);
const tsx = join("node_modules", "tsx", "dist", "cli.mjs");
const agentrx = join("node_modules", "@agentrx", "runs", "bin", "agentrx.js");

/** What `tsc --strict` (nodenext) prints for `file` of the project, under Node.js 22: nothing when it type-checks. */
async function typeCheck(file: string): Promise<string> {
  const compilerOptions = { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, types: ["node"] };
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: [file] }));
  return (await runWith(node22!.path, [join("node_modules", "typescript", "bin", "tsc"), "-p", "."], 120_000)).stdout;
}

describe(`better-sqlite3 ${RELEASE} and openai ${OPENAI} (the latest majors, for Node.js 22) with the packed packages`, { timeout: 60_000 }, () => {
  beforeAll(async () => {
    if (!node22?.exists) {
      skipReason = "Node.js 22 is not installed in .cache/runtimes (node scripts/fetch-runtimes.mjs)";
      if (process.env.CI) throw new Error(`${skipReason}; with CI set, these tests need it.`);
      console.warn(`Skipping the latest-majors tests: ${skipReason}.`);
      return;
    }
    // The packages the quickstart loads (@agentrx/executors, @agentrx/runs, @agentrx/core/testing) and theirs.
    const tarballs = await packWorkspaces(join(workDir, "packs"), ["packages/core", "packages/agents", "packages/executors", "packages/runs"]);
    mkdirSync(project, { recursive: true });
    await run("npm", ["init", "-y"], project);
    await run("npm", ["pkg", "set", "type=module"], project);
    // No install scripts: this release needs none (the repository's better-sqlite3 12 does, to build).
    const peers = ["@langchain/core", "rxjs", "zod", "tsx", "typescript", "@types/node"].map((name) => `${name}@${repoVersion(name)}`);
    const fetch = ["--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=5000"];
    try {
      await run("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", ...fetch, ...tarballs, ...peers, `better-sqlite3@${RELEASE}`, `openai@${OPENAI}`, `@langchain/openai@${LANGCHAIN_OPENAI}`], project, 150_000);
    } catch (error) {
      const problem = await registryProblem(workDir);
      if (problem === undefined) throw error;
      if (process.env.CI) throw new Error(`${problem}; with CI set, these tests need it. ${(error as Error).message}`);
      skipReason = problem;
      console.warn(`Skipping the latest-majors tests: ${skipReason} (with CI set, this fails instead).`);
      return;
    }
    writeFileSync(join(project, "quickstart.ts"), quickstart!.code);
  }, 240_000);
  afterAll(() => rm(workDir, { recursive: true, force: true }), 120_000);

  it("records the README's quickstart under Node.js 22 with it, and `agentrx runs` lists the run", async ({ skip }) => {
    skip(skipReason !== undefined, skipReason);
    const { stdout, stderr } = await runWith(node22!.path, [tsx, "quickstart.ts"]);
    expect(stdout).toContain("Sunny in Paris, clear in Rome. finish\n");
    // Recorded through better-sqlite3, not the node:sqlite fallback (which warns when it steps in).
    expect(stderr).not.toContain("AGENTRX_SQLITE_DRIVER_FALLBACK");
    const runId = /See it again: npx agentrx show ([\w-]+)/.exec(stdout)?.[1];
    expect(runId, `the quickstart printed no run id:\n${stdout}`).toBeDefined();
    const listed = await runWith(node22!.path, [agentrx, "runs"]);
    expect(listed.stdout).toMatch(new RegExp(`^${runId}\\s.*\\bfinished\\b.*Weather in Paris and Rome\\?$`, "m"));
    // The copy the store loaded is this release, and it opens the file the quickstart wrote.
    writeFileSync(
      join(project, "which-driver.mjs"),
      [
        'import { createRequire } from "node:module";',
        'import { SqliteRunStore } from "@agentrx/runs";',
        'const store = new SqliteRunStore({ driver: "better-sqlite3" });',
        `const run = await store.getRun(${JSON.stringify(runId)});`,
        'console.log(JSON.stringify({ version: createRequire(import.meta.url)("better-sqlite3/package.json").version, status: run?.status }));',
        "await store.close();",
      ].join("\n"),
    );
    expect(JSON.parse((await runWith(node22!.path, ["which-driver.mjs"])).stdout)).toEqual({ version: RELEASE, status: "finished" });
  });

  it("streams OpenAIChatModel through openai 7 under Node.js 22, with its own client and the project's, which type-checks", async ({ skip }) => {
    skip(skipReason !== undefined, skipReason);
    // One copy of openai: @agentrx/core takes the project's (its range allows 7).
    expect(existsSync(join(project, "node_modules", "@agentrx", "core", "node_modules", "openai"))).toBe(false);
    writeFileSync(
      join(project, "openai-latest.ts"),
      `import OpenAI from "openai";
import { VERSION } from "openai/version";
import { OpenAIChatModel } from "@agentrx/core/openai";
import { startOpenAICompatibleServer } from "@agentrx/core/testing";

const server = await startOpenAICompatibleServer({ responses: ["Hello from", { raw: JSON.stringify({ detail: "Not authenticated" }), status: 401 }] });
try {
  const own = new OpenAIChatModel({ model: "m", baseURL: server.baseURL, apiKey: "k", maxRetries: 0 });
  let text = "";
  for await (const chunk of await own.stream("hi")) text += chunk.text;
  const client = new OpenAI({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0 });
  const theirs = new OpenAIChatModel({ model: "m", client });
  const failed = await theirs.invoke("hi").then(() => "no error", (error: Error) => error.message);
  console.log(JSON.stringify({ openai: VERSION, text, failed }));
} finally {
  await server.close();
}
`,
    );
    const { stdout } = await runWith(node22!.path, [tsx, "openai-latest.ts"]);
    const seen = JSON.parse(stdout) as { openai: string; text: string; failed: string };
    expect(seen.openai).toBe(OPENAI);
    expect(seen.text).toBe("Hello from");
    // openai 7 keeps a body without an `error` member whole: FastAPI's detail is quoted.
    expect(seen.failed).toContain("(401): Not authenticated.");
    expect(await typeCheck("openai-latest.ts")).toBe("");
  }, 150_000);

  it(`runs createAgentExecutor over @langchain/openai ${LANGCHAIN_OPENAI}'s ChatOpenAI (openai 7) under Node.js 22: tool calls, their results sent back, the answer streamed`, async ({ skip }) => {
    skip(skipReason !== undefined, skipReason);
    // The project's one openai serves @langchain/openai and @agentrx/core alike.
    expect(existsSync(join(project, "node_modules", "@langchain", "openai", "node_modules", "openai"))).toBe(false);
    writeFileSync(
      join(project, "chat-openai.ts"),
      `import { ChatOpenAI } from "@langchain/openai";
import { createAgentExecutor } from "@agentrx/executors";
import { startOpenAICompatibleServer } from "@agentrx/core/testing";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { z } from "zod";

const weather = tool(async ({ city }) => \`sunny in \${city}\`, { name: "get_weather", description: "Weather in a city.", schema: z.object({ city: z.string() }) });
const calls = { content: "", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" }, id: "call_1" }, { name: "get_weather", arguments: { city: "Rome" }, id: "call_2" }] };
const server = await startOpenAICompatibleServer({ responses: [calls, "Sunny in both.", calls, "Sunny in both."] });
try {
  const model = new ChatOpenAI({ model: "m", apiKey: "k", configuration: { baseURL: server.baseURL }, maxRetries: 0 });
  const executor = createAgentExecutor({ model, tools: [weather] });
  const result = await executor.invoke({ input: "Paris and Rome?" });
  const events = await lastValueFrom(executor.stream({ input: "Paris and Rome?" }).pipe(toArray()));
  const sent = server.chatRequests()[1].messages.filter((message: { role: string }) => message.role === "tool");
  console.log(JSON.stringify({
    output: result.output,
    stopReason: result.stopReason,
    tokens: events.filter((event) => event.type === "token").map((event) => (event as { text: string }).text).join(""),
    types: [...new Set(events.map((event) => event.type))],
    sent: sent.map((message: { tool_call_id: string; content: string }) => [message.tool_call_id, message.content]),
  }));
} finally {
  await server.close();
}
`,
    );
    const { stdout } = await runWith(node22!.path, [tsx, "chat-openai.ts"]);
    const seen = JSON.parse(stdout) as { output: string; stopReason: string; tokens: string; types: string[]; sent: string[][] };
    expect(seen.output).toBe("Sunny in both.");
    expect(seen.stopReason).toBe("finish");
    expect(seen.tokens).toBe("Sunny in both.");
    expect(seen.types).toEqual(expect.arrayContaining(["action", "step", "token", "output"]));
    expect(seen.sent).toEqual([["call_1", "sunny in Paris"], ["call_2", "sunny in Rome"]]);
    expect(await typeCheck("chat-openai.ts")).toBe("");
  }, 150_000);

  it.for(["deno", "bun"] as const)(`records with better-sqlite3 ${RELEASE} under %s when the store is given driver "better-sqlite3" (a Node-API addon: 12 is refused there), and Node.js 22 reads the run`, async (name, { skip }) => {
    skip(skipReason !== undefined, skipReason);
    const bin = runtimeBins().find((entry) => entry.name === name);
    if (!bin?.exists) {
      if (process.env.CI) throw new Error(`${name} is not installed in .cache/runtimes (node scripts/fetch-runtimes.mjs); with CI set, this test needs it.`);
      return skip(true, `${name} is not installed in .cache/runtimes (node scripts/fetch-runtimes.mjs)`);
    }
    writeFileSync(
      join(project, "record-with-addon.mjs"),
      [
        'import { createRequire } from "node:module";',
        'import { createAgentExecutor } from "@agentrx/executors";',
        'import { SqliteRunStore } from "@agentrx/runs";',
        'import { ScriptedChatModel } from "@agentrx/core/testing";',
        'const store = new SqliteRunStore({ path: process.argv[2], driver: "better-sqlite3" });',
        'const executor = createAgentExecutor({ model: new ScriptedChatModel({ responses: ["Recorded."] }), tools: [], store });',
        'const result = await executor.invoke({ input: "Record this." });',
        'const version = createRequire(import.meta.url)("better-sqlite3/package.json").version;',
        "console.log(JSON.stringify({ runId: result.runId, driver: store.driver, version, output: result.output }));",
        "await store.close();",
      ].join("\n"),
    );
    const file = `${name}-addon.db`;
    const args = name === "deno" ? ["run", "-A", "record-with-addon.mjs", file] : ["record-with-addon.mjs", file];
    const { stdout } = await runWith(bin.path, args);
    const recorded = JSON.parse(stdout) as { runId: string; driver: string; version: string; output: string };
    expect(recorded).toMatchObject({ driver: "better-sqlite3", version: RELEASE, output: "Recorded." });
    writeFileSync(
      join(project, "read-back.mjs"),
      [
        'import { SqliteRunStore } from "@agentrx/runs";',
        "const store = new SqliteRunStore({ path: process.argv[2] });",
        "const run = await store.getRun(process.argv[3]);",
        "console.log(JSON.stringify({ status: run?.status, stopReason: run?.stopReason }));",
        "await store.close();",
      ].join("\n"),
    );
    const read = await runWith(node22!.path, ["read-back.mjs", file, recorded.runId]);
    expect(JSON.parse(read.stdout)).toEqual({ status: "finished", stopReason: "finish" });
  });

  it("is refused under Node.js 20 with an error naming the release to install, and the process does not crash", async ({ skip }) => {
    skip(skipReason !== undefined, skipReason);
    // The Node.js running the tests when it is a 20, else the matrix's 20.19.
    const fetched = runtimeBins().find((bin) => bin.name === "node20.19");
    const node20 = process.versions.node.startsWith("20.") ? process.execPath : fetched?.exists ? fetched.path : undefined;
    skip(node20 === undefined, "no Node.js 20 here: Node.js 20.19 is not installed in .cache/runtimes (node scripts/fetch-runtimes.mjs)");
    // Plain node, no tsx in between: a crash shows as the signal that ended the process.
    writeFileSync(
      join(project, "open-store.mjs"),
      [
        'import { SqliteRunStore } from "@agentrx/runs";',
        'const store = new SqliteRunStore({ path: "node20.db" });',
        "await store.listRuns();",
        'console.log("opened");',
      ].join("\n"),
    );
    const failed = await runWith(node20!, ["open-store.mjs"]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed, "the store opened under Node.js 20 with better-sqlite3 13").toBeInstanceOf(CommandError);
    const { message } = failed as CommandError;
    expect(message).toContain("exit code 1"); // an error, not a signal (SIGSEGV)
    expect(message).toContain(`the installed "better-sqlite3" ${RELEASE} needs Node.js >=22, and this is Node.js 20.`);
    expect(message).toContain("npm install better-sqlite3@12");
  });
});
