import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AGENT_CARD_PATH, type AgentCard, TaskState } from "@a2a-js/sdk";
import { type AgentExecutor as SdkAgentExecutor, AgentEvent, DefaultRequestHandler, type ExecutionEventBus, InMemoryTaskStore, type RequestContext } from "@a2a-js/sdk/server";
import { UserBuilder, agentCardHandler, jsonRpcHandler } from "@a2a-js/sdk/server/express";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { A2ATaskError, a2aTool } from "@agentrx/serve";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

const text = (value: string) => ({ content: { $case: "text" as const, value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const status = (taskId: string, contextId: string, state: TaskState, reply?: string) =>
  AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: {
      state,
      timestamp: new Date().toISOString(),
      message: reply === undefined ? undefined : { messageId: crypto.randomUUID(), role: 2, parts: [text(reply)], taskId, contextId, extensions: [], metadata: {}, referenceTaskIds: [] },
    },
    metadata: {},
  });

/** A trivial agent written against the SDK alone, as its samples are: it shouts, fails on "fail", and waits on "wait" until cancelled. */
class ShoutAgent implements SdkAgentExecutor {
  readonly cancelled: string[] = [];
  private readonly waiting = new Map<string, () => void>();
  private onWait: (() => void) | undefined;
  /** Resolves when a task waits (its input was "wait"). */
  readonly waits = new Promise<void>((resolve) => (this.onWait = resolve));

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = context;
    const input = userMessage.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
    bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined }, artifacts: [], history: [userMessage], metadata: {} }));
    bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING));
    if (input === "fail") {
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_FAILED, "the shouting broke"));
      return;
    }
    if (input === "wait") {
      await new Promise<void>((resolve) => {
        this.waiting.set(taskId, resolve);
        this.onWait?.();
      });
      return;
    }
    const artifactId = "shout";
    for (const [index, word] of input.toUpperCase().split(" ").entries()) {
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, append: index > 0, lastChunk: false, metadata: {}, artifact: { artifactId, name: "shout", description: "", parts: [text(index > 0 ? ` ${word}` : word)], metadata: {}, extensions: [] } }));
    }
    bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.cancelled.push(taskId);
    this.waiting.get(taskId)?.();
    bus.publish(status("" + taskId, "", TaskState.TASK_STATE_CANCELED, "cancelled"));
  };
}

/** The SDK's own server path: DefaultRequestHandler, InMemoryTaskStore and its Express handlers. */
async function sdkServer(agent: ShoutAgent): Promise<string> {
  const app = express();
  const server = app.listen(0, "127.0.0.1");
  servers.push(server);
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: "Shout agent",
    description: "Repeats what you say, louder.",
    version: "1.0.0",
    supportedInterfaces: [{ url: `${url}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), agent);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return url;
}

describe("a2aTool", () => {
  it("takes its name and description from the agent card, and returns the task's answer", async () => {
    const url = await sdkServer(new ShoutAgent());
    const shout = await a2aTool({ url });
    expect(shout.name).toBe("Shout_agent");
    expect(shout.description).toBe("Repeats what you say, louder.");
    expect(await shout.invoke({ input: "hello there" })).toBe("HELLO THERE");
    const named = await a2aTool({ url, name: "shouter", description: "Shouts." });
    expect([named.name, named.description]).toEqual(["shouter", "Shouts."]);
  });

  it("is a tool an agent calls; a failed remote task is an error the model reads", async () => {
    const url = await sdkServer(new ShoutAgent());
    const shout = await a2aTool({ url, name: "shout" });
    const llm = new ScriptedChatModel({
      responses: [{ toolCalls: [{ name: "shout", args: { input: "hi" } }, { name: "shout", args: { input: "fail" } }] }, (messages) => messages.slice(-2).map((message) => message.text).join(" | ")],
    });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [shout], prompt }), tools: [shout] });
    const { output } = await executor.invoke({ input: "Shout twice" });
    expect(output).toContain("HI | ");
    expect(output).toContain('The A2A agent "Shout agent" ended task');
    expect(output).toContain("as failed: the shouting broke");
    await expect(shout.invoke({ input: "fail" })).rejects.toSatisfy((error: unknown) => A2ATaskError.isInstance(error) && error.state === "failed");
  });

  it("cancels the remote task when the call is aborted (the run is cancelled)", async () => {
    const agent = new ShoutAgent();
    const shout = await a2aTool({ url: await sdkServer(agent), name: "shout" });
    const controller = new AbortController();
    const call = shout.invoke({ input: "wait" }, { signal: controller.signal });
    const settled = call.then(
      () => "resolved",
      (error: unknown) => (error as Error).name,
    );
    await agent.waits;
    controller.abort();
    expect(await settled).toBe("AbortError");
    await expect.poll(() => agent.cancelled.length).toBe(1);
  });

  it("checks its options", async () => {
    await expect(a2aTool({ url: "ftp://nowhere" })).rejects.toThrow(/`url` must be the agent's http\(s\) base URL/);
    await expect(a2aTool({ url: "http://127.0.0.1:1", name: "has space" })).rejects.toThrow(/`name` must be/);
  });
});
