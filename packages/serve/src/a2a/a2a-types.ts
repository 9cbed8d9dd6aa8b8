// The A2A values of the package's public API, as plain structural types written from
// `@a2a-js/sdk` 1.3.0's own (protobuf-shaped: every field present, `undefined` when unset). The SDK
// is an optional peer dependency, so no declaration a user compiles may import it: a project
// without it would fail with TS2307. The SDK's values are assignable to these types, and these to
// the SDK's (so `handler.agentCard` and `handler.agentExecutor` go to its `DefaultRequestHandler`),
// but for `A2ATaskStore`, whose SDK-only types are left loose (create-a2a-handler.ts casts it);
// a2a-types.test-d.ts checks both ways. Enums (`Role`, `TaskState`) are their numbers here.

/**
 * One part of an A2A message or artifact (the SDK's `Part`): text, raw bytes, a URL or structured
 * data, in `content`, with its media type.
 *
 * @example
 * ```ts
 * import type { A2APart } from "@agentrx/serve";
 *
 * const part: A2APart = { content: { $case: "text", value: "Hello" }, metadata: undefined, filename: "", mediaType: "text/plain" };
 * ```
 */
export interface A2APart {
  /** What the part holds: `text`, `raw` bytes, a `url`, or JSON `data`. */
  content?: { $case: "text"; value: string } | { $case: "raw"; value: Buffer } | { $case: "url"; value: string } | { $case: "data"; value: unknown } | undefined;
  /** Extra information about the part. */
  metadata: Record<string, unknown> | undefined;
  /** A file's name (e.g. `"report.pdf"`), or `""`. */
  filename: string;
  /** The content's media type (e.g. `"text/plain"`, `"application/json"`). */
  mediaType: string;
}

/**
 * An A2A message (the SDK's `Message`): what `toInputs` of {@link createA2AHandler} receives.
 *
 * @example
 * ```ts
 * import type { A2AHandlerOptions, A2AMessage } from "@agentrx/serve";
 *
 * const textOf = (message: A2AMessage) => message.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
 * const options: A2AHandlerOptions = { agentCard: { name: "Echo", description: "Echoes." }, toInputs: (message) => ({ question: textOf(message) }) };
 * ```
 */
export interface A2AMessage {
  /** The message's id, made by its sender. */
  messageId: string;
  /** The conversation (context) it belongs to, or `""`. */
  contextId: string;
  /** The task it belongs to, or `""`. */
  taskId: string;
  /** Who sent it: `1` the client (`Role.ROLE_USER`), `2` the agent (`Role.ROLE_AGENT`). */
  role: number;
  /** What it says. */
  parts: A2APart[];
  /** Extra information about the message. */
  metadata: Record<string, unknown> | undefined;
  /** The URIs of the extensions the message uses. */
  extensions: string[];
  /** Tasks the message refers to, for context. */
  referenceTaskIds: string[];
}

/**
 * An A2A task (the SDK's `Task`): one run of the served executor (its id is the run's `runId`),
 * as an {@link A2ATaskStore} saves and loads it.
 *
 * @example
 * ```ts
 * import type { A2ATask } from "@agentrx/serve";
 *
 * const task: A2ATask = {
 *   id: "run-1",
 *   contextId: "thread-1",
 *   status: { state: 3, message: undefined, timestamp: new Date().toISOString() }, // 3: completed
 *   artifacts: [],
 *   history: [],
 *   metadata: undefined,
 * };
 * ```
 */
export interface A2ATask {
  /** The task's id (the run's `runId`). */
  id: string;
  /** The conversation (context) it belongs to (the run's `threadId`). */
  contextId: string;
  /**
   * Where the task is: `state` is the SDK's `TaskState` (`1` submitted, `2` working, `3` completed,
   * `4` failed, `5` canceled, `6` input-required, `7` rejected, `8` auth-required), with the
   * message that goes with it.
   */
  status: { state: number; message: A2AMessage | undefined; timestamp: string | undefined } | undefined;
  /** What the task produced (the answer is the `answer` artifact). */
  artifacts: Array<{ artifactId: string; name: string; description: string; parts: A2APart[]; metadata: Record<string, unknown> | undefined; extensions: string[] }>;
  /** The messages of the task so far. */
  history: A2AMessage[];
  /** Extra information about the task. */
  metadata: Record<string, unknown> | undefined;
}

/**
 * Where an A2A task store keeps tasks: any `TaskStore` of `@a2a-js/sdk` (its `InMemoryTaskStore`,
 * its database store) is one. To write your own, implement the SDK's `TaskStore`; the call
 * `context` and the `list` request and response are the SDK's types.
 *
 * @example
 * ```ts
 * import type { A2ATaskStore } from "@agentrx/serve";
 * import { InMemoryTaskStore } from "@a2a-js/sdk/server";
 *
 * const taskStore: A2ATaskStore = new InMemoryTaskStore();
 * ```
 */
export interface A2ATaskStore {
  /** Saves a task, replacing the one with its id. `context`: the SDK's `ServerCallContext`. */
  save(task: A2ATask, context: unknown): Promise<void>;
  /** The task with this id, if there is one the caller may see. */
  load(taskId: string, context: unknown): Promise<A2ATask | undefined>;
  /** Lists tasks (the SDK's `ListTasksRequest` in, `ListTasksResponse` out). */
  list(params: unknown, context: unknown): Promise<unknown>;
}

/**
 * How an agent is reached (the SDK's `AgentInterface`): a URL, its protocol binding and version.
 *
 * @example
 * ```ts
 * import type { A2AAgentInterface } from "@agentrx/serve";
 *
 * const jsonRpc: A2AAgentInterface = { url: "https://agents.example.com/weather", protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" };
 * ```
 */
export interface A2AAgentInterface {
  /** The interface's absolute URL. */
  url: string;
  /** `"JSONRPC"`, `"GRPC"` or `"HTTP+JSON"`. */
  protocolBinding: string;
  /** The tenant to name in requests, or `""`. */
  tenant: string;
  /** The A2A protocol version served there (`"1.0"`, `"0.3"`). */
  protocolVersion: string;
}

/**
 * Something an agent does well (the SDK's `AgentSkill`), as its card advertises it.
 *
 * @example
 * ```ts
 * import type { A2AAgentSkill } from "@agentrx/serve";
 *
 * const forecast: A2AAgentSkill = {
 *   id: "forecast",
 *   name: "Forecast",
 *   description: "The weather in a city for the next days.",
 *   tags: ["weather"],
 *   examples: ["Will it rain in Paris tomorrow?"],
 *   inputModes: [],
 *   outputModes: [],
 *   securityRequirements: [],
 * };
 * ```
 */
export interface A2AAgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  /** Prompts the skill handles. */
  examples: string[];
  /** Media types it takes, when not the card's defaults. */
  inputModes: string[];
  /** Media types it answers in, when not the card's defaults. */
  outputModes: string[];
  securityRequirements: A2ASecurityRequirement[];
}

/** Security schemes required, by name, with their scopes (the SDK's `SecurityRequirement`). */
interface A2ASecurityRequirement {
  schemes: { [key: string]: { list: string[] } };
}

/** The scopes of an OAuth flow, by name. */
type Scopes = { [key: string]: string };

/** One security scheme of an agent card (the SDK's `SecurityScheme`, after OpenAPI 3.2's). */
interface A2ASecurityScheme {
  scheme?:
    | { $case: "apiKeySecurityScheme"; value: { description: string; location: string; name: string } }
    | { $case: "httpAuthSecurityScheme"; value: { description: string; scheme: string; bearerFormat: string } }
    | {
        $case: "oauth2SecurityScheme";
        value: {
          description: string;
          flows:
            | {
                flow?:
                  | { $case: "authorizationCode"; value: { authorizationUrl: string; tokenUrl: string; refreshUrl: string; scopes: Scopes; pkceRequired: boolean } }
                  | { $case: "clientCredentials"; value: { tokenUrl: string; refreshUrl: string; scopes: Scopes } }
                  | { $case: "implicit"; value: { authorizationUrl: string; refreshUrl: string; scopes: Scopes } }
                  | { $case: "password"; value: { tokenUrl: string; refreshUrl: string; scopes: Scopes } }
                  | { $case: "deviceCode"; value: { deviceAuthorizationUrl: string; tokenUrl: string; refreshUrl: string; scopes: Scopes } }
                  | undefined;
              }
            | undefined;
          oauth2MetadataUrl: string;
        };
      }
    | { $case: "openIdConnectSecurityScheme"; value: { description: string; openIdConnectUrl: string } }
    | { $case: "mtlsSecurityScheme"; value: { description: string } }
    | undefined;
}

/**
 * An A2A agent card (the SDK's `AgentCard`, A2A 1.0): who the agent is, where and how it is reached,
 * what it can do. `createA2AHandler` publishes one (`handler.agentCard`) at
 * `/.well-known/agent-card.json`; every field of the SDK's card is here, so a card of the SDK is an
 * `A2AAgentCard` and the other way round. These are all the fields of an A2A 1.0 card (the spec's
 * card has no others, hence no index signature): data of your own goes in an extension's `params`
 * (`capabilities.extensions`). Security schemes and OAuth flows are in the SDK's form here
 * (`{ $case, value }`); the JSON published has each keyed by its case, as A2A 1.0's JSON does.
 *
 * @example
 * ```ts
 * import { AgentExecutor } from "@agentrx/executors";
 * import { type A2AAgentCard, createA2AHandler } from "@agentrx/serve";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const executor = new AgentExecutor({ agent: RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" })), tools: [] });
 * const card: A2AAgentCard = createA2AHandler(executor, { agentCard: { name: "Greeter", description: "Says hi." } }).agentCard;
 * console.log(card.version, card.supportedInterfaces[0]?.protocolBinding); // "1.0.0" "JSONRPC"
 * ```
 */
export interface A2AAgentCard {
  /** The agent's name, as other agents see it (and `a2aTool` names its tool). */
  name: string;
  /** What the agent does, for other agents and people. */
  description: string;
  /** The interfaces it is reached at, the preferred first. */
  supportedInterfaces: A2AAgentInterface[];
  /** Who provides the agent. */
  provider: { url: string; organization: string } | undefined;
  /** The agent's version (e.g. `"1.0.0"`). */
  version: string;
  /** Where the agent is documented. */
  documentationUrl?: string | undefined;
  /** What the agent supports: streaming, push notifications, extensions, an extended card. */
  capabilities:
    | {
        streaming?: boolean | undefined;
        pushNotifications?: boolean | undefined;
        extensions: Array<{ uri: string; description: string; required: boolean; params: Record<string, unknown> | undefined }>;
        extendedAgentCard?: boolean | undefined;
      }
    | undefined;
  /** The security schemes clients authenticate with, by name. */
  securitySchemes: { [key: string]: A2ASecurityScheme };
  /** The security requirements to contact the agent. */
  securityRequirements: A2ASecurityRequirement[];
  /** The media types the agent takes, unless a skill says otherwise. */
  defaultInputModes: string[];
  /** The media types the agent answers in, unless a skill says otherwise. */
  defaultOutputModes: string[];
  /** What the agent does well. */
  skills: A2AAgentSkill[];
  /** JSON Web Signatures of the card. */
  signatures: Array<{ protected: string; signature: string; header: Record<string, unknown> | undefined }>;
  /** The agent's icon. */
  iconUrl?: string | undefined;
}

/**
 * The context of one A2A request, as the SDK's `DefaultRequestHandler` gives it to an
 * {@link A2AAgentExecutor} (the SDK's `RequestContext`, which has more).
 *
 * @example
 * ```ts
 * import type { A2ARequestContext } from "@agentrx/serve";
 *
 * const describe = (request: A2ARequestContext) => `${request.taskId}: ${request.userMessage.parts.length} part(s)`;
 * ```
 */
export interface A2ARequestContext {
  readonly taskId: string;
  readonly contextId: string;
  /** The task, when the message continues one. */
  readonly task?: A2ATask | undefined;
  /** The message received. */
  readonly userMessage: A2AMessage;
}

/**
 * Where an {@link A2AAgentExecutor} publishes a task's events (the SDK's `ExecutionEventBus`, which
 * has more).
 *
 * @example
 * ```ts
 * import type { A2AExecutionEventBus } from "@agentrx/serve";
 *
 * const done = (bus: A2AExecutionEventBus) => bus.finished();
 * ```
 */
export interface A2AExecutionEventBus {
  /** Publishes a `message`, `task`, `statusUpdate` or `artifactUpdate` event (the SDK's `AgentExecutionEvent`). */
  publish(event: { kind: "message" | "task" | "statusUpdate" | "artifactUpdate"; data: unknown }): void;
  /** Says the execution is over. */
  finished(): void;
}

/**
 * The served executor as the SDK's `AgentExecutor` (`handler.agentExecutor`): give it to the
 * SDK's own `DefaultRequestHandler` to serve the agent over the SDK's REST or gRPC transports, or
 * with its Express middleware.
 *
 * @example
 * ```ts
 * import { AgentExecutor } from "@agentrx/executors";
 * import { type A2AAgentExecutor, createA2AHandler } from "@agentrx/serve";
 * import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const executor = new AgentExecutor({ agent: RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" })), tools: [] });
 * const handler = createA2AHandler(executor, { agentCard: { name: "Greeter", description: "Says hi.", url: "https://agents.example.com/greeter" } });
 * const agentExecutor: A2AAgentExecutor = handler.agentExecutor;
 * const requestHandler = new DefaultRequestHandler(handler.agentCard, new InMemoryTaskStore(), agentExecutor);
 * ```
 */
export interface A2AAgentExecutor {
  /** Runs (or resumes) the task's run, publishing its events on the bus. */
  execute(requestContext: A2ARequestContext, eventBus: A2AExecutionEventBus): Promise<void>;
  /** Cancels the task's run and publishes its `canceled` status. */
  cancelTask(taskId: string, eventBus: A2AExecutionEventBus): Promise<void>;
}
