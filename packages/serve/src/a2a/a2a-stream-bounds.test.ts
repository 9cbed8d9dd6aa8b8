import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ClientFactory } from "@a2a-js/sdk/client";
import { InMemoryTaskStore } from "@a2a-js/sdk/server";
import type { AgentExecutor, AgentStreamEvent } from "@agentrx/executors";
import { createA2AHandler } from "@agentrx/serve";
import { Observable } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { closeLoopback, stalledClient, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { messageRequest } from "../test-helpers/a2a-messages";

/** An executor whose run streams `tokens` tokens, one per turn of the event loop (as a model's stream does), then answers. */
function talkingExecutor(tokens: number): AgentExecutor {
  const stream = (_inputs: unknown, config: { runId: string }) =>
    new Observable<AgentStreamEvent>((subscriber) => {
      subscriber.next({ type: "start", runId: config.runId, inputs: {}, resumed: false, at: 0 } as AgentStreamEvent);
      let sent = 0;
      let timer: ReturnType<typeof setImmediate> | undefined;
      const next = () => {
        if (sent < tokens) {
          subscriber.next({ type: "token", iteration: 0, at: 0, text: `t${sent} ` } as AgentStreamEvent);
          sent++;
          timer = setImmediate(next);
          return;
        }
        subscriber.next({ type: "output", runId: config.runId, output: "done", stopReason: "finish", at: 0 } as AgentStreamEvent);
        subscriber.complete();
      };
      timer = setImmediate(next);
      return () => clearImmediate(timer);
    });
  return { stream, resume: () => new Observable() } as unknown as AgentExecutor;
}

const expectedText = (tokens: number) => Array.from({ length: tokens }, (_, index) => `t${index} `).join("");

const servers: Server[] = [];
afterEach(async () => {
  await closeLoopback();
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

describe("createA2AHandler's streams stay bounded", () => {
  it("batches a long answer's tokens: the updates (and task saves) do not grow with the tokens, and the text arrives whole and in order", async () => {
    for (const tokens of [2_000, 20_000]) {
      const taskStore = new InMemoryTaskStore();
      let saves = 0;
      const save = taskStore.save.bind(taskStore);
      taskStore.save = (task, context) => (saves++, save(task, context));
      const server = createServer(createA2AHandler(talkingExecutor(tokens), { agentCard: { name: "Talker", description: "Talks." }, taskStore }));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const client = await new ClientFactory().createFromUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      let streamed = "";
      let updates = 0;
      let completed = false;
      for await (const event of client.sendMessageStream(messageRequest("talk"))) {
        const payload = event.payload!;
        if (payload.$case === "artifactUpdate" && !payload.value.lastChunk) {
          updates++;
          // Every chunk but the first appends to what came before.
          expect(payload.value.append).toBe(updates > 1);
          streamed += payload.value.artifact?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
        }
        if (payload.$case === "statusUpdate" && payload.value.status?.state === 3) completed = true;
      }
      expect(completed).toBe(true);
      expect(streamed).toBe(expectedText(tokens));
      // One update per token would be 2,000 and 20,000 (each one a copy and a save of the whole task).
      expect(updates).toBeGreaterThan(0);
      expect(updates, `${tokens} tokens`).toBeLessThan(tokens / 20);
      expect(saves, `${tokens} tokens`).toBeLessThan(tokens / 20 + 10);
    }
  }, 60_000);

  it("streams incrementally: text reaches the client while the run is still talking", async () => {
    const seen: string[] = [];
    let heard: (() => void) | undefined;
    // Each token is emitted only once the client has read the one before it.
    const stream = (_inputs: unknown, config: { runId: string }) =>
      new Observable<AgentStreamEvent>((subscriber) => {
        void (async () => {
          subscriber.next({ type: "start", runId: config.runId, inputs: {}, resumed: false, at: 0 } as AgentStreamEvent);
          for (let index = 0; index < 5; index++) {
            const read = new Promise<void>((resolve) => (heard = resolve));
            subscriber.next({ type: "token", iteration: 0, at: 0, text: `w${index} ` } as AgentStreamEvent);
            await read;
          }
          subscriber.next({ type: "output", runId: config.runId, output: "w0 w1 w2 w3 w4 ", stopReason: "finish", at: 0 } as AgentStreamEvent);
          subscriber.complete();
        })();
      });
    const executor = { stream, resume: () => new Observable() } as unknown as AgentExecutor;
    const server = createServer(createA2AHandler(executor, { agentCard: { name: "Talker", description: "Talks." } }));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = await new ClientFactory().createFromUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    for await (const event of client.sendMessageStream(messageRequest("talk"))) {
      const payload = event.payload!;
      if (payload.$case === "artifactUpdate" && !payload.value.lastChunk) {
        seen.push(payload.value.artifact?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("") ?? "");
        heard?.();
      }
    }
    expect(seen).toEqual(["w0 ", "w1 ", "w2 ", "w3 ", "w4 "]);
  }, 30_000);

  it("a run that fails after some text: the text streamed, then the task failed with the error (a thrown object's message too)", async () => {
    const failures: [unknown, string][] = [
      [new Error("the model went away"), "Error: the model went away"],
      [{ message: "quota exceeded", status: 429 }, "quota exceeded"], // what HTTP and SDK clients throw
    ];
    for (const [thrown, text] of failures) {
      const stream = (_inputs: unknown, config: { runId: string }) =>
        new Observable<AgentStreamEvent>((subscriber) => {
          subscriber.next({ type: "start", runId: config.runId, inputs: {}, resumed: false, at: 0 } as AgentStreamEvent);
          subscriber.next({ type: "token", iteration: 0, at: 0, text: "Half an " } as AgentStreamEvent);
          subscriber.next({ type: "token", iteration: 0, at: 0, text: "answer" } as AgentStreamEvent);
          subscriber.error(thrown);
        });
      const executor = { stream, resume: () => new Observable() } as unknown as AgentExecutor;
      const server = createServer(createA2AHandler(executor, { agentCard: { name: "Talker", description: "Talks." } }));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const client = await new ClientFactory().createFromUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const seen: string[] = [];
      for await (const event of client.sendMessageStream(messageRequest("talk"))) {
        const payload = event.payload!;
        if (payload.$case === "artifactUpdate") seen.push(`text:${payload.value.artifact?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("")}`);
        if (payload.$case === "statusUpdate") seen.push(`status:${payload.value.status?.state}:${payload.value.status?.message?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("") ?? ""}`);
      }
      expect(seen.slice(-2)).toEqual(["text:Half an answer", `status:4:${text}`]);
    }
  }, 30_000);

  it("drops a client that never reads: what the server holds for it is bounded, and its connection is closed", async () => {
    // A run that talks (1 KB a token) until the test ends.
    let talking = true;
    const stream = (_inputs: unknown, config: { runId: string }) =>
      new Observable<AgentStreamEvent>((subscriber) => {
        subscriber.next({ type: "start", runId: config.runId, inputs: {}, resumed: false, at: 0 } as AgentStreamEvent);
        const word = "x".repeat(1023) + " ";
        let timer: ReturnType<typeof setImmediate> | undefined;
        const next = () => {
          if (!talking) return subscriber.complete();
          subscriber.next({ type: "token", iteration: 0, at: 0, text: word } as AgentStreamEvent);
          timer = setImmediate(next);
        };
        timer = setImmediate(next);
        return () => clearImmediate(timer);
      });
    const executor = { stream, resume: () => new Observable() } as unknown as AgentExecutor;
    const responses: ServerResponse[] = [];
    const maxBufferedBytes = 64 * 1024;
    const handler = createA2AHandler(executor, { agentCard: { name: "Talker", description: "Talks." }, maxBufferedBytes });
    const origin = await startLoopback((req, res) => {
      responses.push(res);
      void handler(req, res);
    });
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/stream", params: { message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "talk" }] } } });
    const request = `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    await Promise.all([stalledClient(origin, request), stalledClient(origin, request)]);
    let peak = 0;
    const sample = setInterval(() => {
      for (const res of responses) peak = Math.max(peak, res.writableLength);
    }, 5);
    try {
      // The runs still talk: only dropping the clients ends their responses.
      await expect.poll(() => responses.length === 2 && responses.every((res) => res.writableEnded), { timeout: 15_000, interval: 20 }).toBe(true);
      expect(talking).toBe(true);
    } finally {
      talking = false;
      clearInterval(sample);
    }
    for (const res of responses) peak = Math.max(peak, res.writableLength);
    // At most the bound, or one frame (one batch of text: 32K characters and its JSON).
    expect(peak).toBeLessThan(maxBufferedBytes + 8 * 1024);
  }, 30_000);
});
