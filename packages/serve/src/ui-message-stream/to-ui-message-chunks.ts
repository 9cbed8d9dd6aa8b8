import { type AgentAction, checkOptionKeys, observationText } from "@agentrx/core";
import { type AgentStreamEvent, type Interrupt, type OutputEvent, type RunUsage, type StepEvent, type StopReason, type UsageEvent, addUsage, checkRunEventStream } from "@agentrx/executors";
import { Observable, type OperatorFunction } from "rxjs";
import { checkFunction, checkUsage } from "../internal/check-options";
import { ResumedTurn } from "../internal/resumed-turn";
import { SubRunAnswers } from "../internal/sub-run-answers";
import { clientErrorText, errorText } from "../internal/error-text";
import { type EventsSource, followEvents } from "../internal/follow-events";
import { isRunCancellation } from "../internal/run-cancellation";
import { ToolCallIds } from "../internal/tool-call-ids";
import type { AgentUIMessageMetadata, UIFinishReason, UIMessageChunk } from "./ui-message-chunk";

/**
 * Options of {@link toUIMessageChunks} and `toUIMessageStream`.
 *
 * @example
 * ```ts
 * import { toUIMessageChunks, type UIMessageStreamOptions } from "@agentrx/serve";
 *
 * const options: UIMessageStreamOptions = { onError: () => "Something went wrong." };
 * const toChunks = toUIMessageChunks(options);
 * ```
 */
export interface UIMessageStreamOptions {
  /**
   * The assistant message's id, sent on the `start` chunk. The run's id by default: the stream of
   * a run resumed after an approval and a reconnection's replay of its record (`followRecordedRun`)
   * then name the message the client shows already, which `useChat` updates instead of adding a
   * second one.
   * @default the run's id
   */
  messageId?: string;
  /**
   * The text of the `error` chunk for an error of the run. What it returns reaches the browser:
   * mask internals here.
   * @default the error's message
   */
  onError?: (error: unknown) => string;
  /**
   * The run's usage before this stream's first event: for the stream of `executor.resume`, the
   * usage of the segments before it (its record's, `(await store.getRun(runId))?.usage`), so the
   * `message-metadata` usage counts the whole run so far, not only the resumed part. It is kept
   * whole: its token details (cache reads and writes, reasoning tokens) and its `cost` are added
   * to the events', as the executor sums a run's usage. Leave it out for a stream that begins with
   * the run (`executor.stream`, `followRecordedRun`).
   * @default none: the stream's own usage events
   */
  earlierUsage?: RunUsage;
}

const OPTION_KEYS = Object.keys({ messageId: true, onError: true, earlierUsage: true } satisfies Record<keyof UIMessageStreamOptions, true>);

const FINISH_REASONS: Record<StopReason, UIFinishReason> = {
  finish: "stop",
  return_direct: "stop",
  interrupted: "tool-calls",
  max_iterations: "length",
  max_execution_time: "length",
  budget: "length",
  guardrail: "content-filter",
  repeated_call: "other",
};

/**
 * Maps a run's events to the AI SDK's UI message chunks: one assistant message per stream (its id
 * the run's, unless `messageId` says otherwise), a step (`start-step` … `finish-step`) per agent
 * call, the streamed tokens as text parts, each tool call as a dynamic tool part
 * (`tool-input-start`, one `tool-input-delta` with the whole input as JSON,
 * `tool-input-available`, then `tool-output-available`, `tool-output-denied` when a person
 * rejected the call, or, when the run fails or stops while it runs, `tool-output-error`), each
 * pending approval as `tool-approval-request` (its `approvalId` is the interrupt's id) when the
 * source ends with the run paused, and the run's id, thread and usage (`earlierUsage` plus the
 * events') as message metadata. An approval the same source answers (a replayed record of a run
 * that went on) is not asked, as no chunk can carry the answer: the approved call gets its output,
 * the rejected one a `tool-output-error` with the rejection. The final answer is sent as text when the model
 * did not stream it (a `returnDirect` tool's result, an early stop's output). A sub-run's events
 * (`subRun`) are left out but for its usage: the sub-run is its parent's tool call. Another
 * agent's call a paused handoff waits on (`Interrupt.subRun`) is a part of its own, named by its
 * interrupt id, in a step after the handoff's part; it gets the output the resumed sub-run gives it
 * (see docs/serving.md, "Answering a pause"). The message
 * finishes when the source completes (a replayed record with several segments is one message); an
 * error of the source becomes an `error` chunk, a cancelled run (an `AbortError`) an `abort`
 * chunk (what `useChat` takes as stopped, not failed), and the observable then completes. An
 * option it does not take (a misspelt `messageID`) throws an `InvalidArgumentError` naming it. A
 * value of the source that is not a run event (the result an `executor.invoke(...)` observable
 * emits) errors the observable with an `InvalidArgumentError` instead of being left out: pipe
 * `executor.stream(...)`.
 *
 * @example
 * ```ts
 * import { toUIMessageChunks } from "@agentrx/serve";
 * import type { AgentExecutor } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * executor.stream({ input: "Weather in Paris?" }).pipe(toUIMessageChunks()).subscribe((chunk) => console.log(chunk.type));
 * ```
 */
export function toUIMessageChunks(options: UIMessageStreamOptions = {}): OperatorFunction<AgentStreamEvent, UIMessageChunk> {
  return uiMessageChunks(options, { caller: "toUIMessageChunks", argument: "source" });
}

/**
 * {@link toUIMessageChunks}, its errors about the events naming `source` (the public function they
 * were given to and its parameter). @internal
 */
export function uiMessageChunks(options: UIMessageStreamOptions, source: EventsSource): OperatorFunction<AgentStreamEvent, UIMessageChunk> {
  checkOptionKeys("toUIMessageChunks", options, OPTION_KEYS);
  const { messageId, onError = errorText, earlierUsage } = options;
  checkFunction("toUIMessageChunks", "onError", onError, "(error) => string");
  if (earlierUsage !== undefined) checkUsage("toUIMessageChunks", "earlierUsage", earlierUsage);
  return (events$) => {
    checkRunEventStream(source.caller, source.argument, events$);
    return new Observable<UIMessageChunk>((subscriber) => {
      const emit = (chunk: UIMessageChunk) => subscriber.next(chunk);
      const ids = new ToolCallIds();
      const openTools = new Map<string, true>();
      let metadata: AgentUIMessageMetadata | undefined;
      const resumedTurn = new ResumedTurn();
      const subRunAnswers = new SubRunAnswers();
      let step: number | undefined;
      let stepOpen = false;
      let text: string | undefined;
      let textCount = 0;
      // Whether the model's text came after the step's tool calls: then it is the answer, else the
      // run's output (a returnDirect tool's, an early stop's) still has to be sent as text.
      let answerStreamed = false;
      let usage: RunUsage | undefined = earlierUsage === undefined ? undefined : addUsage(undefined, earlierUsage);
      let output: OutputEvent | undefined;

      const endText = () => {
        if (text !== undefined) emit({ type: "text-end", id: text });
        text = undefined;
      };
      const startStep = (iteration: number | undefined) => {
        if (stepOpen && (iteration === undefined || iteration === step)) return;
        if (stepOpen && iteration !== undefined && step !== undefined && iteration < step) return; // a late event of an earlier step
        endStep();
        step = iteration;
        stepOpen = true;
        answerStreamed = false;
        emit({ type: "start-step" });
      };
      const endStep = () => {
        endText();
        if (stepOpen) emit({ type: "finish-step" });
        stepOpen = false;
      };
      const sendText = (delta: string) => {
        if (text === undefined) {
          text = `text-${++textCount}`;
          emit({ type: "text-start", id: text });
        }
        answerStreamed = true;
        emit({ type: "text-delta", id: text, delta });
      };
      const toolInput = (toolCallId: string, toolName: string, input: unknown) => {
        endText();
        answerStreamed = false;
        openTools.set(toolCallId, true);
        emit({ type: "tool-input-start", toolCallId, toolName, dynamic: true });
        emit({ type: "tool-input-delta", toolCallId, inputTextDelta: JSON.stringify(input ?? {}) });
        emit({ type: "tool-input-available", toolCallId, toolName, input, dynamic: true });
      };
      const action = (iteration: number, value: AgentAction, index: number | undefined) => toolInput(ids.ofAction(iteration, value, index), value.tool, value.toolInput);
      // The approvals the run waits for, sent when the stream ends paused. A stream that goes on
      // (a replayed record of a run that was resumed) answers them instead: no chunk can carry the
      // person's answer (the part's `approval.approved`), and a part asked for approval and then
      // given an output without it is one the AI SDK's `validateUIMessages` refuses.
      const pendingApprovals = new Map<string, string>(); // toolCallId -> approvalId
      // A sub-run's call (a paused handoff's, `subRun`) is its own part, named by its interrupt id:
      // its tool call id is the other agent's, which may be one of this run's too.
      const approval = (interrupt: Interrupt) => {
        const toolCallId = interrupt.subRun === undefined ? (interrupt.toolCallId ?? interrupt.id) : interrupt.id;
        if (!openTools.has(toolCallId)) toolInput(toolCallId, interrupt.tool, interrupt.toolInput);
        pendingApprovals.set(toolCallId, interrupt.id);
      };
      const askApprovals = () => {
        for (const [toolCallId, approvalId] of pendingApprovals) emit({ type: "tool-approval-request", approvalId, toolCallId });
        pendingApprovals.clear();
      };

      // Calls still running when the run ends or fails: each gets an error, so no part stays open.
      const stopOpenTools = (errorText: string) => {
        endText();
        for (const toolCallId of openTools.keys()) emit({ type: "tool-output-error", toolCallId, errorText, dynamic: true });
        openTools.clear();
      };

      const answer = (toolCallId: string, event: StepEvent) => {
        openTools.delete(toolCallId);
        // Asked for approval in this stream, not sent yet: the call goes on as if never asked.
        const unasked = pendingApprovals.delete(toolCallId);
        // A rejection of an approval this stream never sent: the part has no answer for the
        // `output-denied` state to show (the AI SDK requires one), so it ends as an error.
        if (event.metadata?.rejected === true && unasked) emit({ type: "tool-output-error", toolCallId, errorText: observationText(event.step.observation), dynamic: true });
        else if (event.metadata?.rejected === true) emit({ type: "tool-output-denied", toolCallId });
        // A call that failed (its observation is the error the model was told): an error part.
        else if (event.metadata?.failed === true) emit({ type: "tool-output-error", toolCallId, errorText: observationText(event.step.observation), dynamic: true });
        else emit({ type: "tool-output-available", toolCallId, output: event.step.observation, dynamic: true });
      };

      const addToUsage = (event: UsageEvent) => {
        usage = addUsage(usage, event.usage);
        if (metadata !== undefined) emit({ type: "message-metadata", messageMetadata: { ...metadata, usage } });
      };

      const next = (event: AgentStreamEvent) => {
        if (event.subRun !== undefined) {
          // A sub-run's model calls are the run's too (its output's usage counts them).
          if (event.type === "usage") addToUsage(event);
          subRunAnswers.saw(event);
          return;
        }
        switch (event.type) {
          case "start":
            if (metadata === undefined) {
              resumedTurn.started(event.resumed);
              metadata = { runId: event.runId, ...(event.threadId === undefined ? {} : { threadId: event.threadId }) };
              emit({ type: "start", messageId: messageId ?? event.runId, messageMetadata: metadata });
            }
            return;
          case "token":
            resumedTurn.saw(event.type, event.iteration);
            startStep(event.iteration);
            if (event.text !== "") sendText(event.text);
            return;
          case "action":
            resumedTurn.saw(event.type, event.iteration);
            startStep(event.iteration);
            action(event.iteration, event.action, event.index);
            return;
          case "step": {
            resumedTurn.saw(event.type, event.iteration);
            const toolCallId = ids.ofStep(event.iteration, event.step.action, event.index);
            // The answer to a call shown in a step that ended (before a pause, or by the client for a
            // resumed run's first steps) goes to that call's part: no new (empty) step for it. A
            // step without an action event (a handled parsing error) is shown as a call first.
            const shown = resumedTurn.answersShownCall(event.iteration);
            if (stepOpen || !(shown || openTools.has(toolCallId))) startStep(event.iteration);
            if (!openTools.has(toolCallId) && !shown) toolInput(toolCallId, event.step.action.tool, event.step.action.toolInput);
            // A handoff that paused on the other agent's calls answered them first: their parts too.
            for (const [nestedId, nested] of subRunAnswers.answersOf([], event)) if (openTools.has(nestedId) || shown) answer(nestedId, nested);
            answer(toolCallId, event);
            answerStreamed = false;
            return;
          }
          case "usage":
            resumedTurn.saw(event.type, event.iteration);
            startStep(event.iteration);
            addToUsage(event);
            return;
          case "interrupt": {
            endText();
            for (const interrupt of event.interrupts) if (interrupt.subRun === undefined) approval(interrupt);
            const nested = event.interrupts.filter((interrupt) => interrupt.subRun !== undefined);
            if (nested.length > 0) {
              // A resumed run that pauses again in the turn it resumed: its handoffs answered some
              // of the calls the client shows, then waited on others.
              for (const interrupt of nested) {
                resumedTurn.saw("step", interrupt.iteration);
                for (const [nestedId, answered] of subRunAnswers.answersBeforePause(interrupt)) {
                  if (openTools.has(nestedId) || resumedTurn.answersShownCall(interrupt.iteration)) answer(nestedId, answered);
                }
              }
              // The other agent's calls in a step of their own: the handoff's part, waiting with no
              // output, stays in the step before, so useChat's `lastAssistantMessageIsCompleteWithApprovalResponses`
              // (which reads the last step) sends the answers once these are answered.
              endStep();
              stepOpen = true;
              emit({ type: "start-step" });
              for (const interrupt of nested) approval(interrupt);
            }
            return;
          }
          case "output":
            output = event;
            // Paused: the step stays open for the approvals, sent when the stream ends there.
            if (event.stopReason === "interrupted") return endText();
            pendingApprovals.clear();
            stopOpenTools(`The run stopped (${event.stopReason}) before this call finished.`);
            if (!answerStreamed && event.output !== "") {
              startStep(undefined);
              sendText(event.output);
            }
            endStep();
            return;
        }
      };

      return followEvents(events$, subscriber, source, {
        next,
        error: (error) => {
          pendingApprovals.clear(); // the calls end with the run's error instead
          if (isRunCancellation(error)) {
            // Cancelled (its AbortSignal, cancelRun from anywhere): stopped, not failed, as the AI
            // SDK's own streams end an aborted response.
            stopOpenTools("The run was cancelled before this call finished.");
            endStep();
            emit({ type: "abort" });
            return;
          }
          const message = clientErrorText(onError, error);
          stopOpenTools(message);
          endStep();
          emit({ type: "error", errorText: message });
        },
        complete: () => {
          askApprovals();
          endStep();
          const final: AgentUIMessageMetadata | undefined =
            metadata === undefined ? undefined : { ...metadata, ...(output?.usage ?? usage ? { usage: output?.usage ?? usage } : {}), ...(output ? { stopReason: output.stopReason } : {}) };
          emit({ type: "finish", finishReason: output ? FINISH_REASONS[output.stopReason] : "other", ...(final ? { messageMetadata: final } : {}) });
        },
      });
    });
  };
}
