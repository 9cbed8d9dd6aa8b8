// The notebook-style scripts of examples/: each runs offline (no OPENAI_API_KEY) to the end of its
// run and says that it uses the scripted model; `npm run demo` (examples/quickstart.ts) also runs
// against an OpenAI-compatible endpoint given by the environment, here the loopback server.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startOpenAICompatibleServer } from "@agentrx/core/testing";
import { startWeatherEndpoint } from "../fixtures/weather-endpoint";
import { afterAll, describe, expect, it } from "vitest";

const execute = promisify(execFile);
const root = join(__dirname, "..", "..");
const tsx = join(root, "node_modules", ".bin", "tsx");
// examples/runs.ts works on what the others recorded: it has its own test below. The research
// agent is steered from a second process and ends on its guardrail: test/e2e/research-agent.test.ts.
// examples/a2a.ts has its own test below (its spans, sent to a collector).
const ownTests = new Set(["runs.ts", "research-agent.ts", "a2a.ts"]);
const scripts = readdirSync(join(root, "examples")).filter((name) => name.endsWith(".ts") && !ownTests.has(name));
// The examples record their runs here, not in the repository's .agentrx/.
const runsDir = mkdtempSync(join(tmpdir(), "agentrx-examples-"));
const runsDb = join(runsDir, "runs.db");
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

function exampleEnv(env: Record<string, string>) {
  const { OPENAI_API_KEY: _key, OPENAI_BASE_URL: _url, OPENAI_MODEL: _model, ...rest } = process.env;
  return { ...rest, AGENTRX_RUNS_DB: runsDb, ...env, NO_COLOR: "1" };
}

function runExample(script: string, env: Record<string, string> = {}, args: string[] = []) {
  return execute(tsx, [join("examples", script), ...args], { cwd: root, env: exampleEnv(env), timeout: 60_000 });
}

describe("examples/*.ts offline", { timeout: 90_000 }, () => {
  it("has scripts to run", () => {
    expect(scripts).toEqual(expect.arrayContaining(["quickstart.ts", "react-agent.ts", "stream-to-ui.ts"]));
  });

  it.each(scripts)("%s runs on the scripted model to the end of its run", async (script) => {
    const { stdout } = await runExample(script);
    expect(stdout).toContain("Model: ScriptedChatModel, offline");
    expect(stdout).toMatch(/stopReason=(finish|budget)|^(finish|budget): /m);
  });
});

describe("npm run demo against an endpoint", { timeout: 90_000 }, () => {
  it("uses the endpoint from OPENAI_API_KEY / OPENAI_BASE_URL and prints the trace", async () => {
    const server = await startWeatherEndpoint();
    try {
      const { stdout } = await runExample("quickstart.ts", {
        OPENAI_API_KEY: "sk-loopback",
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_MODEL: "loopback-model",
      });
      expect(stdout).toContain(`Model: loopback-model at ${server.baseURL}`);
      expect(stdout).toMatch(/action\s+get_weather \{"city":"Paris"\}/);
      expect(stdout).toMatch(/step\s+get_weather \(\d+ ms\) sunny, 21°C/);
      expect(stdout).toMatch(/step\s+get_weather \(\d+ ms\) clear, 26°C/);
      expect(stdout).toMatch(/answer\s+Paris is sunny and Rome is clear\. \(finish\)/);
      const bodies = server.chatRequests();
      expect(bodies).toHaveLength(2);
      expect(bodies[0].model).toBe("loopback-model");
      expect(bodies[0].tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(["get_weather"]);
    } finally {
      await server.close();
    }
  });

  it("says why the endpoint failed, whole and without a stack, and exits with 1", async () => {
    const server = await startOpenAICompatibleServer({
      responses: [{ status: 404, message: "The model `gpt-4o-mni` does not exist or you do not have access to it.", code: "model_not_found" }],
    });
    try {
      const failure = await runExample("quickstart.ts", {
        OPENAI_API_KEY: "sk-loopback",
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_MODEL: "gpt-4o-mni",
      }).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toContain("The run failed: ");
      expect(failure?.stderr).toContain('Check `model` ("gpt-4o-mni") and `baseURL`.');
      expect(failure?.stderr).toMatch(/Recorded as run \S+ in .*: npx agentrx show \S+/);
      expect(failure?.stderr).not.toMatch(/^\s+at /m);
    } finally {
      await server.close();
    }
  });
});

describe("npm run demo records its runs", { timeout: 90_000 }, () => {
  it("lists, replays and forks a recorded run", async () => {
    const { stdout } = await runExample("quickstart.ts");
    const runId = /Recorded as run (\S+) in /.exec(stdout)?.[1];
    expect(runId).toBeDefined();

    // What the demo's last line points to: the agentrx command, on the same store (AGENTRX_RUNS_DB).
    const cli = await execute(process.execPath, ["--import", "tsx", "packages/runs/src/cli/main.ts", "show", runId as string], { cwd: root, env: exampleEnv({}), timeout: 60_000 });
    expect(stdout).toContain(`See it again: npx agentrx show ${runId}`);
    expect(cli.stdout).toMatch(new RegExp(`^Run ${runId} · finished \\(finish\\)`));
    expect(cli.stdout).toMatch(/action\s+get_weather \{"city":"Paris"\}/);

    const listed = await runExample("runs.ts");
    expect(listed.stdout).toMatch(new RegExp(`${runId}\\s+\\S+\\s+finished\\s+finish`));
    const shown = await runExample("runs.ts", {}, ["show", runId as string]);
    expect(shown.stdout).toMatch(/action\s+get_weather \{"city":"Paris"\}/);
    expect(shown.stdout).toMatch(/answer\s+Paris is sunny/);

    // Fork the finished run at its second turn, Rome's weather (the last tool result before it)
    // changed: the copied turn calls no tool again, and the model answers from the new result.
    const forked = await runExample("runs.ts", {}, ["fork", runId as string, "1", "stormy, 9°C"]);
    expect(forked.stdout).toMatch(/Rome is stormy and colder at 9°C: pack sunglasses for Paris and an umbrella for Rome\./);
    expect(forked.stdout).not.toMatch(/step\s+get_weather/);
    const forkId = /as run (\S+); stopReason=finish/.exec(forked.stdout)?.[1];
    expect(forkId).toBeDefined();
    expect(forkId).not.toBe(runId);
    expect((await runExample("runs.ts")).stdout).toMatch(new RegExp(`${forkId}\\s+\\S+\\s+finished`));

    // Ctrl-C and resume: test/e2e/runs-example.test.ts (on the examples bundled, which start faster).
    expect((await runExample("runs.ts", {}, ["show", "no-such-run"]).catch((error: { stderr: string }) => error)).stderr).toMatch(/RunNotFoundError: Run "no-such-run" is not recorded/);
  }, 120_000);
});

describe("examples/a2a.ts", { timeout: 90_000 }, () => {
  it("traces both agents as one: the served run is under the planner's A2A tool call, in the spans a collector receives", async () => {
    // A collector of our own: it decodes what the OTLP/HTTP (JSON) exporter sends.
    const spans: { traceId: string; spanId: string; parentSpanId?: string; name: string }[] = [];
    const collector = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans: { scopeSpans: { spans: typeof spans }[] }[] };
        spans.push(...body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    try {
      const { stdout } = await runExample("a2a.ts", { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}` });
      expect(stdout).toContain("Model: ScriptedChatModel, offline");
      expect(stdout).toContain("stopReason=finish");
      expect(stdout).toMatch(/Answer: .*sunny.*clear/);
      expect(stdout).toMatch(/\d+ spans in 1 trace:/);
      expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
      const named = (name: string) => spans.filter((span) => span.name === name);
      const [planner, served] = named("invoke_agent").sort((a, b) => (a.parentSpanId ? 1 : 0) - (b.parentSpanId ? 1 : 0));
      const call = named("execute_tool ask_weather_agent")[0];
      expect(call?.parentSpanId).toBe(planner?.spanId);
      expect(served?.parentSpanId).toBe(call?.spanId);
      expect(named("execute_tool get_weather").every((span) => span.parentSpanId === served?.spanId)).toBe(true);
    } finally {
      collector.close();
    }
  });
});
