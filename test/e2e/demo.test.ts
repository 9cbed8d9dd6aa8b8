// `npm run demo` (examples/quickstart.ts) against an OpenAI-compatible endpoint given by the
// environment, here the loopback server, and offline on the scripted model.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { startOpenAICompatibleServer } from "@agentrx/core/testing";
import { afterEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(__dirname, "..", "..");
const tsx = join(root, "node_modules", ".bin", "tsx");
const servers: { close: () => Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function demo(env: Record<string, string>) {
  const { OPENAI_API_KEY: _key, OPENAI_BASE_URL: _url, OPENAI_MODEL: _model, ...rest } = process.env;
  return run(tsx, ["examples/quickstart.ts"], { cwd: root, env: { ...rest, ...env, NO_COLOR: "1" }, timeout: 60_000 });
}

describe("npm run demo", () => {
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
    servers.push(server);
    const { stdout } = await demo({
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
  });

  it("says it runs offline on the scripted model without OPENAI_API_KEY", async () => {
    const { stdout } = await demo({});
    expect(stdout).toContain("Model: ScriptedChatModel, offline");
    expect(stdout).toMatch(/answer\s+Paris is sunny at 21°C.*\(finish\)/);
  });
});
