import type { Task } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import type { AgentExecutor, AgentStreamEvent } from "@agentrx/executors";
import { createA2AHandler } from "@agentrx/serve";
import { Observable } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { closeLoopback, stalledClient, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { messageRequest, quickExecutor } from "../test-helpers/a2a-messages";
import { chunkedUpload } from "../test-helpers/chunked-upload";
import { BAD_INPUTS_HOOKS, unhandledRejectionsDuring } from "../test-helpers/bad-inputs-hooks";

afterEach(closeLoopback);

const card = { name: "Talker", description: "Talks." };

const v03Send = (text: string) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }] } } });

describe("createA2AHandler, requests that fail", () => {
  it("survives a client that goes away mid-body: the handler resolves, onError hears of it, the next request is served", async () => {
    const heard: unknown[] = [];
    const withHook = createA2AHandler(quickExecutor, { agentCard: card, path: "/hook", onError: (error) => (heard.push(error), "failed") });
    const withoutHook = createA2AHandler(quickExecutor, { agentCard: card, path: "/plain" });
    const outcomes: Promise<string>[] = [];
    const origin = await startLoopback((req, res) => {
      const handler = req.url === "/hook" ? withHook : withoutHook;
      outcomes.push(handler(req, res).then(() => "resolved", (error: unknown) => `rejected: ${String(error)}`));
    });
    const halfBody = (path: string) => `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":"2.0",`;
    for (const path of ["/hook", "/plain"]) {
      const socket = await stalledClient(origin, halfBody(path));
      await expect.poll(() => outcomes.length).toBe(path === "/hook" ? 1 : 2);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the half body reached the server
      socket.destroy();
    }
    expect(await Promise.all(outcomes)).toEqual(["resolved", "resolved"]);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ code: "ECONNRESET" });
    // The next request is served.
    const next = await fetch(`${origin}/hook`, { method: "POST", headers: { "content-type": "application/json" }, body: v03Send("hi") });
    expect(await next.json()).toMatchObject({ id: 1, result: { kind: "task", status: { state: "completed" } } });
  });

  it("answers 413 naming the limit to a body larger than maxBodyBytes (declared or streamed), and serves the next request", async () => {
    const small = createA2AHandler(quickExecutor, { agentCard: card, path: "/small", maxBodyBytes: 1000 });
    const byDefault = createA2AHandler(quickExecutor, { agentCard: card });
    const root = await startLoopback((req, res) => void (req.url === "/small" ? small : byDefault)(req, res));
    const origin = `${root}/small`;
    const big = v03Send("x".repeat(2000));
    const declared = await fetch(origin, { method: "POST", headers: { "content-type": "application/json" }, body: big });
    expect(declared.status).toBe(413);
    expect(await declared.text()).toMatch(/larger than 1000 bytes.*maxBodyBytes/);
    // Chunked: no content-length, the limit is met while reading.
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 4; index++) controller.enqueue(new TextEncoder().encode(big.slice(index * 600, (index + 1) * 600)));
        controller.close();
      },
    });
    const streamed = await fetch(origin, { method: "POST", headers: { "content-type": "application/json" }, body: chunks, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.text()).toMatch(/larger than 1000 bytes/);
    const next = await fetch(origin, { method: "POST", headers: { "content-type": "application/json" }, body: v03Send("hi") });
    expect(await next.json()).toMatchObject({ result: { kind: "task", status: { state: "completed" } } });
    // The default limit, 10 MiB.
    const huge = await fetch(root, { method: "POST", headers: { "content-type": "application/json" }, body: v03Send("x".repeat(10 * 1024 * 1024)) });
    expect(huge.status).toBe(413);
    expect(await huge.text()).toMatch(/larger than 10485760 bytes/);
    expect(() => createA2AHandler(quickExecutor, { agentCard: card, maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
    expect(() => createA2AHandler(quickExecutor, { agentCard: card, onError: "log" as never })).toThrow(/onError/);
  });

  it("answers 413 naming the limit to a multi-megabyte chunked upload, without resetting the client, and serves the next request", async () => {
    const origin = await startLoopback(createA2AHandler(quickExecutor, { agentCard: card, maxBodyBytes: 1_000_000 }));
    for (let attempt = 0; attempt < 3; attempt++) {
      const outcome = await chunkedUpload(origin, 8 * 1024 * 1024);
      expect(outcome).toEqual({ status: 413, connection: "close", text: "The request body is larger than 1000000 bytes (`maxBodyBytes`).\n", errors: [] });
    }
    const next = await fetch(origin, { method: "POST", headers: { "content-type": "application/json" }, body: v03Send("hi") });
    expect(await next.json()).toMatchObject({ result: { kind: "task", status: { state: "completed" } } });
  });

  it("answers 415 to a body that is not JSON, and takes application/json with parameters or no content-type", async () => {
    const origin = await startLoopback(createA2AHandler(quickExecutor, { agentCard: card }));
    const post = (headers: Record<string, string>) => fetch(origin, { method: "POST", headers, body: v03Send("hi") });
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonl"]) {
      const refused = await post({ "content-type": type });
      expect(refused.status).toBe(415);
      expect(await refused.text()).toBe(`A2A JSON-RPC takes a JSON body (content-type: application/json), got content-type "${type}".\n`);
    }
    for (const type of ["application/json", "Application/JSON; charset=utf-8"]) {
      expect(await (await post({ "content-type": type })).json()).toMatchObject({ result: { kind: "task", status: { state: "completed" } } });
    }
    const untyped = await fetch(origin, { method: "POST", body: new TextEncoder().encode(v03Send("hi")) });
    expect(await untyped.json()).toMatchObject({ result: { kind: "task", status: { state: "completed" } } });
  });

  it("keeps saving a streamed task after its client went away: GetTask shows the run's final state", async () => {
    let goOn!: () => void;
    const wait = new Promise<void>((resolve) => (goOn = resolve));
    let ended!: () => void;
    const runEnded = new Promise<void>((resolve) => (ended = resolve));
    // Talks, waits until the client has gone, talks again, then answers with the whole text.
    const stream = (_inputs: unknown, config: { runId: string }) =>
      new Observable<AgentStreamEvent>((subscriber) => {
        void (async () => {
          subscriber.next({ type: "start", runId: config.runId, inputs: {}, resumed: false, at: 0 } as AgentStreamEvent);
          subscriber.next({ type: "token", iteration: 0, at: 0, text: "Before the drop, " } as AgentStreamEvent);
          await wait;
          for (const text of ["and ", "after ", "it."]) {
            await new Promise((resolve) => setTimeout(resolve, 10));
            subscriber.next({ type: "token", iteration: 0, at: 0, text } as AgentStreamEvent);
          }
          subscriber.next({ type: "output", runId: config.runId, output: "Before the drop, and after it.", stopReason: "finish", at: 0 } as AgentStreamEvent);
          subscriber.complete();
          ended();
        })();
      });
    const executor = { stream, resume: () => new Observable() } as unknown as AgentExecutor;
    const outcomes: Promise<string>[] = [];
    const handler = createA2AHandler(executor, { agentCard: card });
    const origin = await startLoopback((req, res) => void outcomes.push(handler(req, res).then(() => "resolved", (error: unknown) => `rejected: ${String(error)}`)));
    const client = await new ClientFactory().createFromUrl(origin);
    const abort = new AbortController();
    let taskId = "";
    let text = "";
    await expect(
      (async () => {
        for await (const event of client.sendMessageStream(messageRequest("talk"), { signal: abort.signal })) {
          const payload = event.payload!;
          if (payload.$case === "task") taskId = payload.value.id;
          if (payload.$case === "artifactUpdate") {
            text += payload.value.artifact?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
            abort.abort(); // the client goes away mid-run
          }
        }
      })(),
    ).rejects.toThrow();
    expect(taskId).not.toBe("");
    expect(text).toBe("Before the drop, ");
    goOn();
    await runEnded;
    await expect
      .poll(async () => {
        const task: Task = await client.getTask({ tenant: "", id: taskId });
        const answer = task.artifacts.flatMap((item) => item.parts).map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
        return [task.status?.state, answer];
      }, { timeout: 3_000 })
      .toEqual([3, "Before the drop, and after it."]);
    expect(new Set(await Promise.all(outcomes))).toEqual(new Set(["resolved"]));
  }, 30_000);
});

describe("createA2AHandler's default toInputs", () => {
  it("fails the task of a message the run would get nothing of (no text) or part of (a file's bytes), naming why, and starts no run", async () => {
    const started: unknown[] = [];
    const recording = { ...quickExecutor, stream: (inputs: unknown, config: { runId: string }) => (started.push(inputs), quickExecutor.stream(inputs as never, config)) } as unknown as AgentExecutor;
    const url = await startLoopback(createA2AHandler(recording, { agentCard: card }));
    const send = async (parts: unknown[]) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts } } });
      const answer = (await (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body })).json()) as { result: { status: { state: string; message?: { parts: { text?: string }[] } } } };
      return { state: answer.result.status.state, text: answer.result.status.message?.parts.map((part) => part.text).join("") };
    };
    expect(await send([])).toEqual({ state: "failed", text: expect.stringContaining("The message has no text for the run to answer.") });
    expect(await send([{ kind: "text", text: "  " }])).toEqual({ state: "failed", text: expect.stringContaining("The message has no text for the run to answer.") });
    expect(await send([{ kind: "text", text: "Read this:" }, { kind: "file", file: { bytes: "aGVsbG8=", mimeType: "text/plain", name: "a.txt" } }])).toEqual({
      state: "failed",
      text: expect.stringContaining("The message's part 1 is a file's bytes (a `raw` part), which a text input would drop."),
    });
    expect(started).toEqual([]);
    expect(await send([{ kind: "text", text: "Hi" }, { kind: "data", data: { city: "Paris" } }])).toEqual({ state: "completed", text: "hello" });
    expect(started).toEqual([{ input: 'Hi\n{"city":"Paris"}' }]);
  });
});

describe("createA2AHandler's toInputs of the caller's", () => {
  it("fails the task, naming toInputs, when it returns no inputs object (undefined, a number, a Promise), leaving no rejection unhandled, and starts no run", async () => {
    const unhandled = await unhandledRejectionsDuring(async () => {
      const started: unknown[] = [];
      const recording = { ...quickExecutor, stream: (inputs: unknown, config: { runId: string }) => (started.push(inputs), quickExecutor.stream(inputs as never, config)) } as unknown as AgentExecutor;
      for (const [toInputs, shown] of BAD_INPUTS_HOOKS) {
        const url = await startLoopback(createA2AHandler(recording, { agentCard: card, toInputs: toInputs as never }));
        const answer = (await (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: v03Send("hi") })).json()) as { result: { status: { state: string; message?: { parts: { text?: string }[] } } } };
        expect(answer.result.status.state).toBe("failed");
        expect(answer.result.status.message?.parts.map((part) => part.text).join("")).toContain(
          `createA2AHandler: \`toInputs\` must return the run's inputs, an object such as { input: "..." }, synchronously; got ${shown}.`,
        );
        await closeLoopback();
      }
      expect(started).toEqual([]);
    });
    expect(unhandled).toEqual([]);
  });
});
