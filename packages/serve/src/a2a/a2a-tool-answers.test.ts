import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AgentCard, type Part, TaskState } from "@a2a-js/sdk";
import { type AgentExecutor as SdkAgentExecutor, AgentEvent, DefaultRequestHandler, type ExecutionEventBus, InMemoryTaskStore, type RequestContext } from "@a2a-js/sdk/server";
import { UserBuilder, agentCardHandler, jsonRpcHandler } from "@a2a-js/sdk/server/express";
import { a2aTool } from "@agentrx/serve";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";

// What a2aTool makes of what remote agents written against the SDK alone send: a task it
// continues, auth-required, files, an agent that does not stream, a card under a path.

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const file = (bytes: number, filename: string, mediaType: string): Part => ({ content: { $case: "raw", value: Buffer.alloc(bytes, 7) }, metadata: undefined, filename, mediaType });
const reply = (taskId: string, contextId: string, parts: Part[]) => ({ messageId: crypto.randomUUID(), role: 2 as const, parts, taskId, contextId, extensions: [], metadata: {}, referenceTaskIds: [] });
const status = (taskId: string, contextId: string, state: TaskState, says?: string) =>
  AgentEvent.statusUpdate({ taskId, contextId, status: { state, timestamp: new Date().toISOString(), message: says === undefined ? undefined : reply(taskId, contextId, [text(says)]) }, metadata: {} });

type Script = (input: string, context: RequestContext, bus: ExecutionEventBus) => Promise<void> | void;

/** An agent written against the SDK alone, doing what `script` says with each message; it records the tasks cancelled, and a cancel ends a task that `waits`. */
class SdkAgent implements SdkAgentExecutor {
  readonly cancelled: string[] = [];
  private readonly waiting = new Map<string, () => void>();
  private onWait: (() => void) | undefined;
  /** Resolves when a task waits. */
  readonly waits = new Promise<void>((resolve) => (this.onWait = resolve));

  constructor(private readonly script: Script) {}

  /** Waits until task `taskId` is cancelled. */
  readonly wait = (taskId: string) =>
    new Promise<void>((resolve) => {
      this.waiting.set(taskId, resolve);
      this.onWait?.();
    });

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const input = context.userMessage.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
    await this.script(input, context, bus);
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.cancelled.push(taskId);
    this.waiting.get(taskId)?.();
    bus.publish(status(taskId, "", TaskState.TASK_STATE_CANCELED, "cancelled"));
  };
}

/** Opens a new task (`submitted`, then `working`). */
function open({ taskId, contextId, userMessage }: RequestContext, bus: ExecutionEventBus): void {
  bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined }, artifacts: [], history: [userMessage], metadata: {} }));
  bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING));
}

/** Completes a task with an artifact of `parts`. */
function complete({ taskId, contextId }: RequestContext, bus: ExecutionEventBus, parts: Part[]): void {
  bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, append: false, lastChunk: true, metadata: {}, artifact: { artifactId: "answer", name: "answer", description: "", parts, metadata: {}, extensions: [] } }));
  bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
}

/** The SDK's own server for `agent` (DefaultRequestHandler, its Express handlers): its card at `<its url>/.well-known/agent-card.json`; returns its url, `<origin><at>`. */
async function sdkServer(agent: SdkAgent, { streaming = true, at = "", keepOpen = true }: { streaming?: boolean; at?: string; keepOpen?: boolean } = {}): Promise<string> {
  const app = express();
  const server = app.listen(0, "127.0.0.1");
  servers.push(server);
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${at}`;
  const card: AgentCard = {
    name: "Remote agent",
    description: "Does as it is told.",
    version: "1.0.0",
    supportedInterfaces: [{ url: `${url}/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    capabilities: { streaming, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  };
  // `keepOpen: false`: a task's events end when its `execute` returns, even at auth-required.
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), agent, undefined, undefined, undefined, undefined, undefined, keepOpen ? {} : { keepBusAliveStates: [] });
  app.use(`${at}/.well-known/agent-card.json`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use(`${at}/jsonrpc`, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return url;
}

const taskIdIn = (answer: string) => /\(task ([^)]+)\)/.exec(answer)?.[1] ?? "";

describe.each([
  ["streams", true],
  ["does not stream", false],
])("a2aTool, for an agent that %s", (_name, streaming) => {
  it("answers a task it continues: the task as it stood (the pause being answered) opens the reply, and is not the task's new state", async () => {
    const agent = new SdkAgent((input, context, bus) => {
      if (context.task === undefined) {
        open(context, bus);
        bus.publish(status(context.taskId, context.contextId, TaskState.TASK_STATE_INPUT_REQUIRED, "Which order?"));
        return;
      }
      // As the SDK's samples do: the stored task first (still input-required), then the work.
      bus.publish(AgentEvent.task(context.task));
      bus.publish(status(context.taskId, context.contextId, TaskState.TASK_STATE_WORKING));
      complete(context, bus, [text(`Refunded order ${input}.`)]);
    });
    const remote = await a2aTool({ url: await sdkServer(agent, { streaming }) });
    const first = await remote.invoke({ input: "Refund my order" });
    expect(first).toContain('needs more input (task');
    expect(first).toContain("Which order?");
    expect(await remote.invoke({ input: "A-17", taskId: taskIdIn(first) })).toBe("Refunded order A-17.");
  });

  it.each([
    ["the stream stays open, as the SDK's servers keep it", true],
    ["the stream ends", false],
  ])("returns an agent's request for authorization, with the task's id, when the task stops there (%s)", async (_how, keepOpen) => {
    const agent = new SdkAgent((_input, context, bus) => {
      open(context, bus);
      bus.publish(status(context.taskId, context.contextId, TaskState.TASK_STATE_AUTH_REQUIRED, "Sign in at https://auth.example.com/device first."));
    });
    const remote = await a2aTool({ url: await sdkServer(agent, { streaming, keepOpen }) });
    const answer = await remote.invoke({ input: "My invoices?" });
    expect(answer).toMatch(/^The agent "Remote agent" needs authorization to go on \(task [^)]+\): Sign in at https:\/\/auth\.example\.com\/device first\.\n/);
    expect(answer).toContain(`call this tool again with taskId "${taskIdIn(answer)}"`);
  });

  it("says which files the answer had (name, media type, size), in place of their bytes", async () => {
    const agent = new SdkAgent((input, context, bus) => {
      if (input === "chart") {
        open(context, bus);
        complete(context, bus, [text("Here is the chart:"), file(2048, "chart.png", "image/png")]);
        return;
      }
      bus.publish(AgentEvent.message(reply("", context.contextId, [file(12, "", "application/octet-stream")])));
    });
    const remote = await a2aTool({ url: await sdkServer(agent, { streaming }) });
    expect(await remote.invoke({ input: "chart" })).toBe('Here is the chart:\n[File "chart.png" (image/png, 2.0 KB): its bytes are not shown.]');
    expect(await remote.invoke({ input: "bytes" })).toBe("[File (application/octet-stream, 12 B): its bytes are not shown.]");
  });

  it("cancels the remote task when the call is aborted", async () => {
    const agent = new SdkAgent(async (_input, context, bus) => {
      open(context, bus);
      await agent.wait(context.taskId);
    });
    const remote = await a2aTool({ url: await sdkServer(agent, { streaming }) });
    const controller = new AbortController();
    const settled = remote.invoke({ input: "wait" }, { signal: controller.signal }).then(
      () => "resolved",
      (error: unknown) => (error as Error).name,
    );
    await agent.waits;
    controller.abort();
    expect(await settled).toBe("AbortError");
    await expect.poll(() => agent.cancelled.length).toBe(1);
  });
});

describe("a2aTool's agent card", () => {
  it.each(["/agents/remote", "/agents/remote/"])("is read at <url>/.well-known/agent-card.json, for a url with a path (%s)", async (path) => {
    const agent = new SdkAgent((input, context, bus) => {
      open(context, bus);
      complete(context, bus, [text(input.toUpperCase())]);
    });
    const url = await sdkServer(agent, { at: "/agents/remote" });
    const remote = await a2aTool({ url: `${new URL(url).origin}${path}` });
    expect(remote.name).toBe("Remote_agent");
    expect(await remote.invoke({ input: "hi" })).toBe("HI");
  });
});
