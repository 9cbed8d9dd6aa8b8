import { type AddressInfo, type Socket, connect, createServer } from "node:net";
import { MemoryRunStore } from "@agentrx/runs";
import { Queue } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { startJobId } from "../internal/queue-names";
import { testServers, until } from "../test-helpers/test-servers";
import { RunClient } from "./run-client";

const servers = await testServers("RunClient.close");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A TCP proxy to the tests' Redis. `cut()` drops every connection through it and refuses new ones
 * (Redis is unreachable for whoever connects through it; Redis itself goes on); `restore()` lets
 * connections through again.
 */
async function pausableRedisProxy(): Promise<{ port: number; cut(): void; restore(): void; close(): void }> {
  const target = new URL(servers.redisUrl);
  const sockets = new Set<Socket>();
  let cut = false;
  const server = createServer((socket) => {
    if (cut) return void socket.destroy();
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const end of [socket, upstream]) {
      sockets.add(end);
      end.on("error", () => undefined);
      end.on("close", () => (socket.destroy(), upstream.destroy(), sockets.delete(end)));
    }
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const cutOff = () => {
    cut = true;
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: (server.address() as AddressInfo).port,
    cut: cutOff,
    restore() {
      cut = false;
    },
    close() {
      cutOff();
      server.close();
    },
  };
}

describe.skipIf(servers.skip)("RunClient.close() when Redis became unreachable after the client connected (Redis)", () => {
  afterAll(() => servers.cleanup());

  it("resolves at once while a submit waits for Redis (which rejects), and nothing of that submit reaches Redis once it is back", async () => {
    servers.assertReachable();
    const proxy = await pausableRedisProxy();
    const queueName = "close-while-down";
    const store = new MemoryRunStore();
    const client = new RunClient({ connection: { url: `redis://127.0.0.1:${proxy.port}` }, store, queueName, prefix: servers.prefix });
    const queue = new Queue(queueName, { connection: { url: servers.redisUrl }, prefix: servers.prefix });
    try {
      await client.submit("double", { input: "x" }, { runId: "before-cut" }); // opens the client's connections
      proxy.cut();
      const waiting = client.submit("double", { input: "y" }, { runId: "during-cut" }).then(
        () => "resolved",
        (error: Error) => error.message,
      );
      await until(async () => (await store.getRun("during-cut"))?.status === "queued", "the run to be recorded");
      // Its commands wait for Redis: after BullMQ's first reconnect attempt (1 s after the cut), in
      // the offline queue of the queue's connection, where a QUIT waits behind them.
      await sleep(1500);

      const closing = client.close().then(() => "closed");
      expect(await Promise.race([closing, sleep(3000).then(() => "still pending after 3 s")])).toBe("closed");
      expect(await waiting).toBe("RunClient: the client was closed while this call waited for Redis; nothing more of it was done.");

      proxy.restore();
      await sleep(1500); // a connection that reconnected would send the commands it held by now
      expect(await queue.getJob(startJobId("before-cut"))).toBeDefined();
      expect(await queue.getJob(startJobId("during-cut"))).toBeUndefined();
    } finally {
      proxy.restore();
      await client.close();
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      proxy.close();
    }
  });
});
