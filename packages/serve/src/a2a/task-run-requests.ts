// What the SDK's request handler does not know about a task's run, taught to the one
// createA2AHandler serves: a message on a task whose run is going on is sent to the run
// (steering), and cancelling a task cancels its recorded run (see docs/serving-a2a.md). @internal
import type { CancelTaskRequest, Message, SendMessageRequest, StreamResponse, Task } from "@a2a-js/sdk";
import { valueToText } from "@agentrx/core";
import type { DefaultRequestHandler, ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import { type ExecutorA2AAgent, SteeringRefused, isTerminalState } from "./executor-agent";
import { TASK_STATE } from "./a2a-parts";

/** The SDK's errors that a refused steering message is answered with. */
export interface SteeringErrors {
  RequestMalformedError: new (message: string) => Error;
  UnsupportedOperationError: new (message: string) => Error;
  /** A JSON-RPC error of a code of our own (A2A has none for "retry later"). */
  JsonRpcTransportError: new (envelope: { jsonrpc: "2.0"; id: string | number | null; error: { code: number; message: string } }) => Error;
}

/**
 * The JSON-RPC error code of a message refused because its run's inbox is full (see
 * docs/serving-a2a.md): A2A's own codes are all for what will not change on a retry, so this one
 * is ours, from JSON-RPC's range for server errors (-32000 to -32099) and outside A2A's table.
 * The handler answers it with HTTP `429 Too Many Requests` and `Retry-After`.
 */
export const INBOX_FULL_CODE = -32029;

/** The `Retry-After` (seconds) of a message refused because its run's inbox is full: a hint, the run takes its messages at its next turn. */
export const INBOX_FULL_RETRY_AFTER_SECONDS = 1;

/**
 * Wraps `handler`'s `sendMessage`, `sendMessageStream` and `cancelTask`, before the SDK sees them:
 *
 * - a message with a field of the wrong type, which the SDK would misread (a `taskId` or `contextId`
 *   that is not a string, a text part whose text is not), gets `RequestMalformedError` (-32602,
 *   invalid params) naming the field;
 * - a message naming a task that is `submitted` or `working` (its run is going on) is sent to the
 *   run with `agent.steer` instead of reaching the SDK (which would run the executor a second time
 *   on the task's event bus, breaking the run's own stream). `SendMessage` is answered with the
 *   task as it stands, `SendStreamingMessage` with the task's stream from now on (the SDK's
 *   resubscription: the task, then its updates until it ends or pauses). A message the run cannot
 *   take gets a JSON-RPC error saying why: `RequestMalformedError` for one with no text and no file
 *   (or too much text), `UnsupportedOperationError` for a run that finished or cannot be reached
 *   from here, {@link INBOX_FULL_CODE} for a run whose inbox is full (send it again later);
 * - `CancelTask` of a task that has not ended cancels its recorded run first (`agent.cancelRun`:
 *   a paused run, or one of another process; the SDK calls the executor's `cancelTask` only when
 *   this process has the task's event bus), so the task is not reported cancelled while its run
 *   could still be resumed. When that fails, the cancel fails and the task is left as it was.
 *
 * Any other request goes to the SDK as it came.
 */
export function answerTaskRunRequests(handler: DefaultRequestHandler, store: TaskStore, agent: ExecutorA2AAgent, errors: SteeringErrors): void {
  const sendMessage = handler.sendMessage.bind(handler);
  const sendMessageStream = handler.sendMessageStream.bind(handler);
  const cancelTask = handler.cancelTask.bind(handler);

  /** The running task the message names, once the message was sent to its run; undefined for any other message. */
  const steered = async (params: SendMessageRequest, context: ServerCallContext): Promise<Task | undefined> => {
    const received: Message | undefined = params?.message;
    const malformed = malformedField(received);
    if (malformed !== undefined) throw new errors.RequestMalformedError(malformed);
    const taskId = received?.taskId;
    if (received === undefined || typeof taskId !== "string" || taskId.trim() === "") return undefined;
    const task = await store.load(taskId, context);
    const state = task?.status?.state;
    if (task === undefined || state === TASK_STATE.inputRequired || isTerminalState(state)) return undefined;
    try {
      await agent.steer(taskId, received, state);
    } catch (error) {
      if (error instanceof SteeringRefused) throw refusalError(error, errors);
      throw error;
    }
    return task;
  };

  handler.sendMessage = async (params, context) => {
    const task = await steered(params, context);
    if (task === undefined) return sendMessage(params, context);
    return handler.getTask({ tenant: params.tenant, id: task.id, historyLength: params.configuration?.historyLength }, context);
  };

  handler.sendMessageStream = async function* (params, context): AsyncGenerator<StreamResponse, void, undefined> {
    const task = await steered(params, context);
    if (task === undefined) yield* sendMessageStream(params, context);
    else yield* handler.resubscribe({ tenant: params.tenant, id: task.id }, context);
  };

  handler.cancelTask = async (params: CancelTaskRequest, context) => {
    const task = typeof params?.id === "string" && params.id.trim() !== "" ? await store.load(params.id, context) : undefined;
    if (task !== undefined && !isTerminalState(task.status?.state)) await agent.cancelRun(task.id);
    return cancelTask(params, context);
  };
}

/**
 * What is wrong with a message's fields the SDK reads without checking their type, if anything: a
 * `taskId` or `contextId` that is not a string (the SDK would fail on it with an internal error),
 * a text part whose text is not a string (the run would be given it as text).
 */
function malformedField(received: Message | undefined): string | undefined {
  if (typeof received !== "object" || received === null) return undefined; // the SDK answers a missing message
  for (const [field, what] of [["taskId", "a task's id"], ["contextId", "a context's id"]] as const) {
    const value: unknown = received[field];
    if (value !== undefined && value !== null && typeof value !== "string") return `message.${field} must be a string (${what}), got ${shown(value)}.`;
  }
  const parts: unknown = received.parts;
  if (!Array.isArray(parts)) return undefined; // the SDK answers parts that are not a list
  for (const [index, part] of parts.entries()) {
    const content = (part as Message["parts"][number] | undefined)?.content;
    if (content?.$case === "text" && typeof (content.value as unknown) !== "string") return `message.parts[${index}].text must be a string, got ${shown(content.value)}.`;
  }
  return undefined;
}

/** A value as an error message shows it: its JSON, else its string; never throws. */
function shown(value: unknown): string {
  return valueToText(value, { quoteStrings: true });
}

/** The SDK's JSON-RPC error for a refused steering message. */
function refusalError(refused: SteeringRefused, errors: SteeringErrors): Error {
  if (refused.kind === "malformed") return new errors.RequestMalformedError(refused.message);
  if (refused.kind === "unsupported") return new errors.UnsupportedOperationError(refused.message);
  return new errors.JsonRpcTransportError({ jsonrpc: "2.0", id: null, error: { code: INBOX_FULL_CODE, message: refused.message } });
}
