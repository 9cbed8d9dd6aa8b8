// The notebook-style scripts of examples/: each runs offline (no OPENAI_API_KEY) to the end of its
// run and says that it uses the scripted model; `npm run demo` (examples/quickstart.ts) also runs
// against an OpenAI-compatible endpoint given by the environment, here the loopback server.
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { startOpenAICompatibleServer } from "@agentrx/core/testing";
import { describe, expect, it } from "vitest";

const execute = promisify(execFile);
const root = join(__dirname, "..", "..");
const tsx = join(root, "node_modules", ".bin", "tsx");
const scripts = readdirSync(join(root, "examples")).filter((name) => name.endsWith(".ts"));

function runExample(script: string, env: Record<string, string> = {}) {
  const { OPENAI_API_KEY: _key, OPENAI_BASE_URL: _url, OPENAI_MODEL: _model, ...rest } = process.env;
  return execute(tsx, [join("examples", script)], { cwd: root, env: { ...rest, ...env, NO_COLOR: "1" }, timeout: 60_000 });
}

describe("examples/*.ts offline", () => {
  it("has scripts to run", () => {
    expect(scripts).toEqual(expect.arrayContaining(["quickstart.ts", "react-agent.ts", "stream-to-ui.ts"]));
  });

  it.each(scripts)("%s runs on the scripted model to the end of its run", async (script) => {
    const { stdout } = await runExample(script);
    expect(stdout).toContain("Model: ScriptedChatModel, offline");
    expect(stdout).toMatch(/stopReason=(finish|budget)|^(finish|budget): /m);
  });
});

describe("npm run demo against an endpoint", () => {
  it("uses the endpoint from OPENAI_API_KEY / OPENAI_BASE_URL and prints the trace", async () => {
    const server = await startOpenAICompatibleServer({
      apiKey: "sk-loopback",
      responses: [
        {
          toolCalls: [
            { name: "get_weather", arguments: { city: "Paris" } },
            { name: "get_weather", arguments: { city: "Rome" } },
          ],
        },
        { content: "Paris is sunny and Rome is clear." },
      ],
    });
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
});
