import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { type AgentStreamEvent, type Interrupt, type OutputEvent, type RunUsage, addUsage, checkRunEventStream } from "@agentrx/executors";
import type { UsageMetadata } from "@langchain/core/messages";
import { Observable } from "rxjs";
import { clientErrorText, errorText } from "../internal/error-text";
import { followEvents } from "../internal/follow-events";
import { isRunCancellation } from "../internal/run-cancellation";
import { ResumedTurn } from "../internal/resumed-turn";
import { ToolCallIds } from "../internal/tool-call-ids";
import type { AGUIEvent, AGUIInterrupt, AGUIRunState, AGUITokenUsage, BaseEvent } from "./ag-ui-event";

/**
 * The ids of {@link toAGUIEvents}: the AG-UI thread and run the events belong to.
 *
 * @example
 * ```ts
 * import type { ToAGUIEventsOptions } from "@agentrx/serve";
 *
 * const options: ToAGUIEventsOptions = { threadId: "thread-1", runId: "run-1", onError: () => "The agent failed." };
 * ```
 */
export interface ToAGUIEventsOptions {
  /** The AG-UI thread (`RunAgentInput.threadId`). */
  threadId: string;
  /** The AG-UI run (`RunAgentInput.runId`); a resumed executor run keeps its own id, reported in the state. */
  runId: string;
  /**
   * The text of `RUN_ERROR` for an error of the run, and of the `TOOL_CALL_RESULT` of each call it
   * cut off; what it returns reaches the client. @default the error's message (a thrown object's
   * `message` too)
   */
  onError?: (error: unknown) => string;
}

const OPTION_KEYS = Object.keys({ threadId: true, runId: true, onError: true } satisfies Record<keyof ToAGUIEventsOptions, true>);

/**
 * A run's events as AG-UI events (the `@ag-ui/core` event types, as plain objects): `RUN_STARTED`;
 * a `STEP_STARTED`/`STEP_FINISHED` pair per agent call (`stepName: "iteration <n>"`); the streamed
 * tokens as `TEXT_MESSAGE_START`/`CONTENT`/`END`; each tool call as `TOOL_CALL_START`/`ARGS`/`END`
 * and its observation as `TOOL_CALL_RESULT`; a pause for approval as a `STATE_SNAPSHOT`
 * (`{ agentrx: { runId, status: "interrupted", interrupts } }`) and `RUN_FINISHED` with an
 * `interrupt` outcome; the end as `RUN_FINISHED` (`result`: the final answer, `usage`), as
 * `RUN_FINISHED` with a `cancelled` outcome when the run was cancelled (an `AbortError`), or
 * `RUN_ERROR` when the run fails. A call the run stopped before it finished (a limit, a budget, a
 * cancel) gets a `TOOL_CALL_RESULT` saying so, and one it failed in a result with `onError`'s text,
 * since a call left without one is the client's to answer; a
 * step without an action (a handled parsing error) is shown as a call first. The final answer is
 * sent as text when the model did not stream it (a `returnDirect` tool's result, an early stop's
 * output). A sub-run's events (`subRun`) are left out but for its usage; an interrupt of another
 * agent's call a paused handoff waits on (`Interrupt.subRun`) carries the handoff's `toolCallId`
 * and, in the state and its `metadata`, `subRun` (docs/serving.md). An option it does not
 * take (a misspelt `threadID`) throws an `InvalidArgumentError` naming it, and so does an
 * `events$` that is not an Observable (the executor, a Promise, an array); a value of `events$`
 * that is not a run event (the result an `executor.invoke(...)` observable emits) errors the
 * observable with one instead of being left out: pass `executor.stream(...)`.
 *
 * @example
 * ```ts
 * import { toAGUIEvents } from "@agentrx/serve";
 * import type { AgentExecutor } from "@agentrx/executors";
 * declare const executor: AgentExecutor;
 *
 * toAGUIEvents(executor.stream({ input: "Weather in Paris?" }), { threadId: "t1", runId: "r1" }).subscribe((event) => console.log(event.type));
 * ```
 */
export function toAGUIEvents(events$: Observable<AgentStreamEvent>, options: ToAGUIEventsOptions): Observable<BaseEvent> {
  checkRunEventStream("toAGUIEvents", "events$", events$);
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({ argument: "options", value: options, message: "toAGUIEvents: pass { threadId, runId } (the RunAgentInput's ids)." });
  }
  checkOptionKeys("toAGUIEvents", options, OPTION_KEYS);
  const { threadId, runId, onError = errorText } = options;
  // Every event carries them, and AG-UI clients match events to their run by them.
  for (const [name, value] of [["threadId", threadId], ["runId", runId]] as const) {
    if (typeof value !== "string" || value === "") {
      throw new InvalidArgumentError({ argument: name, value, message: `toAGUIEvents: \`${name}\` must be a non-empty string (the RunAgentInput's), got ${value === undefined ? "undefined" : JSON.stringify(value)}.` });
    }
  }
  if (typeof onError !== "function") throw new InvalidArgumentError({ argument: "onError", value: onError, message: "toAGUIEvents: `onError` must be a function (error) => string." });
  return new Observable<AGUIEvent>((subscriber) => {
    const emit = (event: AGUIEvent) => subscriber.next({ ...event, timestamp: Date.now() });
    const ids = new ToolCallIds();
    let started = false;
    const resumedTurn = new ResumedTurn();
    let executorRunId = runId;
    // A resumed run: its AG-UI run reports the model calls it made itself (the events'), not the
    // whole run's `output.usage`, which counts the interrupted AG-UI run's calls again.
    let resumed = false;
    let step: number | undefined;
    let text: string | undefined;
    let textCount = 0;
    // Whether the model's text came after the step's tool calls: then it is the answer, else the
    // run's output (a returnDirect tool's, an early stop's) still has to be sent as text.
    let answerStreamed = false;
    const openCalls = new Set<string>();
    let usage: RunUsage | undefined;
    let interrupts: Interrupt[] = [];
    // The client's id of each of the run's calls, by `<iteration>:<index>`, and of the call that
    // started each sub-run, by the sub-run's id: a handoff that paused on the other agent's calls
    // (`Interrupt.subRun`) is the call the client has for them.
    const callIds = new Map<string, string>();
    const subRunCalls = new Map<string, string>();
    let output: OutputEvent | undefined;

    const start = () => {
      if (started) return;
      started = true;
      emit({ type: "RUN_STARTED", threadId, runId });
    };
    const endText = () => {
      if (text !== undefined) emit({ type: "TEXT_MESSAGE_END", messageId: text });
      text = undefined;
    };
    const endStep = () => {
      endText();
      if (step !== undefined) emit({ type: "STEP_FINISHED", stepName: `iteration ${step}` });
      step = undefined;
    };
    const startStep = (iteration: number) => {
      start();
      if (step === iteration) return;
      endStep();
      step = iteration;
      answerStreamed = false;
      emit({ type: "STEP_STARTED", stepName: `iteration ${iteration}` });
    };
    const sendText = (delta: string) => {
      if (text === undefined) {
        text = `${runId}-text-${++textCount}`;
        emit({ type: "TEXT_MESSAGE_START", messageId: text, role: "assistant" });
      }
      answerStreamed = true;
      emit({ type: "TEXT_MESSAGE_CONTENT", messageId: text, delta });
    };
    const toolCall = (toolCallId: string, toolCallName: string, input: unknown) => {
      endText();
      answerStreamed = false;
      openCalls.add(toolCallId);
      emit({ type: "TOOL_CALL_START", toolCallId, toolCallName });
      emit({ type: "TOOL_CALL_ARGS", toolCallId, delta: JSON.stringify(input ?? {}) });
      emit({ type: "TOOL_CALL_END", toolCallId });
    };
    // `kind` names the result message: a call cut off by a cancel or a failure has a result of its
    // own (`-unfinished`), as a run resumed from its record may still answer it (`-result`).
    const toolResult = (toolCallId: string, content: unknown, kind = "result") => {
      endText();
      answerStreamed = false;
      openCalls.delete(toolCallId);
      emit({ type: "TOOL_CALL_RESULT", messageId: `${toolCallId}-${kind}`, toolCallId, content: typeof content === "string" ? content : JSON.stringify(content), role: "tool" });
    };

    const next = (event: AgentStreamEvent) => {
      if (event.subRun !== undefined) {
        // A sub-run's model calls are the run's too (its output's usage counts them).
        if (event.type === "usage") usage = addUsage(usage, event.usage);
        const caller = event.subRunCallIds?.[0];
        if (event.type === "start" && event.subRun.length === 1 && caller !== undefined) subRunCalls.set(event.runId, /^\d+:\d+$/.test(caller) ? `call-${caller.replace(":", "-")}` : caller);
        return;
      }
      switch (event.type) {
        case "start":
          if (!started) {
            executorRunId = event.runId;
            // A text agent's calls are named by their place in the run, which repeats in every run
            // of the thread: the run's id makes them the thread's (a resumed run keeps its id, so
            // its calls keep theirs).
            ids.prefix = `${event.runId}-`;
            resumedTurn.started(event.resumed);
            resumed = event.resumed;
          }
          start();
          return;
        case "token":
          resumedTurn.saw(event.type, event.iteration);
          startStep(event.iteration);
          if (event.text !== "") sendText(event.text);
          return;
        case "action":
          resumedTurn.saw(event.type, event.iteration);
          startStep(event.iteration);
          {
            const toolCallId = ids.ofAction(event.iteration, event.action, event.index);
            if (event.index !== undefined) callIds.set(`${event.iteration}:${event.index}`, toolCallId);
            toolCall(toolCallId, event.action.tool, event.action.toolInput);
          }
          return;
        case "step": {
          resumedTurn.saw(event.type, event.iteration);
          startStep(event.iteration);
          const toolCallId = ids.ofStep(event.iteration, event.step.action, event.index);
          // A step without an action event (a handled parsing error) is shown as a call first; a
          // resumed run's answers go to calls the client got from the paused run.
          if (!openCalls.has(toolCallId) && !resumedTurn.answersShownCall(event.iteration)) toolCall(toolCallId, event.step.action.tool, event.step.action.toolInput);
          toolResult(toolCallId, event.step.observation);
          return;
        }
        case "usage":
          resumedTurn.saw(event.type, event.iteration);
          usage = addUsage(usage, event.usage);
          return;
        case "interrupt":
          endText();
          interrupts = event.interrupts.map((interrupt) => {
            // A call without the model's id: the interrupt names the call as the client has it.
            if (interrupt.subRun === undefined) return interrupt.toolCallId === undefined ? { ...interrupt, toolCallId: callIds.get(`${interrupt.iteration}:${interrupt.index}`) ?? ids.ofPlace(interrupt.iteration, interrupt.index) } : interrupt;
            // The other agent's call is none of the client's: its interrupt names the handoff's call.
            const { toolCallId: _theirs, ...nested } = interrupt;
            const toolCallId = callIds.get(`${interrupt.iteration}:${interrupt.index}`) ?? subRunCalls.get(interrupt.subRun.runId);
            return toolCallId === undefined ? nested : { ...nested, toolCallId };
          });
          emit({ type: "STATE_SNAPSHOT", snapshot: stateOf(executorRunId, interrupts) });
          return;
        case "output":
          output = event;
          if (event.stopReason !== "interrupted") {
            // Calls the run stopped before they finished get a result: a call left without one is,
            // to an AG-UI client, a call it must answer itself.
            for (const toolCallId of [...openCalls]) toolResult(toolCallId, `The run stopped (${event.stopReason}) before this call finished.`);
            if (!answerStreamed && event.output !== "") {
              start();
              sendText(event.output);
            }
          }
          endStep();
          return;
      }
    };

    return followEvents(events$, subscriber, { caller: "toAGUIEvents", argument: "events$" }, {
      next,
      error: (error) => {
        start();
        const cancelled = isRunCancellation(error);
        const message = cancelled ? "The run was cancelled before this call finished." : clientErrorText(onError, error);
        // Calls the run was cancelled or failed in get a result too, as a stopped run's do: a call left
        // without one is, to an AG-UI client, a call it must answer itself.
        for (const toolCallId of [...openCalls]) toolResult(toolCallId, message, "unfinished");
        endStep();
        if (cancelled) {
          // Cancelled (its AbortSignal, or cancelRun from anywhere): stopped, not failed.
          emit({ type: "RUN_FINISHED", threadId, runId, outcome: { type: "cancelled" }, ...(usage ? { usage: [tokenUsage(usage)] } : {}) });
          return;
        }
        emit({ type: "RUN_ERROR", message, ...(codeOf(error) ? { code: codeOf(error) } : {}) });
      },
      complete: () => {
        start();
        endStep();
        const total = resumed ? usage : (output?.usage ?? usage);
        const paused = output?.stopReason === "interrupted" && interrupts.length > 0;
        emit({
          type: "RUN_FINISHED",
          threadId,
          runId,
          ...(output && !paused ? { result: output.output } : {}),
          outcome: paused ? { type: "interrupt", interrupts: interrupts.map(agUiInterrupt) } : { type: "success" },
          ...(total ? { usage: [tokenUsage(total)] } : {}),
        });
      },
    });
  });
}

function stateOf(runId: string, interrupts: Interrupt[]): AGUIRunState {
  return {
    agentrx: {
      runId,
      status: "interrupted",
      interrupts: interrupts.map(({ id, tool, toolInput, toolCallId, subRun }) => ({ id, tool, toolInput, ...(toolCallId === undefined ? {} : { toolCallId }), ...(subRun === undefined ? {} : { subRun }) })),
    },
  };
}

function agUiInterrupt(interrupt: Interrupt): AGUIInterrupt {
  const reason = (interrupt as { reason?: unknown }).reason;
  return {
    id: interrupt.id,
    reason: typeof reason === "string" ? reason : "approval",
    message: interruptMessage(interrupt, reason),
    ...(interrupt.toolCallId === undefined ? {} : { toolCallId: interrupt.toolCallId }),
    metadata: { tool: interrupt.tool, toolInput: interrupt.toolInput, ...(interrupt.subRun === undefined ? {} : { subRun: interrupt.subRun }) },
  };
}

/** What a person is asked: to approve a call, or, for a call in doubt (it may have run), what to do with it. */
function interruptMessage(interrupt: Interrupt, reason: unknown): string {
  const call = `${interrupt.tool} with ${JSON.stringify(interrupt.toolInput)}`;
  if (reason !== "in_doubt") return `Approve the call of ${call}?`;
  return `The call of ${call} started, but its result was not recorded: it may have run. Approve to run it again, reject it, or give its result ({ type: "result", observation }).`;
}

function tokenUsage(usage: UsageMetadata): AGUITokenUsage {
  const cached = usage.input_token_details?.cache_read;
  const written = usage.input_token_details?.cache_creation;
  const reasoning = usage.output_token_details?.reasoning;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    totalTokens: usage.total_tokens,
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(written === undefined ? {} : { cacheWriteInputTokens: written }),
  };
}

function codeOf(error: unknown): string | undefined {
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === "string" && name !== "Error" ? name : undefined;
}
