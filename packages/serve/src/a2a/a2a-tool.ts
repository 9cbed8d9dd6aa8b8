import type { Message, StreamResponse, Task } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import { checkTimerMs } from "../internal/check-options";
import { traceHeaders } from "../internal/trace-context";
import { ROLE_USER, TASK_STATE, answerText, message, textPart } from "./a2a-parts";
import { A2ATaskError } from "./a2a-task-error";
import { loadA2AClient } from "./load-a2a-sdk";
import { READ_TRIES, isTransient, pollTask } from "./poll-task";

/**
 * Options of {@link a2aTool}.
 *
 * @example
 * ```ts
 * import type { A2AToolOptions } from "@agentrx/serve";
 *
 * const options: A2AToolOptions = { url: "http://127.0.0.1:4000", name: "weather_agent", timeoutMs: 120_000 };
 * ```
 */
export interface A2AToolOptions {
  /** The remote agent's base URL: its card is at `<url>/.well-known/agent-card.json`. */
  url: string;
  /** The tool's name (letters, digits, `_`, `-`). @default the agent card's `name`, with other characters as `_` */
  name?: string;
  /** What the tool does, for the model. @default the agent card's `description` */
  description?: string;
  /**
   * The longest a call waits for the remote task to settle (end, or ask for input), in
   * milliseconds, from 1 to 2147483647: past it, the call cancels the remote task (once its id is
   * known) and fails with an error naming the agent, its URL and the timeout. @default 600000 (10 minutes)
   */
  timeoutMs?: number;
}

const OPTION_KEYS = Object.keys({ url: true, name: true, description: true, timeoutMs: true } satisfies Record<keyof A2AToolOptions, true>);

/** How long an aborted (or timed-out) call waits for the remote task's id, to cancel it; a timed-out one, at most its `timeoutMs` more. */
const CANCEL_WAIT_MS = 5_000;

/** A call's `timeoutMs` when none is given: 10 minutes. */
const DEFAULT_TIMEOUT_MS = 600_000;

const CARD_PATH = "/.well-known/agent-card.json";

const schema = z.object({
  input: z.string().describe("What to ask the agent."),
  taskId: z.string().optional().describe("To answer an agent that asked for more input: the task id it gave. Omit to start a new task."),
});

/**
 * A remote [A2A](https://a2a-protocol.org) agent as a `@langchain/core` tool, on `@a2a-js/sdk`'s
 * client: it reads the agent card at `<url>/.well-known/agent-card.json` (for the tool's name and
 * description, unless given), and each call sends the input as a message, follows the task to its
 * end (over its stream; for an agent whose card says it does not stream, by reading it with
 * `GetTask` until it ends) and returns the answer (the task's artifacts, else the message of its
 * final status; a file's bytes as a one-line note naming it, its media type and size; a task
 * completed with neither, a sentence saying so). A task that fails, is rejected or cancelled
 * throws an `A2ATaskError`; one that asks for input (or for authorization)
 * returns the question and its task id, which the model passes back (`taskId`) with its answer.
 * Aborting the call (the run's signal: a cancelled or timed-out run) cancels the remote task, on
 * an agent that streams or not; so does a call that outlasts `timeoutMs` (default 10 minutes),
 * which then fails naming the agent, its URL and the timeout. A read of the task of an agent that
 * does not stream is made again after a failure that may pass (a network error, HTTP 5xx or 429),
 * up to 4 tries. Any other failure of a request (nothing listening, an HTTP error, an answer
 * that is not JSON-RPC) fails the call with an error naming the agent, its URL and what failed
 * (sending the message, reading the task), the SDK's error as its `cause`. When the call is traced (the executor's `telemetry`, or
 * an active OpenTelemetry span), its requests carry the W3C `traceparent` (and `tracestate`) of the
 * call's span, so the remote run's spans join the caller's trace (see docs/serving-a2a.md). An
 * option it does not take (a misspelt `nmae`) throws an `InvalidArgumentError` naming it, before
 * the agent card is read.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import type { AddressInfo } from "node:net";
 * import { AgentExecutor } from "@agentrx/executors";
 * import { a2aTool, createA2AHandler } from "@agentrx/serve";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const agent = RunnableLambda.from((input: { input: string }) => ({ returnValues: { output: `echo: ${input.input}` }, log: "" }));
 * const server = createServer(createA2AHandler(new AgentExecutor({ agent, tools: [] }), { agentCard: { name: "Echo", description: "Echoes." } }));
 * await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
 * const echo = await a2aTool({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
 * console.log(echo.name, await echo.invoke({ input: "hi" })); // "Echo" "echo: hi"
 * server.close();
 * ```
 */
export async function a2aTool(options: A2AToolOptions): Promise<StructuredToolInterface> {
  checkOptionKeys("a2aTool", options, OPTION_KEYS);
  const { url, name: givenName, description: givenDescription, timeoutMs = DEFAULT_TIMEOUT_MS } = (options ?? {}) as A2AToolOptions;
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) {
    throw new InvalidArgumentError({ argument: "url", value: url, message: `a2aTool: \`url\` must be the agent's http(s) base URL, got ${JSON.stringify(url)}.` });
  }
  if (givenName !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(givenName)) {
    throw new InvalidArgumentError({ argument: "name", value: givenName, message: `a2aTool: \`name\` must be 1-64 letters, digits, "_" or "-", got ${JSON.stringify(givenName)}.` });
  }
  checkTimerMs("a2aTool", "timeoutMs", timeoutMs);
  const { ClientFactory } = await loadA2AClient();
  // The card's full URL (an empty path): the SDK would resolve its well-known path against `url`,
  // dropping `url`'s last path segment.
  const cardUrl = agentCardUrl(url);
  let client: Awaited<ReturnType<InstanceType<typeof ClientFactory>["createFromUrl"]>>;
  let card: Awaited<ReturnType<typeof client.getAgentCard>>;
  try {
    client = await new ClientFactory().createFromUrl(cardUrl, "");
    card = await client.getAgentCard();
  } catch (error) {
    // The SDK's error says what failed (a status, a refused connection), not where: the URL is the first thing to check.
    throw new Error(`a2aTool: could not read the agent card at ${cardUrl}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const name = givenName ?? (card.name.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 64) || "a2a_agent");
  const description = givenDescription ?? (card.description || `The A2A agent "${card.name}".`);
  const agent: RemoteAgent = { client, name: card.name, url, streaming: card.capabilities?.streaming === true, timeoutMs };
  return tool(async ({ input, taskId }: z.infer<typeof schema>, config?: RunnableConfig) => callAgent(agent, input, taskId, config?.signal, await traceHeaders(config?.configurable)), {
    name,
    description,
    schema,
  }) as unknown as StructuredToolInterface;
}

/** `<url>/.well-known/agent-card.json`, `url`'s path kept whole. */
function agentCardUrl(url: string): string {
  let card: URL;
  try {
    card = new URL(url);
  } catch (error) {
    throw new InvalidArgumentError({ argument: "url", value: url, message: `a2aTool: \`url\` must be the agent's http(s) base URL, got ${JSON.stringify(url)}.`, cause: error });
  }
  card.pathname = `${card.pathname.replace(/\/+$/, "")}${CARD_PATH}`;
  card.hash = "";
  return card.href;
}

/** The agent a tool calls: its client, its name and URL (for errors), whether it streams, and how long a call waits. */
interface RemoteAgent {
  client: Client;
  name: string;
  url: string;
  streaming: boolean;
  timeoutMs: number;
}

/** What the task's stream has shown so far. */
interface Seen {
  task?: Task;
  state?: number;
  /** The text of the message of the latest status (the one `state` is of): an earlier status's text is not what the task says now. */
  statusText: string;
  artifacts: Map<string, string>;
  reply?: Message;
}

/**
 * The states at which a call returns: the task ended, or is interrupted (it waits for input, or for
 * authorization). At `auth-required` the SDK's servers keep the stream open, since the task may go
 * on once authorized out of band; the call returns the agent's request there, as a blocking
 * `SendMessage` does, rather than wait on a person.
 */
const SETTLED_STATES: ReadonlySet<number> = new Set([TASK_STATE.completed, TASK_STATE.failed, TASK_STATE.canceled, TASK_STATE.rejected, TASK_STATE.inputRequired, TASK_STATE.authRequired]);

/**
 * Sends the input and follows the task to its end: over its stream, or, for an agent that does not
 * stream, by reading it until it settles ({@link pollTask}). `headers`: the trace context of the
 * call, sent with each request (the SDK's `serviceParameters` are HTTP headers). An abort, or the
 * call's `timeoutMs`, cancels the remote task; a request that fails fails the call naming the
 * agent, its URL and what failed ({@link callFailure}).
 */
async function callAgent(remote: RemoteAgent, input: string, taskId: string | undefined, signal: AbortSignal | undefined, headers: Record<string, string> | undefined): Promise<string> {
  const { client, name: agent, streaming, timeoutMs } = remote;
  signal?.throwIfAborted();
  const stream = new AbortController();
  const seen: Seen = { statusText: "", artifacts: new Map() };
  const traced = headers === undefined ? {} : { serviceParameters: headers };
  const cancel = (id: string) => void client.cancelTask({ tenant: "", id, metadata: undefined }, traced).catch(() => undefined);
  let cancelWhenKnown = false;
  /** Cancels the remote task, then stops listening; before its id is known, reads on until it is (the task is the stream's first event, or the reply of a non-streaming send), for at most `waitMs`. */
  const stop = (reason: unknown, waitMs: number) => {
    const id = seen.task?.id;
    if (id) {
      cancel(id);
      stream.abort(reason);
      return;
    }
    cancelWhenKnown = true;
    setTimeout(() => stream.abort(reason), waitMs).unref?.();
  };
  const onAbort = () => stop(signal?.reason, CANCEL_WAIT_MS);
  signal?.addEventListener("abort", onAbort, { once: true });
  /** The call's failure once it outlasted `timeoutMs` (the task it cancelled is known by then, if any). */
  let timedOut: (() => Error) | undefined;
  const timer = setTimeout(() => {
    timedOut = () => timeoutFailure(remote, seen.task?.id);
    stop(new Error(`a2aTool: timeoutMs (${timeoutMs} ms) is over.`), Math.min(CANCEL_WAIT_MS, timeoutMs));
  }, timeoutMs);
  timer.unref?.();
  try {
    const request = { tenant: "", message: message(ROLE_USER, [textPart(input)], taskId ? { taskId } : {}), configuration: undefined, metadata: undefined };
    const options = { signal: stream.signal, ...traced };
    const events = streaming ? client.sendMessageStream(request, options) : pollTask(client, request, options, taskId !== undefined);
    // A message on a task opens with the task as it stood, which may be the very pause this
    // message answers: that state is not the task's new one.
    let opening = taskId !== undefined;
    for await (const event of events) {
      observe(seen, event);
      if (cancelWhenKnown && seen.task) {
        cancel(seen.task.id);
        break;
      }
      const stale = opening && event.payload?.$case === "task";
      opening = false;
      if (seen.reply || (!stale && seen.state !== undefined && SETTLED_STATES.has(seen.state))) break;
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (timedOut !== undefined) throw timedOut();
    throw callFailure(remote, seen.task?.id, error);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  signal?.throwIfAborted();
  if (timedOut !== undefined) throw timedOut();
  if (seen.reply) return answerText(seen.reply.parts);
  const id = seen.task?.id ?? taskId ?? "(unknown)";
  const answer = [...seen.artifacts.values()].filter((text) => text !== "").join("\n") || seen.statusText;
  switch (seen.state) {
    case TASK_STATE.completed:
      return answer || `The agent "${agent}" completed task ${id} without an answer: it sent no artifact and no message.`;
    case TASK_STATE.inputRequired:
      return `The agent "${agent}" needs more input (task ${id}): ${seen.statusText || "it did not say what."}\nTo answer, call this tool again with taskId "${id}".`;
    case TASK_STATE.authRequired:
      return `The agent "${agent}" needs authorization to go on (task ${id}): ${seen.statusText || "it did not say how."}\nTo answer it, or once it is given, call this tool again with taskId "${id}".`;
    case TASK_STATE.failed:
      throw new A2ATaskError({ agent, taskId: id, state: "failed", detail: seen.statusText });
    case TASK_STATE.rejected:
      throw new A2ATaskError({ agent, taskId: id, state: "rejected", detail: seen.statusText });
    case TASK_STATE.canceled:
      throw new A2ATaskError({ agent, taskId: id, state: "canceled", detail: seen.statusText });
    default:
      throw new A2ATaskError({ agent, taskId: id, state: "unknown", detail: "the stream ended before the task did" });
  }
}

/**
 * A failed request of a call, as the model reads it: `a2aTool: the call to the A2A agent "X" at
 * <url> failed while <what>: <the SDK's error>`, naming the request (sending the message, following
 * or reading task `taskId` once its id is known), the SDK's error as its `cause`.
 */
function callFailure({ name, url, streaming }: RemoteAgent, taskId: string | undefined, error: unknown): Error {
  const what =
    taskId === undefined
      ? `sending the message (${streaming ? "SendStreamingMessage" : "SendMessage"})`
      : streaming
        ? `following task ${taskId}'s stream (SendStreamingMessage)`
        : `reading task ${taskId} (GetTask${isTransient(error) ? `, ${READ_TRIES} tries` : ""})`;
  return new Error(`a2aTool: the call to the A2A agent "${name}" at ${url} failed while ${what}: ${describe(error)}`, { cause: error });
}

/** `Name: message` of an error, with its cause's message for a network error (`fetch failed` says why only there); anything else as text. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const network = error.name === "TypeError" && error.cause instanceof Error && error.cause.message !== "";
  const cause = network ? ` (${(error.cause as Error).message})` : "";
  return `${error.name}: ${error.message}${cause}`;
}

/** The failure of a call that outlasted its `timeoutMs`: it names the agent, its URL, the timeout, and the task cancelled, if there was one. */
function timeoutFailure({ name, url, timeoutMs }: RemoteAgent, taskId: string | undefined): Error {
  const cancelled = taskId === undefined ? "it had not answered the message, so there was no task to cancel" : `its task ${taskId} was cancelled`;
  return new Error(`a2aTool: the A2A agent "${name}" at ${url} did not finish within timeoutMs (${timeoutMs} ms): ${cancelled}. Raise a2aTool's \`timeoutMs\` for an agent that takes longer.`);
}

function observe(seen: Seen, event: StreamResponse): void {
  const payload = event.payload;
  if (payload === undefined) return;
  switch (payload.$case) {
    case "message":
      seen.reply = payload.value;
      return;
    case "task": {
      const task = payload.value;
      seen.task = task;
      if (task.status) {
        seen.state = task.status.state;
        seen.statusText = answerText(task.status.message?.parts);
      }
      if (task.artifacts.length > 0) {
        seen.artifacts.clear();
        for (const item of task.artifacts) seen.artifacts.set(item.artifactId, answerText(item.parts));
      }
      return;
    }
    case "statusUpdate": {
      const status = payload.value.status;
      if (!status) return;
      seen.state = status.state;
      seen.statusText = answerText(status.message?.parts);
      return;
    }
    case "artifactUpdate": {
      const item = payload.value.artifact;
      if (!item) return;
      const text = answerText(item.parts);
      const before = payload.value.append ? (seen.artifacts.get(item.artifactId) ?? "") : "";
      seen.artifacts.set(item.artifactId, before + text);
      return;
    }
  }
}
