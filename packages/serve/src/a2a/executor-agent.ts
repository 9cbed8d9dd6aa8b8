import type { Message, Task } from "@a2a-js/sdk";
import type { AgentExecutionEvent, AgentExecutor as SdkAgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import { type AgentExecutor, type AgentStreamEvent, type Interrupt, RunFinishedError, RunNotFoundError, type RunStatus, type RunStore, SteeringInboxFullError, runDisplaySource } from "@agentrx/executors";
import { InvalidArgumentError } from "@agentrx/core";
import { HumanMessage } from "@langchain/core/messages";
import type { Observable } from "rxjs";
import { errorText } from "../internal/error-text";
import { hookInputs } from "../internal/hook-inputs";
import { isRunCancellation } from "../internal/run-cancellation";
import { type Headers, TELEMETRY_CONTEXT_KEY, remoteContext } from "../internal/trace-context";
import type { A2AMessage } from "./a2a-types";
import { ROLE_AGENT, TASK_STATE, artifact, dataOf, dataPart, message, partsContent, partsText, statusUpdate, textPart } from "./a2a-parts";
import { cancelRecordedRun } from "./cancel-recorded-run";
import { approvalMessage, decisionsOf, pendingInterrupts } from "./a2a-approval";
import { TextBatcher } from "./text-batcher";

/** The artifact the answer streams into and ends up in. */
export const ANSWER_ARTIFACT = "answer";


/**
 * What becomes of an A2A message: the run's inputs. The message is the package's own
 * `A2AMessage` (the SDK's `Message` is one), so the public declarations need no `@a2a-js/sdk`.
 */
export type ToInputs = (message: A2AMessage) => Record<string, unknown>;

/**
 * By default the message's text is the run's `input` (its text parts, its data parts as JSON, its
 * URL parts). A message the run would get nothing of (no part with text), or a part of which it
 * would lose (a file's bytes), is refused: its task fails naming why, rather than running on an
 * empty or partial input (`toInputs` maps other messages).
 */
export const defaultToInputs: ToInputs = (received) => {
  const how = "The handler's default `toInputs` give the run the message's text; pass `toInputs` to map other messages (see docs/serving-a2a.md).";
  const raw = (received.parts ?? []).findIndex((part) => part.content?.$case === "raw");
  if (raw !== -1) throw new InvalidArgumentError({ argument: "message", value: received.messageId, message: `The message's part ${raw} is a file's bytes (a \`raw\` part), which a text input would drop. ${how}` });
  const input = partsText(received.parts);
  if (input.trim() === "") throw new InvalidArgumentError({ argument: "message", value: received.messageId, message: `The message has no text for the run to answer. ${how}` });
  return { input };
};

interface ActiveRun {
  contextId: string;
  stop: () => void;
  /** Settles once the `execute` that follows the run returns (the run ended, paused or was cancelled). */
  done: Promise<void>;
}

/** The states of a task that no message or cancel changes any more. */
const TERMINAL_STATES: ReadonlySet<number> = new Set([TASK_STATE.completed, TASK_STATE.failed, TASK_STATE.canceled, TASK_STATE.rejected]);

/** Whether a task in `state` has ended (completed, failed, canceled or rejected). */
export function isTerminalState(state: number | undefined): boolean {
  return state !== undefined && TERMINAL_STATES.has(state);
}

/**
 * Why a message to a task whose run is going on could not be sent to the run: `malformed` (the
 * message has no text and no file to send, or more text than the run takes), `unsupported` (the
 * run has finished, or cannot be reached from this process), or `busy` (as many messages as the
 * run holds wait for it: the same message may be sent again later). The handler answers it with
 * the JSON-RPC error of that kind. @internal
 */
export class SteeringRefused extends Error {
  constructor(
    readonly kind: "malformed" | "unsupported" | "busy",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "SteeringRefused";
  }
}

/**
 * The executor as the SDK's `AgentExecutor`: each A2A task is one run (the task id is the run's
 * `runId`, the context id its `threadId`). The run's events become task updates; an approval pause
 * is `input-required`, and the next message on the task (its decisions) resumes the run, the task
 * published `working` first (never the pause again, which a client would take for its answer); a message
 * on a task whose run is going on is sent to the run (steering, {@link ExecutorA2AAgent.steer});
 * cancelling the task unsubscribes from the run, which cancels it, or cancels the recorded run
 * (a paused one) in the executor's store. A resumed run cancelled while its record is being
 * claimed is stopped as soon as it starts (its record ends `cancelled`), and a resume refused
 * because its record was cancelled meanwhile leaves the task `canceled`. A new task in a context
 * whose run is going on may join that run (the executor's `followUp: "interrupt"`): its metadata
 * then names that run (a `working` update `{ agentrx: { runId, joined: true } }`), never one of its
 * own. A message `toInputs` refuses fails its task here, as a failed run's does (`Name: message`),
 * and leaves nothing behind. A request with a valid W3C `traceparent` header starts
 * (or resumes) the run under that remote span, so its spans join the caller's trace (when the
 * executor has `telemetry`). @internal
 */
export class ExecutorA2AAgent implements SdkAgentExecutor {
  private readonly active = new Map<string, ActiveRun>();
  /** Context ids of the tasks this process has seen and that are not over (a paused task's too). */
  private readonly contexts = new Map<string, string>();

  /**
   * @param report hears of what no request can be answered with: a cancelled run that ended
   *   before it started and whose record could not then be cancelled
   */
  constructor(
    private readonly executor: AgentExecutor,
    private readonly toInputs: ToInputs = defaultToInputs,
    private readonly report: (error: unknown) => void = () => undefined,
  ) {}

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, task } = context;
    const received = context.userMessage;
    const publish = (event: AgentExecutionEvent) => bus.publish(event);
    // The caller's span, from the request's `traceparent` (the SDK keeps the request's headers).
    const remote = await remoteContext(context.context?.state.get("headers") as Headers | undefined);
    const traced = remote === undefined ? {} : { configurable: { [TELEMETRY_CONTEXT_KEY]: remote } };
    let events: Observable<AgentStreamEvent>;
    let resuming: { interrupts: Interrupt[] } | undefined;
    /** The run of the context going on as a new task comes: with `followUp: "interrupt"`, the task joins it. */
    let busy: string | undefined;
    if (task === undefined) {
      let inputs: Record<string, unknown>;
      try {
        inputs = hookInputs("createA2AHandler", "toInputs", this.toInputs(received));
      } catch (error) {
        // The message is refused (by `toInputs`) before any run: the task fails here, as a failed
        // run's does, and nothing of it is kept. (Were `execute` to reject, the SDK would log the
        // error and word the task's failure its own way.)
        publish({ kind: "task", data: newTask(taskId, contextId, received, undefined) });
        publish({ kind: "statusUpdate", data: failedStatus(taskId, contextId, error) });
        return;
      }
      busy = await this.runningRunOf(contextId, taskId);
      // The task's run is its own (its id is the task's) unless the task joins the one going on.
      publish({ kind: "task", data: newTask(taskId, contextId, received, busy === undefined ? taskId : undefined) });
      events = this.executor.stream(inputs, { runId: taskId, threadId: contextId, ...traced });
      this.contexts.set(taskId, contextId);
    } else {
      if (task.status?.state !== TASK_STATE.inputRequired) return this.steerFromExecute(task, received, publish);
      const interrupts = pendingInterrupts(task);
      const decisions = decisionsOf(received, interrupts);
      if (decisions === undefined) {
        publish({ kind: "task", data: task });
        publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.inputRequired, approvalMessage(interrupts, taskId, contextId, "That was not a decision.")) });
        return;
      }
      // The task resumes: its stream (and whoever follows the task) opens with it `working`, not
      // with the pause this message answered, which a client would take for the task's new state.
      publish({ kind: "task", data: { ...task, status: { state: TASK_STATE.working, message: undefined, timestamp: new Date().toISOString() } } });
      resuming = { interrupts };
      events = this.executor.resume(taskId, { decisions, ...traced });
      this.contexts.set(taskId, contextId);
    }
    let resolveDone!: () => void;
    const followed = new Promise<void>((resolve) => (resolveDone = resolve));
    await new Promise<void>((resolve) => {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        this.active.delete(taskId);
        resolve();
        resolveDone();
      };
      let started = false;
      let joined = false;
      // A cancel that came while a resumed run was being claimed: the run is stopped when it
      // starts (unsubscribing earlier would give the claim back, leaving the run paused).
      let cancelled = false;
      let interrupts: Interrupt[] = [];
      const answer = new TextBatcher((chunk, first) => publish({ kind: "artifactUpdate", data: { taskId, contextId, artifact: artifact(ANSWER_ARTIFACT, [textPart(chunk)]), append: !first, lastChunk: false, metadata: undefined } }));
      /** A cancelled run that ended before it started: its record is cancelled, then the task's execution is over. */
      const cancelUnstarted = () => {
        this.cancelRecorded(taskId).then(finish, (error: unknown) => {
          this.report(new Error(`Task ${taskId} was cancelled while its run was being resumed, and the run's record could not then be cancelled (${errorText(error)}): the run is still paused.`, { cause: error }));
          finish();
        });
      };
      const subscription = events.subscribe({
        next: (event) => {
          if (cancelled) {
            if (event.type === "start") stop();
            return;
          }
          if (event.subRun !== undefined) return;
          if (busy !== undefined && !started && !joined && event.type !== "start") {
            // A new task whose run does not start, while a run of its context was going on: the
            // task joined that run (the executor's `followUp: "interrupt"`), whose events these are.
            joined = true;
            publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.working, undefined, { agentrx: { runId: busy, joined: true } }) });
          }
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
            case "message":
              // A message sent to the run (steering) joined it.
              publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.working, undefined, { agentrx: { event: "message", message: event.message.text, ...(event.inboxSeq === undefined ? {} : { inboxSeq: event.inboxSeq }) } }) });
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
          if (cancelled) return cancelUnstarted();
          answer.flush();
          if (resuming !== undefined && !started && InvalidArgumentError.isInstance(error)) {
            const refused = resuming.interrupts;
            // The run refused the decisions before it resumed. When its record is cancelled, the
            // task was cancelled while this message was on its way: it stays cancelled. Otherwise
            // (an unknown interrupt, an edit its tool's schema rejects) it still waits, so the
            // task does too, saying why.
            void this.recordedStatus(taskId).then((status) => {
              if (status === "cancelled") publish({ kind: "statusUpdate", data: cancelledStatus(taskId, contextId) });
              else publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, TASK_STATE.inputRequired, approvalMessage(refused, taskId, contextId, error.message)) });
              finish();
            });
            return;
          }
          this.contexts.delete(taskId);
          if (isRunCancellation(error)) {
            // Cancelled from another process (`cancelRun`, `agentrx ui`'s Cancel): the task is canceled, not failed.
            publish({ kind: "statusUpdate", data: cancelledStatus(taskId, contextId) });
            finish();
            return;
          }
          publish({ kind: "statusUpdate", data: failedStatus(taskId, contextId, error) });
          finish();
        },
        complete: () => {
          if (cancelled) return cancelUnstarted();
          answer.flush();
          finish();
        },
      });
      // (A resumed run starts once its record is claimed, never while `subscribe` runs: `stop`
      // below is never called before `subscription` is set.)
      const stop = () => {
        subscription.unsubscribe();
        answer.discard();
        finish();
      };
      const cancel = () => {
        if (resuming === undefined || started) return stop();
        cancelled = true;
        answer.discard();
      };
      if (!done) this.active.set(taskId, { contextId, stop: cancel, done: followed });
    });
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const run = this.active.get(taskId);
    const contextId = run?.contextId ?? this.contexts.get(taskId) ?? "";
    // Unsubscribing cancels the run: its model call and tools see their signal fire. A run this
    // process does not follow (paused for approval) is cancelled in the store: when that fails,
    // so does the cancel, and the task stays as it is.
    // A resumed run whose record is still being claimed is stopped as soon as it starts (see
    // `execute`), and its record ends `cancelled` either way.
    if (run !== undefined) run.stop();
    else await this.cancelRun(taskId);
    this.contexts.delete(taskId);
    bus.publish({ kind: "statusUpdate", data: cancelledStatus(taskId, contextId) });
  };

  /**
   * Cancels the recorded run of task `taskId` when no subscription of this process follows it (it
   * is paused for approval, or runs in another process), in the store the executor resumes runs
   * from: it becomes `cancelled`, so no later answer resumes it. Nothing to do for a run this
   * process follows (unsubscribing cancels it), for an executor that records nowhere, or for a run
   * that has ended. Rejects, naming the task, when the store fails or refuses (a run another
   * process holds and the store cannot cancel from here).
   */
  cancelRun = async (taskId: string): Promise<void> => {
    if (this.active.has(taskId)) return;
    try {
      await this.cancelRecorded(taskId);
    } catch (error) {
      throw new Error(`Task ${taskId} was not cancelled: its run could not be cancelled (${errorText(error)}).`, { cause: error });
    }
  };

  /** Cancels the recorded run of task `taskId` in the executor's store (nothing without one); rejects with the store's error. */
  private async cancelRecorded(taskId: string): Promise<void> {
    const store = this.recordStore(taskId);
    if (store !== undefined) await cancelRecordedRun(store, taskId, `Its A2A task ${taskId} was cancelled.`);
  }

  /** The store the executor resumes task `taskId`'s run from, if it records anywhere. */
  private recordStore(taskId: string): RunStore | undefined {
    return runDisplaySource(this.executor.resume(taskId))?.store;
  }

  /**
   * The run of context `contextId` (the runs' thread) going on in the executor's store, other than
   * task `taskId`'s, as the executor's `followUp` finds it (`running` under a lease that has not
   * expired); undefined when there is none, no store, or the store cannot be read (the run, which
   * reads the same store, then reports the store's failure).
   */
  private async runningRunOf(contextId: string, taskId: string): Promise<string | undefined> {
    const store = this.recordStore(taskId);
    if (store === undefined) return undefined;
    try {
      const now = Date.now();
      const runs = await store.listRuns({ threadId: contextId, status: "running" });
      return runs.find((run) => run.runId !== taskId && (run.leaseExpiresAt === undefined || run.leaseExpiresAt > now))?.runId;
    } catch {
      return undefined;
    }
  }

  /** The status of task `taskId`'s recorded run; undefined when it is not recorded or cannot be read. */
  private async recordedStatus(taskId: string): Promise<RunStatus | undefined> {
    try {
      return (await this.recordStore(taskId)?.getRun(taskId))?.status;
    } catch {
      return undefined; // unreadable: the refusal is reported as the run gave it
    }
  }

  /**
   * Sends `received`, a message on task `taskId` whose run is going on, to the run as a steering
   * message (`executor.send`, see docs/steering.md): it joins the run at its next turn boundary,
   * its text as text, or, when it has files (`raw` parts), as a `HumanMessage` of content blocks
   * ({@link partsContent}). Rejects with a {@link SteeringRefused} when it cannot: the message has
   * no text and no file, or carries a decision (a data part with `decisions` or `decision`: it
   * answered a pause that is over), the run has finished (the task is about to complete), or the
   * run cannot be reached from this process (no store shared with the process that runs it); with
   * the store's error when the store fails. A message with more text than `maxMessageChars` is
   * `malformed`; one that finds the run's inbox full (`SteeringInboxFullError`) is `busy`.
   */
  steer = async (taskId: string, received: Message, state: number | undefined): Promise<void> => {
    const data = dataOf(received.parts);
    if (data !== undefined && (data["decisions"] !== undefined || data["decision"] !== undefined)) {
      // A decision for a pause that is over (another answer resumed the run first): not something
      // the run's model should read as the user's words.
      throw new SteeringRefused("unsupported", `Task ${taskId} is ${stateName(state)}: it is not waiting for a decision (another answer may have resumed its run), so this message's decision was not taken. A decision answers a task that is input-required.`);
    }
    const content = partsContent(received.parts);
    if (content.length === 0) throw new SteeringRefused("malformed", `Task ${taskId} is ${stateName(state)}: a message to it is sent to its run (steering), and this one has no text and no file.`);
    // Text alone goes as text; with files, as a HumanMessage of content blocks the model sees.
    const steering = content.length === 1 && content[0]?.type === "text" ? (content[0] as { text: string }).text : new HumanMessage({ content });
    try {
      await this.executor.send(taskId, steering);
    } catch (error) {
      if (RunFinishedError.isInstance(error)) {
        throw new SteeringRefused("unsupported", `Task ${taskId} is ending: its run finished before the message could join it. Send the message without a taskId (a new task, in the same context).`, { cause: error });
      }
      if (SteeringInboxFullError.isInstance(error)) {
        throw new SteeringRefused(
          "busy",
          `Task ${taskId} is ${stateName(state)}: ${error.pending} messages sent to its run wait to join it, the most it holds (maxPendingMessages ${error.limit}). Nothing was sent: send the message again once the run has taken them (at its next turn).`,
          { cause: error },
        );
      }
      if (InvalidArgumentError.isInstance(error) && error.argument === "message") {
        // Too long (`maxMessageChars`): the message's fault, as a blank one is.
        throw new SteeringRefused("malformed", `Task ${taskId} is ${stateName(state)}: ${error.message.replace(/^AgentExecutor\.send: /, "")}`, { cause: error });
      }
      if (RunNotFoundError.isInstance(error) || (InvalidArgumentError.isInstance(error) && error.argument === "store")) {
        throw new SteeringRefused("unsupported", `Task ${taskId} is ${stateName(state)}, but its run cannot be reached from this process to take the message: ${errorText(error)}`, { cause: error });
      }
      throw error;
    }
  };

  /**
   * A message on a task whose run is going on, come through the SDK's `execute` (a
   * `DefaultRequestHandler` of the user's own; `createA2AHandler` sends it to the run before the SDK
   * sees it): it is sent to the run. The request shares the run's event bus when this process runs
   * it: then nothing but a status update may go on it (the run's stream has had its task), and the
   * request follows the run to its end, since the SDK closes a bus whose `execute` returns while
   * the task is working. Otherwise the request gets the task and a status update saying what
   * became of the message.
   */
  private async steerFromExecute(task: Task, received: Message, publish: (event: AgentExecutionEvent) => void): Promise<void> {
    const { id: taskId, contextId } = task;
    const state = task.status?.state ?? TASK_STATE.working;
    const refusal = await this.steer(taskId, received, state).then(
      () => undefined,
      (error: unknown) => error,
    );
    const note = refusal === undefined ? undefined : message(ROLE_AGENT, [textPart(`The message was not sent to the run: ${errorText(refusal)}`)], { taskId, contextId });
    const running = this.active.get(taskId);
    if (running !== undefined) {
      if (note !== undefined) publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, state, note) });
      await running.done;
      return;
    }
    publish({ kind: "task", data: task });
    const sent = message(ROLE_AGENT, [textPart("The message was sent to the task's run: it joins the run at its next turn.")], { taskId, contextId });
    publish({ kind: "statusUpdate", data: statusUpdate(taskId, contextId, state, note ?? sent) });
  }
}

/** A task state's name, for messages. */
function stateName(state: number | undefined): string {
  return state === TASK_STATE.submitted ? "submitted" : "working";
}

/** The `failed` status update of a task whose run failed, or whose message was refused: `Name: message` of the error. */
function failedStatus(taskId: string, contextId: string, error: unknown) {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : errorText(error); // a thrown object's `message` too
  return statusUpdate(taskId, contextId, TASK_STATE.failed, message(ROLE_AGENT, [textPart(text)], { taskId, contextId }));
}

/** The `canceled` status update of a cancelled task. */
function cancelledStatus(taskId: string, contextId: string) {
  return statusUpdate(taskId, contextId, TASK_STATE.canceled, message(ROLE_AGENT, [textPart("The task was cancelled.")], { taskId, contextId }));
}

/** A new task, `submitted`; its metadata names its run when it is known (`runId`: not when the task may join a run going on). */
function newTask(taskId: string, contextId: string, received: Message, runId: string | undefined): Task {
  return {
    id: taskId,
    contextId,
    status: { state: TASK_STATE.submitted, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [received],
    metadata: { agentrx: runId === undefined ? {} : { runId } },
  };
}
