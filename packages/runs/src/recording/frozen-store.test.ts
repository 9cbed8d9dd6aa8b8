import { type Server, type Socket, createConnection, createServer } from "node:net";
import { AgentExecutor, RunStoreError } from "@agentrx/executors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresRunStore } from "../postgres/index";
import { type PostgresTestDatabase, postgresTestDatabase } from "../testing/postgres-test-database";
import { durableFixture } from "./durable-test-fixtures";

/** A TCP proxy in front of PostgreSQL that can stop forwarding (a frozen server, a cut network). */
async function freezableProxy(target: URL): Promise<{ port: number; freeze(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let frozen = false;
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    client.on("data", (chunk) => frozen || upstream.write(chunk));
    upstream.on("data", (chunk) => frozen || client.write(chunk));
    client.on("end", () => upstream.end());
    upstream.on("end", () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    freeze: () => void (frozen = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const database: PostgresTestDatabase = await postgresTestDatabase("frozen store (PostgreSQL)");

describe.skipIf(database.skip)("a PostgreSQL server that stops answering mid-run", () => {
  let direct: PostgresRunStore;
  beforeAll(() => {
    database.assertReachable();
    direct = new PostgresRunStore({ connectionString: database.connectionString, schema: database.schema });
  });
  afterAll(async () => {
    await direct?.close();
    await database.drop();
  });

  it("fails the run with a timeout RunStoreError within storeTimeoutMs, and nothing starts after the freeze", async () => {
    const target = new URL(database.connectionString);
    const proxy = await freezableProxy(target);
    const viaProxy = new URL(database.connectionString);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const store = new PostgresRunStore({ connectionString: viaProxy.toString(), schema: database.schema });
    const { agent, tools, seen } = durableFixture({ turns: 6, width: 2, toolMs: 40 });
    const executor = new AgentExecutor({ agent, tools, store, storeTimeoutMs: 1_000 });
    let startedAtFreeze = -1;
    let frozeAt = 0;
    const outcome = new Promise<unknown>((resolve) => {
      executor.stream({ input: "go" }, { runId: "frozen" }).subscribe({
        next: (event) => {
          // Freeze while the second turn's tools run: their results can no longer be written.
          if (event.type === "action" && event.iteration === 1 && startedAtFreeze < 0) {
            proxy.freeze();
            frozeAt = Date.now();
            startedAtFreeze = seen.started.length;
          }
        },
        error: resolve,
        complete: () => resolve(undefined),
      });
    });
    const error = await outcome;
    const failedAfter = Date.now() - frozeAt;
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: "timeout", runId: "frozen" });
    // The stuck write started after the freeze and waited storeTimeoutMs (1 s), not much longer.
    expect(failedAfter).toBeGreaterThanOrEqual(950);
    expect(failedAfter).toBeLessThan(5_000);
    // The second turn's actions could not be made durable: none of its tools started, nor anything after.
    expect(startedAtFreeze).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen.started).toHaveLength(startedAtFreeze);
    expect(seen.agentCalls).toHaveLength(2);
    // The record holds what was acknowledged, and nothing the run did after the freeze.
    const recorded = await direct.readEvents("frozen");
    expect(recorded.filter((event) => event.type === "action")).toHaveLength(2);
    await proxy.close();
    await store.close().catch(() => undefined);
  }, 30_000);
});
