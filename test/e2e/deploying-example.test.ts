// examples/deploying/worker.ts and api.ts, which docs/deploying.md shows whole: a worker process and
// the HTTP API, on Redis (REDIS_URL) and PostgreSQL (DATABASE_URL). A run submitted over HTTP is
// followed over Server-Sent Events and its result read back. Without the servers the test is
// skipped with one line saying why; with CI set it fails instead.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_REDIS_URL, testServers } from "../../packages/bullmq/src/test-helpers/test-servers";
import { TEST_DATABASE_URL } from "../../packages/runs/src/testing/postgres-test-database";

const root = join(__dirname, "..", "..");
const tsx = join(root, "node_modules", ".bin", "tsx");
const servers = await testServers("deploying example");
const port = 40_000 + Math.floor(Math.random() * 20_000);
const children: ChildProcess[] = [];

/** Starts an example and resolves once it printed `ready` (its own words for it). */
function start(script: string, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(tsx, [join("examples", "deploying", script)], {
    cwd: root,
    env: { ...process.env, REDIS_URL: TEST_REDIS_URL, DATABASE_URL: TEST_DATABASE_URL, PORT: String(port) },
  });
  children.push(child);
  let output = "";
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve(child);
    });
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}) before it was ready:\n${output}`)));
  });
}

describe.skipIf(servers.skip)("examples/deploying: worker.ts and api.ts", () => {
  beforeAll(async () => {
    servers.assertReachable();
    await Promise.all([start("worker.ts", /worker ready/), start("api.ts", /api listening/)]);
  }, 60_000);
  afterAll(async () => {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve(undefined)))));
    await servers.cleanup();
  }, 60_000);

  it("submits a run over HTTP, follows it over Server-Sent Events and reads its result", async () => {
    const base = `http://127.0.0.1:${port}/runs`;
    const submitted = await fetch(base, { method: "POST", body: JSON.stringify({ input: "Where is my order A1?" }) });
    expect(submitted.status).toBe(202);
    const { runId } = (await submitted.json()) as { runId: string };

    const events = await (await fetch(`${base}/${runId}/events`)).text(); // ends after the output event
    const types = [...events.matchAll(/^event: (\S+)$/gm)].map((match) => match[1]);
    expect(types).toEqual(expect.arrayContaining(["start", "action", "step", "output"]));
    expect(events).toContain('"observation":"order A1: shipped"');

    const result = (await (await fetch(`${base}/${runId}`)).json()) as { output: string; stopReason: string };
    expect(result).toMatchObject({ input: "Where is my order A1?", output: "Your order A1 has shipped.", stopReason: "finish", runId });
  }, 60_000);
});
