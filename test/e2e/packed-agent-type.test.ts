// A community agent type, used as docs/publishing-agent-types.md says: the example package
// (examples/agent-plan-and-execute), packed by npm with @agentrx/core, @agentrx/agents and
// @agentrx/executors, installed from the tarballs into a fresh project outside the repository, then
// registered by name and run with the AgentExecutor, from an ES module and a CommonJS one, after
// type-checking under strict node16 and bundler resolution. The package's own test
// (examples/agent-plan-and-execute/test) sees it through the repository's links; publint and attw
// check its package.json (`npm run lint`); this sees what users install.
//
// Last, the package gets its own copies of @langchain/core, @agentrx/core and @agentrx/agents (what
// npm does when a package lists them as dependencies, or when the versions disagree): the runs must
// still work, because the registry and the executor recognise agent types, errors and messages by
// markers, not by `instanceof`.
//
// npm installs from its cache (the repository's install fills it); when the registry cannot be
// reached and the cache lacks something, the tests are skipped with one line saying why, and fail
// instead with CI set, as in packed-install.test.ts.
import { cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPinned, packWorkspaces, registryProblem, run } from "./packed-project";

const workDir = mkdtempSync(join(tmpdir(), "agentrx-agent-type-"));
const project = join(workDir, "app");
const workspaces = ["packages/core", "packages/agents", "packages/executors", "examples/agent-plan-and-execute"];
let skipReason: string | undefined;

// What the guide's "Use it" section does, with a scripted model: look the agent type up by name
// and run it with the AgentExecutor (a plan, two tool calls, an answer), then a run stopped by
// "generate" early stopping. It prints what the test checks.
const usage = (header: string, footer: string) => `${header}
const weather = tool(async ({ city }: { city: string }) => \`18C in \${city}\`, {
  name: "weather",
  description: "Current weather of a city.",
  schema: z.object({ city: z.string() }),
});
const registry = createAgentTypeRegistry().register(planAndExecuteAgentType);
const agentType = registry.get("agentrx-community/plan-and-execute");
const requires: "tool-calling" = agentType.requires;
const llm = new ScriptedChatModel({
  responses: [
    "1. Get the weather in Paris and Rome.",
    { toolCalls: [{ name: "weather", args: { city: "Paris" } }, { name: "weather", args: { city: "Rome" } }] },
    "Both are at 18C.",
  ],
});
const agent = agentType.create({ llm, tools: [weather], maxPlanSteps: 3 });
const result = await new AgentExecutor({ agent, tools: [weather], returnIntermediateSteps: true }).invoke({ input: "Paris or Rome?" });
const stopped = await new AgentExecutor({
  agent: agentType.create({ llm: new ScriptedChatModel({ responses: ["1. Look.", { toolCalls: [{ name: "weather", args: { city: "Oslo" } }] }, "Cold."] }), tools: [weather] }),
  tools: [weather],
  maxIterations: 1,
  earlyStoppingMethod: "generate",
}).invoke({ input: "Oslo?" });
console.log(JSON.stringify({ requires, output: result.output, observations: result.intermediateSteps.map((step) => step.observation), stopped: stopped.output }));
${footer}`;

const imports = [
  ["{ createAgentTypeRegistry }", "@agentrx/agents"],
  ["{ ScriptedChatModel }", "@agentrx/core/testing"],
  ["{ AgentExecutor }", "@agentrx/executors"],
  ["{ tool }", "@langchain/core/tools"],
  ["{ z }", "zod"],
  ["{ planAndExecuteAgentType }", "@agentrx-community/plan-and-execute"],
];
const esm = usage(imports.map(([names, from]) => `import ${names} from "${from}";`).join("\n"), "");
// A CommonJS module: `import` compiles to require(); no top-level await.
const cjs = usage(`${imports.map(([names, from]) => `import ${names} from "${from}";`).join("\n")}\nasync function main(): Promise<void> {`, "}\nvoid main();");

const compilerOptions = { target: "ES2022", strict: true, skipLibCheck: true, types: ["node"] };
const expected = { requires: "tool-calling", output: "Both are at 18C.", observations: ["18C in Paris", "18C in Rome"], stopped: "Cold." };

describe("a community agent type, packed and installed into a project of one's own", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    const tarballs = await packWorkspaces(join(workDir, "packs"), workspaces);
    mkdirSync(project, { recursive: true });
    await run("npm", ["init", "-y"], project);
    await run("npm", ["pkg", "set", "type=module"], project);
    try {
      await installPinned(project, tarballs, ["@langchain/core", "rxjs", "zod", "typescript", "@types/node"]);
    } catch (error) {
      const problem = await registryProblem(workDir);
      if (problem === undefined) throw error;
      if (process.env.CI) throw new Error(`${problem}; with CI set, the packed agent-type tests need it. ${(error as Error).message}`);
      skipReason = problem;
      console.warn(`Skipping the packed agent-type tests: ${skipReason} (with CI set, this fails instead).`);
      return;
    }
    mkdirSync(join(project, "src"));
    writeFileSync(join(project, "src", "app.ts"), esm);
    writeFileSync(join(project, "src", "app.cts"), cjs);
    mkdirSync(join(project, "bundled"));
    writeFileSync(join(project, "bundled", "app.ts"), esm);
    const config = (options: Record<string, unknown>, include: string) => `${JSON.stringify({ compilerOptions: { ...compilerOptions, ...options }, include: [include] }, null, 2)}\n`;
    writeFileSync(join(project, "tsconfig.json"), config({ module: "node16", moduleResolution: "node16", outDir: "out" }, "src"));
    writeFileSync(join(project, "tsconfig.bundler.json"), config({ module: "preserve", moduleResolution: "bundler", noEmit: true }, "bundled"));
  }, 240_000);
  afterAll(() => rm(workDir, { recursive: true, force: true }), 120_000);

  it("type-checks under strict node16 (ESM and CJS) and bundler resolution, then runs from import and from require()", async ({ skip }) => {
    skip(skipReason !== undefined, skipReason);
    const tsc = join(project, "node_modules", "typescript", "bin", "tsc");
    const [node16, bundler] = await Promise.all([run("node", [tsc, "-p", "tsconfig.json"], project, 120_000), run("node", [tsc, "-p", "tsconfig.bundler.json"], project, 120_000)]);
    expect(node16.stdout + bundler.stdout).toBe("");
    for (const file of ["out/app.js", "out/app.cjs"]) {
      const { stdout } = await run("node", [file], project);
      expect(JSON.parse(stdout), file).toEqual(expected);
    }
  }, 150_000);

  it("still runs when the package has its own copies of @langchain/core, @agentrx/core and @agentrx/agents", async ({ skip }) => {
    skip(skipReason !== undefined, skipReason);
    const own = join(project, "node_modules", "@agentrx-community", "plan-and-execute", "node_modules");
    for (const name of ["@langchain/core", "@agentrx/core", "@agentrx/agents"]) cpSync(join(project, "node_modules", name), join(own, name), { recursive: true, dereference: true });
    // The copies are the ones the package loads: they are separate instances of the modules.
    const resolve = 'const { createRequire } = require("node:module"); console.log(createRequire(require.resolve("@agentrx-community/plan-and-execute")).resolve("@agentrx/agents"))';
    expect((await run("node", ["-e", resolve], project)).stdout).toContain("/plan-and-execute/node_modules/@agentrx/agents/");
    expect(existsSync(join(project, "out", "app.js")), "the test before compiles out/app.js").toBe(true);
    const { stdout } = await run("node", ["out/app.js"], project);
    expect(JSON.parse(stdout)).toEqual(expected);
  });
});
