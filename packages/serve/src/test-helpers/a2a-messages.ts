// Test-only (not exported by the package): the A2A messages and executors the createA2AHandler
// tests send and serve.
import type { Message, SendMessageRequest, Task } from "@a2a-js/sdk";
import type { AgentExecutor, AgentStreamEvent } from "@agentrx/executors";
import { Observable } from "rxjs";

/** A user's message of one text part, on task `taskId` (none: a new task). */
export function userMessage(text: string, taskId = ""): Message {
  return { messageId: crypto.randomUUID(), contextId: "", taskId, role: 1, parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }], metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** A user's message of one data part, `value`, on task `taskId` (a decision, for one). */
export function dataMessage(value: unknown, taskId: string): Message {
  return { messageId: crypto.randomUUID(), contextId: "", taskId, role: 1, parts: [{ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" }], metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** The request of a `SendMessage` (or `SendStreamingMessage`) of {@link userMessage}. */
export function messageRequest(text: string, taskId?: string): SendMessageRequest {
  return { tenant: "", message: userMessage(text, taskId), configuration: undefined, metadata: undefined };
}

/** The text of a task's artifacts' text parts, joined. */
export const artifactText = (task: Task): string =>
  task.artifacts
    .flatMap((item) => item.parts)
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .join("");

/** An executor that answers "hello" at once. */
export const quickExecutor = {
  stream: (_inputs: unknown, config: { runId: string }) =>
    new Observable<AgentStreamEvent>((subscriber) => {
      subscriber.next({ type: "start", runId: config.runId, inputs: {}, resumed: false, at: 0 } as AgentStreamEvent);
      subscriber.next({ type: "output", runId: config.runId, output: "hello", stopReason: "finish", at: 0 } as AgentStreamEvent);
      subscriber.complete();
    }),
  resume: () => new Observable(),
} as unknown as AgentExecutor;
