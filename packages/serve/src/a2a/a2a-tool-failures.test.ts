import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { A2ATaskError, a2aTool, createA2AHandler } from "@agentrx/serve";
import { afterEach, describe, expect, it } from "vitest";
import { quickExecutor } from "../test-helpers/a2a-messages";
import { closeServers, listenOnLoopback } from "../test-helpers/http-servers";
import { SdkAgent, openTask, sdkServer } from "../test-helpers/sdk-a2a-server";

// What an a2aTool call does when the remote agent fails it: a request that fails (nothing
// listening, an HTTP error, an answer that is not JSON-RPC), an agent that never answers, a task
// that never ends, a read of the task that fails now and then.

afterEach(closeServers);

/** How the front server answers the next JSON-RPC `POST`s (`GET`s, the card, are served as they are). */
type Answer = "serve" | "500" | "html" | "not-json-rpc" | "hang" | "drop";

/**
 * An AgentRx agent ("Fake", answering "hello") behind a front server that answers each `POST` as
 * `answer(method)` says: `serve` hands it to the agent; `drop` closes the connection unanswered.
 * Returns the front server's URL.
 */
async function frontedAgent(answer: (method: string) => Answer, streaming = true): Promise<string> {
  let handler: ReturnType<typeof createA2AHandler> | undefined;
  const front = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== "POST") return void handler?.(request, response);
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      const how = answer((JSON.parse(body) as { method: string }).method);
      if (how === "500") return void response.writeHead(500, { "content-type": "text/plain" }).end("Internal Server Error");
      if (how === "html") return void response.writeHead(200, { "content-type": "text/html" }).end("<html>oops</html>");
      if (how === "not-json-rpc") return void response.writeHead(200, { "content-type": "application/json" }).end('{"hello":1}');
      if (how === "hang") return;
      if (how === "drop") return void request.socket.destroy();
      // Served: the body again, to the agent's own server.
      void fetch(agentUrl, { method: "POST", headers: { "content-type": "application/json", ...(request.headers["a2a-version"] ? { "a2a-version": String(request.headers["a2a-version"]) } : {}) }, body }).then(async (served) => {
        response.writeHead(served.status, { "content-type": served.headers.get("content-type") ?? "application/json" });
        response.end(Buffer.from(await served.arrayBuffer()));
      });
    });
  });
  const url = await listenOnLoopback(front);
  handler = createA2AHandler(quickExecutor, { agentCard: { name: "Fake", description: "Fakes.", url: `${url}/`, capabilities: { streaming } } });
  const agentUrl = await listenOnLoopback(createServer(handler));
  return url;
}

const failure = (promise: Promise<unknown>) => promise.then(() => new Error("resolved"), (error: unknown) => error as Error & { cause?: unknown });

describe("a2aTool, a call that fails on the way", () => {
  it.each([
    ["streams", true, "500", /failed while sending the message \(SendStreamingMessage\): Error: HTTP error establishing stream for SendStreamingMessage: 500/],
    ["does not stream", false, "500", /failed while sending the message \(SendMessage\): Error: HTTP error for SendMessage! Status: 500/],
    ["does not stream", false, "html", /failed while sending the message \(SendMessage\): SyntaxError: Unexpected token/],
    ["does not stream", false, "not-json-rpc", /failed while sending the message \(SendMessage\): Error: Invalid JSON-RPC response for SendMessage/],
  ] as const)("names the agent, its URL and what failed, the SDK's error as its cause (an agent that %s, answered %s)", async (_name, streaming, how, says) => {
    const url = await frontedAgent(() => how, streaming);
    const remote = await a2aTool({ url });
    const error = await failure(remote.invoke({ input: "hi" }));
    expect(error.message).toMatch(new RegExp(`^a2aTool: the call to the A2A agent "Fake" at ${url.replace(/[.]/g, "\\.")} ${says.source}`));
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).toContain((error.cause as Error).message);
    expect(A2ATaskError.isInstance(error)).toBe(false);
  });

  it("names the agent and its URL when nothing listens there any more (fetch failed), with the network's reason", async () => {
    const url = await frontedAgent(() => "serve");
    const remote = await a2aTool({ url });
    await closeServers();
    const error = await failure(remote.invoke({ input: "hi" }));
    expect(error.message).toMatch(new RegExp(`^a2aTool: the call to the A2A agent "Fake" at ${url.replace(/[.]/g, "\\.")} failed while sending the message \\(SendStreamingMessage\\): TypeError: fetch failed \\(.*ECONNREFUSED`));
    expect((error.cause as Error).message).toBe("fetch failed");
  });

  it("keeps a task's end (A2ATaskError) and an abort as they are", async () => {
    const agent = new SdkAgent(async (_input, context, bus) => {
      openTask(context, bus);
      await agent.wait(context.taskId);
    });
    const remote = await a2aTool({ url: await sdkServer(agent) });
    const controller = new AbortController();
    const call = failure(remote.invoke({ input: "wait" }, { signal: controller.signal }));
    await agent.waits;
    controller.abort(new Error("the run was cancelled"));
    expect((await call).message).toBe("the run was cancelled");
  });
});

describe("a2aTool's timeoutMs", () => {
  it("fails a call whose agent never answers, naming the agent, its URL and the timeout", async () => {
    const url = await frontedAgent(() => "hang");
    const remote = await a2aTool({ url, timeoutMs: 200 });
    const started = Date.now();
    const error = await failure(remote.invoke({ input: "hi" }));
    expect(error.message).toBe(
      `a2aTool: the A2A agent "Fake" at ${url} did not finish within timeoutMs (200 ms): it had not answered the message, so there was no task to cancel. Raise a2aTool's \`timeoutMs\` for an agent that takes longer.`,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it.each([
    ["streams", true],
    ["does not stream", false],
  ])("cancels the remote task of a call that outlasts it (an agent that %s)", async (_name, streaming) => {
    const agent = new SdkAgent(async (_input, context, bus) => {
      openTask(context, bus);
      await agent.wait(context.taskId);
    });
    const url = await sdkServer(agent, { streaming });
    const remote = await a2aTool({ url, timeoutMs: 300 });
    const error = await failure(remote.invoke({ input: "wait" }));
    expect(error.message).toMatch(new RegExp(`^a2aTool: the A2A agent "Remote agent" at ${url.replace(/[.]/g, "\\.")} did not finish within timeoutMs \\(300 ms\\): its task \\S+ was cancelled\\.`));
    await expect.poll(() => agent.cancelled.length).toBe(1);
  });

  it("is checked", async () => {
    for (const timeoutMs of [0, -1, 1.5, "60000", 2 ** 31]) {
      await expect(a2aTool({ url: "http://127.0.0.1:1", timeoutMs: timeoutMs as number })).rejects.toThrow(/a2aTool: `timeoutMs` must be/);
    }
  });
});

describe("a2aTool, reading the task of an agent that does not stream", () => {
  it("reads again after a network error or an HTTP 5xx, and answers", async () => {
    const failures: Answer[] = ["500", "drop", "500"];
    const url = await frontedAgent((method) => (method === "GetTask" ? (failures.shift() ?? "serve") : "serve"), false);
    const remote = await a2aTool({ url });
    expect(await remote.invoke({ input: "hi" })).toBe("hello");
    expect(failures).toEqual([]);
  });

  it("fails, naming the agent, its URL and the task read, when the reads keep failing", async () => {
    let reads = 0;
    const url = await frontedAgent((method) => (method === "GetTask" ? (reads++, "500") : "serve"), false);
    const remote = await a2aTool({ url });
    const error = await failure(remote.invoke({ input: "hi" }));
    expect(error.message).toMatch(new RegExp(`^a2aTool: the call to the A2A agent "Fake" at ${url.replace(/[.]/g, "\\.")} failed while reading task \\S+ \\(GetTask, 4 tries\\): Error: HTTP error for GetTask! Status: 500`));
    expect(reads).toBe(4);
  });
});
