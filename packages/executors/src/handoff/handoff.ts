import { type AgentStep, InvalidArgumentError, getIdempotencyKey, checkOptionKeys } from "@agentrx/core";
import { formatToToolMessages } from "@agentrx/agents";
import { type BaseMessage, HumanMessage, isBaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { type Observable, catchError, lastValueFrom, tap, throwError } from "rxjs";
import { z } from "zod";
import type { AgentExecutor } from "../executor/agent-executor";
import type { AgentStreamEvent, Decision, Interrupt } from "../executor/events";
import { childConfig } from "../executor/executor-tool";
import { SUB_RUN_DECISIONS_KEY, type SubRunModelCalls, subRunLink, subRunSinkOf } from "../executor/sub-run";
import { RunNotFoundError } from "../runs/run-store-errors";
import { SubRunInterruptedError } from "./sub-run-interrupted-error";

/** The conversation a handoff passes on, as `inputFilter` sees it. */
export interface HandoffConversation {
  /** The calling run's inputs (its `input`, its `chat_history`, ...). */
  inputs: Record<string, unknown>;
  /** The calling run's completed steps before the handoff (messages sent to it included). */
  steps: readonly AgentStep[];
  /** What the model asked the other agent to do, when it said (the tool's `request` argument). */
  request: string | undefined;
  /**
   * The conversation as messages: the calling run's `chat_history`, its input as a human message,
   * then its steps as the tool-calling agent's scratchpad shows them.
   */
  messages: BaseMessage[];
}

/** Options of {@link handoff}. */
export interface HandoffOptions {
  /** The tool's name, as the model calls it, e.g. `"transfer_to_billing"` (letters, digits, `_`, `-`). */
  name: string;
  /** When to hand off, for the model. */
  description: string;
  /**
   * The other agent's inputs, from the conversation so far (drop tool calls, keep the last turns,
   * redact...).
   * @default the caller's inputs with the conversation (`messages`) as `chat_history`, and as
   *   `input` the model's `request`, or the caller's input again when it gave none
   */
  inputFilter?: (conversation: HandoffConversation) => Record<string, unknown>;
}

const SCHEMA = z.object({
  request: z.string().optional().describe("What the other agent should do, if it is not plain from the conversation."),
});

/**
 * A tool that hands the conversation over to another agent (`executor`): the other agent gets the
 * calling run's conversation (through `inputFilter`), its events reach the calling run's
 * subscribers as a sub-run (`subRun: [name]`, as `asTool` does), and its answer is the calling
 * run's answer (the tool returns directly: a handoff that is the only call of its turn ends the
 * run, `stopReason: "return_direct"`). The sub-run is recorded in the calling run's record; when the
 * other executor has a store, the sub-run is recorded there too under an id derived from the tool
 * call's idempotency key, so a resumed caller resumes the same sub-run (or takes its recorded
 * answer) instead of starting it again. When the other agent pauses for approval, a recorded calling
 * run pauses too, listing the other agent's waiting calls (each `Interrupt` with `subRun`), and a
 * resume with decisions on them resumes the other agent's run with them; without a store on either
 * side, the call fails with a {@link SubRunInterruptedError}. See docs/agent-types.md.
 *
 * @example
 * ```ts
 * import { AgentExecutor, handoff } from "@agentrx/executors";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const billing = new AgentExecutor({
 *   agent: RunnableLambda.from((input: { input: string }) => ({ returnValues: { output: `Billing here: ${input.input}` }, log: "" })),
 *   tools: [],
 * });
 * const toBilling = handoff(billing, { name: "transfer_to_billing", description: "For invoices and refunds." });
 * console.log(toBilling.name, toBilling.returnDirect); // "transfer_to_billing" true
 * ```
 */
export function handoff(executor: AgentExecutor, options: HandoffOptions): StructuredToolInterface {
  checkOptionKeys("handoff", options, ["name", "description", "inputFilter"] satisfies (keyof HandoffOptions)[]);
  const { name, description, inputFilter } = (options ?? {}) as HandoffOptions;
  if (typeof (executor as { stream?: unknown } | null)?.stream !== "function") {
    throw new InvalidArgumentError({ argument: "executor", value: executor, message: "handoff: `executor` must be an AgentExecutor (the agent to hand the conversation to)." });
  }
  if (typeof name !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new InvalidArgumentError({ argument: "name", value: name, message: `handoff: \`name\` must be 1-64 letters, digits, "_" or "-", got ${JSON.stringify(name)}.` });
  }
  if (typeof description !== "string" || description.trim() === "") {
    throw new InvalidArgumentError({ argument: "description", value: description, message: "handoff: `description` must be a non-empty string: the model reads it to decide when to hand off." });
  }
  if (inputFilter !== undefined && typeof inputFilter !== "function") {
    throw new InvalidArgumentError({ argument: "inputFilter", value: inputFilter, message: "handoff: `inputFilter` must be a function (conversation) => inputs." });
  }
  const handoffTool = tool(
    async ({ request }: { request?: string | undefined }, config?: RunnableConfig) => {
      const sink = subRunSinkOf(config);
      const link = subRunLink(config, name);
      const conversation = conversationOf(sink?.conversation?.(), request);
      const inputs = inputFilter ? inputFilter(conversation) : defaultInputs(conversation);
      if (typeof inputs !== "object" || inputs === null || Array.isArray(inputs)) {
        throw new InvalidArgumentError({ argument: "inputFilter", value: inputs, message: `handoff "${name}": \`inputFilter\` must return the other agent's inputs as an object, got ${Array.isArray(inputs) ? "an array" : typeof inputs}.` });
      }
      let output: Extract<AgentStreamEvent, { type: "output" }> | undefined;
      const waitingOn: string[] = [];
      const interrupts: Interrupt[] = [];
      const run = subRun(name, executor, inputs, config, link.modelCalls);
      await lastValueFrom(
        run.events.pipe(
          tap((event) => {
            if (event.subRun === undefined && event.type === "output") output = event;
            if (event.subRun === undefined && event.type === "interrupt") {
              waitingOn.push(...event.interrupts.map((interrupt) => interrupt.tool));
              interrupts.push(...event.interrupts);
            }
            link.forward(event);
          }),
        ),
      );
      // A paused run has no answer: "" would end the calling run as if it had answered. A recorded
      // calling run pauses with it instead (when the sub-run can be resumed: `resumable`).
      if (output?.stopReason === "interrupted") throw new SubRunInterruptedError({ tool: name, runId: output.runId, waitingOn, interrupts, resumable: run.resumable() });
      return output?.output ?? "";
    },
    { name, description, schema: SCHEMA },
  ) as unknown as StructuredToolInterface & { returnDirect: boolean };
  handoffTool.returnDirect = true;
  return handoffTool;
}

/**
 * The other agent's run: with a tool-call key, its id is derived from it, and a recorded run of
 * that id (a resumed caller's retry) is resumed rather than started again, with the decisions a
 * person gave on its pause when the calling run passes some (`SUB_RUN_DECISIONS_KEY`).
 * `resumable` says, once the run ended, whether it is recorded where a retry finds it (the other
 * executor has a store, and the call a key).
 */
function subRun(
  name: string,
  executor: AgentExecutor,
  inputs: Record<string, unknown>,
  config: RunnableConfig | undefined,
  modelCalls: SubRunModelCalls | undefined,
): { events: Observable<AgentStreamEvent>; resumable: () => boolean } {
  const child = childConfig(config, modelCalls);
  const key = getIdempotencyKey(config);
  if (key === undefined) return { events: executor.stream(inputs, child), resumable: () => false };
  const runId = `handoff:${key}`;
  const decisions = subRunDecisionsOf(config);
  let recorded = true;
  const fresh = (): Observable<AgentStreamEvent> => executor.stream(inputs, { ...child, runId });
  const resumed = (decisions === undefined ? executor.resume(runId, child) : executor.resume(runId, { ...child, decisions })) as Observable<AgentStreamEvent>;
  const events = resumed.pipe(
    catchError((error: unknown) => {
      // Not recorded (first call; or recorded in another process's in-process store, when a pause's
      // decisions come to this one: it is asked again), or the executor records nowhere: start it.
      if (RunNotFoundError.isInstance(error)) return fresh();
      if (InvalidArgumentError.isInstance(error) && error.argument === "store") {
        recorded = false;
        return fresh();
      }
      if (decisions !== undefined && InvalidArgumentError.isInstance(error) && error.argument === "decisions") {
        // Not paused any more (its value is the run's status: decided with that agent's executor
        // meanwhile, say): it goes on without them, or gives its recorded answer.
        if (typeof error.value === "string") return executor.resume(runId, child) as Observable<AgentStreamEvent>;
        return throwError(() => refusedDecisions(name, runId, error));
      }
      return throwError(() => error);
    }),
  );
  return { events, resumable: () => recorded };
}

/** The decisions the calling run passes on for its sub-run's pause, by the sub-run's interrupt ids. */
function subRunDecisionsOf(config: RunnableConfig | undefined): Record<string, Decision> | undefined {
  const decisions = config?.configurable?.[SUB_RUN_DECISIONS_KEY] as Record<string, Decision> | undefined;
  return typeof decisions === "object" && decisions !== null ? decisions : undefined;
}

/** The other executor refused the decisions a person gave on its run's pause (an edit its tool's schema refuses, say). */
function refusedDecisions(name: string, runId: string, error: InvalidArgumentError): InvalidArgumentError {
  return new InvalidArgumentError({
    argument: "decisions",
    value: error.value,
    message: `handoff "${name}": the other agent's run "${runId}" refused the decisions given on its pause (${error.message.replace(/^AgentExecutor\.resume: /, "")}). Nothing of it ran; it is still paused: decide it with that agent's executor (resume("${runId}", { decisions })).`,
    cause: error,
  });
}

function conversationOf(given: { inputs: Record<string, unknown>; steps: readonly AgentStep[] } | undefined, request: string | undefined): HandoffConversation {
  const inputs = given?.inputs ?? {};
  const steps = given?.steps ?? [];
  const input = inputs["input"];
  const messages: BaseMessage[] = [...historyOf(inputs)];
  if (typeof input === "string" && input !== "") messages.push(new HumanMessage(input));
  messages.push(...formatToToolMessages(steps as AgentStep[]));
  return { inputs, steps, request: request === "" ? undefined : request, messages };
}

/**
 * The other agent's inputs by default: the caller's, with the whole conversation in `chat_history`
 * (so it starts with a human message, as every provider wants), and as `input` the model's
 * `request` or, without one, the caller's input again, for the other agent to answer. A caller
 * that handed off before any step would show that input twice in a row: its history is then the
 * conversation before it.
 */
function defaultInputs({ inputs, steps, request, messages }: HandoffConversation): Record<string, unknown> {
  const input = request ?? inputs["input"] ?? "";
  const repeated = request === undefined && steps.length === 0 && typeof inputs["input"] === "string" && inputs["input"] !== "";
  return { ...inputs, input, chat_history: repeated ? messages.slice(0, -1) : messages };
}

/** The messages of the caller's `chat_history` input, if it has one. */
function historyOf(inputs: Record<string, unknown>): BaseMessage[] {
  const history = inputs["chat_history"];
  return Array.isArray(history) ? history.filter((message: unknown): message is BaseMessage => isBaseMessage(message)) : [];
}
