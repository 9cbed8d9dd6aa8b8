// Test-only (not exported by the package): remote A2A agents written against @a2a-js/sdk alone
// (its DefaultRequestHandler, InMemoryTaskStore and Express handlers, as its samples are), for the
// a2aTool tests. Close them with `closeServers()` (./http-servers) in an afterEach.
import { createServer } from "node:http";
import { type AgentCard, type Part, TaskState } from "@a2a-js/sdk";
import { type AgentExecutor as SdkAgentExecutor, AgentEvent, DefaultRequestHandler, type ExecutionEventBus, InMemoryTaskStore, type RequestContext } from "@a2a-js/sdk/server";
import { UserBuilder, agentCardHandler, jsonRpcHandler } from "@a2a-js/sdk/server/express";
import type { StructuredToolInterface } from "@langchain/core/tools";
import express from "express";
import { listenOnLoopback } from "./http-servers";

/** A text part. */
export const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });

/** A part with a file's bytes (`bytes` of them). */
export const file = (bytes: number, filename: string, mediaType: string): Part => ({ content: { $case: "raw", value: Buffer.alloc(bytes, 7) }, metadata: undefined, filename, mediaType });

/** The agent's message of `parts`. */
export const reply = (taskId: string, contextId: string, parts: Part[]) => ({ messageId: crypto.randomUUID(), role: 2 as const, parts, taskId, contextId, extensions: [], metadata: {}, referenceTaskIds: [] });

/** A status update to `state`, with a message of text `says` when given. */
export const status = (taskId: string, contextId: string, state: TaskState, says?: string) =>
  AgentEvent.statusUpdate({ taskId, contextId, status: { state, timestamp: new Date().toISOString(), message: says === undefined ? undefined : reply(taskId, contextId, [text(says)]) }, metadata: {} });

/** What an {@link SdkAgent} does with a message: `input` is the text of its text parts. */
export type Script = (input: string, context: RequestContext, bus: ExecutionEventBus) => Promise<void> | void;

/** An agent written against the SDK alone, doing what `script` says with each message; it records the tasks cancelled, and a cancel ends a task that `wait`s. */
export class SdkAgent implements SdkAgentExecutor {
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
export function openTask({ taskId, contextId, userMessage }: RequestContext, bus: ExecutionEventBus): void {
  bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined }, artifacts: [], history: [userMessage], metadata: {} }));
  bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING));
}

/** Completes a task with an artifact of `parts`. */
export function completeTask({ taskId, contextId }: RequestContext, bus: ExecutionEventBus, parts: Part[]): void {
  bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, append: false, lastChunk: true, metadata: {}, artifact: { artifactId: "answer", name: "answer", description: "", parts, metadata: {}, extensions: [] } }));
  bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
}

/** Options of {@link sdkServer}. */
export interface SdkServerOptions {
  /** The card's name and description. @default "Remote agent", "Does as it is told." */
  name?: string;
  description?: string;
  /** The card's `capabilities.streaming`. @default true */
  streaming?: boolean;
  /** The path the agent is served under (its card at `<at>/.well-known/agent-card.json`). @default "" */
  at?: string;
  /** `false`: a task's events end when its `execute` returns, even at auth-required. @default true */
  keepOpen?: boolean;
}

/** The SDK's own server for `agent`: its card at `<its url>/.well-known/agent-card.json`, JSON-RPC at `<its url>/jsonrpc`; returns its url, `<origin><at>`. */
export async function sdkServer(agent: SdkAgentExecutor, { name = "Remote agent", description = "Does as it is told.", streaming = true, at = "", keepOpen = true }: SdkServerOptions = {}): Promise<string> {
  const app = express();
  const url = `${await listenOnLoopback(createServer(app))}${at}`;
  const card: AgentCard = {
    name,
    description,
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
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), agent, undefined, undefined, undefined, undefined, undefined, keepOpen ? {} : { keepBusAliveStates: [] });
  app.use(`${at}/.well-known/agent-card.json`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use(`${at}/jsonrpc`, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return url;
}

/**
 * Calls `remote` (an `a2aTool` of `agent`) with the input "wait", and aborts the call once the task
 * waits: resolves with what the call settled with, `"resolved"` or its error's name.
 */
export async function abortedCall(remote: StructuredToolInterface, agent: SdkAgent): Promise<string> {
  const controller = new AbortController();
  const settled = remote.invoke({ input: "wait" }, { signal: controller.signal }).then(
    () => "resolved",
    (error: unknown) => (error as Error).name,
  );
  await agent.waits;
  controller.abort();
  return settled;
}
