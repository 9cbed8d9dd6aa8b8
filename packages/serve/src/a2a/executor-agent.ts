import type { Message, Task } from "@a2a-js/sdk";
import type { AgentExecutionEvent, AgentExecutor as SdkAgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import type { AgentExecutor, AgentStreamEvent, Decision, Interrupt } from "@agentrx/executors";
import { InvalidArgumentError } from "@agentrx/core";
import type { Observable } from "rxjs";
import { type Headers, TELEMETRY_CONTEXT_KEY, remoteContext } from "../internal/trace-context";
import type { A2AMessage } from "./a2a-types";
import { ROLE_AGENT, TASK_STATE, artifact, dataOf, dataPart, message, partsText, statusUpdate, textPart } from "./a2a-parts";

/** The artifact the answer streams into and ends up in. */
export const ANSWER_ARTIFACT = "answer";

/**
 * How long streamed text is gathered before it goes out as one artifact update (ms). The SDK copies
 * and saves the whole task on every update, so one update per token is quadratic in the answer's
 * length; batching bounds the updates by the time the answer takes, not by its tokens.
 */
const TEXT_FLUSH_MS = 50;

/** Gathered text this long (characters) goes out at once, so one update (and one SSE frame) stays small. */
const TEXT_FLUSH_CHARS = 32 * 1024;

/**
 * What becomes of an A2A message: the run's inputs. The message is the package's own
 * `A2AMessage` (the SDK's `Message` is one), so the public declarations need no `@a2a-js/sdk`.
 */
export type ToInputs = (message: A2AMessage) => Record<string, unknown>;

/** By default the message's text is the run's `input`. */
export const defaultToInputs: ToInputs = (received) => ({ input: partsText(received.parts) });

interface ActiveRun {
  contextId: string;
  stop: () => void;
}

/**
 * The executor as the SDK's `AgentExecutor`: each A2A task is one run (the task id is the run's
 * `runId`, the context id its `threadId`). The run's events become task updates; an approval pause
 * is `input-required`, and the next message on the task (its decisions) resumes the run; cancelling
 * the task unsubscribes from the run, which cancels it. A request with a valid W3C `traceparent`
 * header starts (or resumes) the run under that remote span, so its spans join the caller's trace
 * (when the executor has `telemetry`). @internal
 */
export class ExecutorA2AAgent implements SdkAgentExecutor {
  private readonly active = new Map<string, ActiveRun>();
  /** Context ids of the tasks this process has seen and that are not over (a paused task's too). */
  private readonly contexts = new Map<string, string>();

  constructor(
    private readonly executor: AgentExecutor,
    private readonly toInputs: ToInputs = defaultToInputs,
  ) {}

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, task } = context;
    const received = context.userMessage;
    const publish = (event: AgentExecutionEvent) => bus.publish(event);
    // The caller's span, from the request's `traceparent` (the SDK keeps the request's headers).
    const remote = await remoteContext(context.context?.state.get("headers") as Headers | undefined);
    this.contexts.set(taskId, contextId);
    const traced = remote === undefined ? {} : { configurable: { [TELEMETRY_CONTEXT_KEY]: remote } };
    let events: Observable<AgentStreamEvent>;
    let resuming: { interrupts: Interrupt[] } | undefined;
    if (task === undefined) {
      publish({ kind: "task", data: newTask(taskId, contextId, received) });
      events = this.executor.stream(this.toInputs(received), { runId: taskId, threadId: contextId, ...traced });
    } else {
      publish({ kind: "task", data: task });
      if (task.status?.state !== TASK_STATE.inputRequired) {
        const text = "This task is still running; send a new message (a new task) or cancel this one.";
        publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, task.status?.state ?? TASK_STATE.working, message(ROLE_AGENT, [textPart(text)], { taskId, contextId })) });
        return;
      }
      const decisions = decisionsOf(received, pendingInterrupts(task));
      if (decisions === undefined) {
        const interrupts = pendingInterrupts(task);
        publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.inputRequired, approvalMessage(interrupts, taskId, contextId, "That was not a decision.")) });
        return;
      }
      resuming = { interrupts: pendingInterrupts(task) };
      events = this.executor.resume(taskId, { decisions, ...traced });
    }
    await new Promise<void>((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        this.active.delete(taskId);
        resolve();
      };
      let started = false;
      let interrupts: Interrupt[] = [];
      const answer = new TextBatcher((chunk, first) => publish({ kind: "artifactUpdate", data: { taskId, contextId, artifact: artifact(ANSWER_ARTIFACT, [textPart(chunk)]), append: !first, lastChunk: false, metadata: undefined } }));
      const subscription = events.subscribe({
        next: (event) => {
          if (event.subRun !== undefined) return;
          // Streamed text goes out before whatever comes after it.
          if (event.type !== "token") answer.flush();
          switch (event.type) {
            case "start":
              started = true;
              publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.working, undefined, { agentrx: { runId: event.runId, resumed: event.resumed } }) });
              break;
            case "action":
              publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.working, undefined, { agentrx: { event: "action", tool: event.action.tool, toolInput: event.action.toolInput } }) });
              break;
            case "step":
              publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.working, undefined, { agentrx: { event: "step", tool: event.step.action.tool, observation: event.step.observation } }) });
              break;
            case "token":
              answer.add(event.text);
              break;
            case "interrupt":
              interrupts = event.interrupts;
              break;
            case "output": {
              const metadata = { agentrx: { runId: event.runId, stopReason: event.stopReason, ...(event.usage ? { usage: event.usage } : {}) } };
              if (event.stopReason === "interrupted") {
                publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.inputRequired, approvalMessage(interrupts, taskId, contextId), metadata) });
                break;
              }
              const parts = [textPart(event.output), ...(event.structuredOutput === undefined ? [] : [dataPart(event.structuredOutput)])];
              publish({ kind: "artifactUpdate", data: { taskId, contextId, artifact: artifact(ANSWER_ARTIFACT, parts), append: false, lastChunk: true, metadata: undefined } });
              this.contexts.delete(taskId);
              publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.completed, message(ROLE_AGENT, [textPart(event.output)], { taskId, contextId }), metadata) });
              break;
            }
            default:
              break;
          }
        },
        error: (error: unknown) => {
          answer.flush();
          if (resuming !== undefined && !started && InvalidArgumentError.isInstance(error)) {
            // The run refused the decisions before it resumed (an unknown interrupt, an edit its
            // tool's schema rejects): it still waits, so the task does too, saying why.
            publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.inputRequired, approvalMessage(resuming.interrupts, taskId, contextId, error.message)) });
            return finish();
          }
          this.contexts.delete(taskId);
          const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
          publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.failed, message(ROLE_AGENT, [textPart(text)], { taskId, contextId })) });
          finish();
        },
        complete: () => {
          answer.flush();
          finish();
        },
      });
      if (!done) this.active.set(taskId, { contextId, stop: () => (subscription.unsubscribe(), answer.discard(), finish()) });
    });
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const run = this.active.get(taskId);
    const contextId = run?.contextId ?? this.contexts.get(taskId) ?? "";
    this.contexts.delete(taskId);
    // Unsubscribing cancels the run: its model call and tools see their signal fire.
    run?.stop();
    const text = "The task was cancelled.";
    bus.publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.canceled, message(ROLE_AGENT, [textPart(text)], { taskId, contextId })) });
  };
}

/**
 * Gathers streamed text and sends it in chunks: the first as soon as the current turn of the event
 * loop is over (so a burst of tokens is one chunk), then at most one every {@link TEXT_FLUSH_MS}
 * unless {@link TEXT_FLUSH_CHARS} are waiting.
 */
class TextBatcher {
  private pending = "";
  private sent = false;
  private lastSent = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly send: (chunk: string, first: boolean) => void) {}

  add(text: string): void {
    if (text === "") return;
    this.pending += text;
    if (this.pending.length >= TEXT_FLUSH_CHARS) return this.flush();
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.lastSent + TEXT_FLUSH_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /** Sends what is gathered now. */
  flush(): void {
    this.cancelTimer();
    if (this.pending === "") return;
    const chunk = this.pending;
    this.pending = "";
    this.lastSent = Date.now();
    this.send(chunk, !this.sent);
    this.sent = true;
  }

  /** Forgets what is gathered (the task was cancelled). */
  discard(): void {
    this.cancelTimer();
    this.pending = "";
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function newTask(taskId: string, contextId: string, received: Message): Task {
  return {
    id: taskId,
    contextId,
    status: { state: TASK_STATE.submitted, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [received],
    metadata: { agentrx: { runId: taskId } },
  };
}

/**
 * The `input-required` message of a pause: what waits for a decision (text, after `problem`, what
 * was wrong with the last answer, if anything), and the interrupts (data).
 */
function approvalMessage(interrupts: Interrupt[], taskId: string, contextId: string, problem?: string): Message {
  const calls = interrupts.map((interrupt) => `${interrupt.tool}(${JSON.stringify(interrupt.toolInput)})`).join(", ");
  const how = 'Reply "approve" or "reject" (with a reason after it), or send data { decisions: { [interruptId]: decision } }.';
  const text = `${problem === undefined ? "" : `${problem} `}Approval needed for ${calls || "a tool call"}. ${how}`;
  return message(ROLE_AGENT, [textPart(text), dataPart({ interrupts })], { taskId, contextId });
}

/** The interrupts a paused task waits on, from its `input-required` status message. */
function pendingInterrupts(task: Task): Interrupt[] {
  const interrupts = dataOf(task.status?.message?.parts)?.["interrupts"];
  return Array.isArray(interrupts) ? (interrupts as Interrupt[]) : [];
}

/**
 * The decisions a message gives: data `{ decisions }` (by interrupt id) or `{ decision }` (for all),
 * else text starting with approve/yes or reject/no (the rest of a rejection is its message).
 * Undefined when the message is not a decision.
 */
export function decisionsOf(received: Message, interrupts: Interrupt[]): Record<string, Decision> | undefined {
  const data = dataOf(received.parts);
  if (data?.["decisions"] !== undefined && typeof data["decisions"] === "object") return data["decisions"] as Record<string, Decision>;
  const all = (decision: Decision) => Object.fromEntries(interrupts.map((interrupt) => [interrupt.id, decision]));
  if (data?.["decision"] !== undefined) return all(data["decision"] as Decision);
  const text = partsText(received.parts).trim();
  if (/^(approve|approved|yes|y|ok)\b/i.test(text)) return all("approve");
  const rejection = /^(reject|rejected|no|n|deny|denied)\b[\s:,.-]*([\s\S]*)$/i.exec(text);
  if (rejection) return all(rejection[2] ? { type: "reject", message: rejection[2] } : { type: "reject" });
  return undefined;
}
