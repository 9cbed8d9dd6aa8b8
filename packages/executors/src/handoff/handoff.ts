import { AbortError, type AgentStep, InvalidArgumentError, checkOptionKeys, getStepMetadata, refusePromise } from "@agentrx/core";
import { formatToToolMessages } from "@agentrx/agents";
import { type BaseMessage, HumanMessage, isBaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import type { AgentExecutor } from "../executor/agent-executor";
import { type SubRunAnswer, callSubRun } from "../executor/call-sub-run";
import type { StopReason } from "../executor/events";
import { checkMaxDepth, withSubRunExecutor } from "../executor/executor-tool";
import { DEFAULT_MAX_SUB_RUN_DEPTH, subRunSinkOf } from "../executor/sub-run";
import { HandoffFailedError } from "./handoff-failed-error";
import { SubRunDepthError } from "./sub-run-depth-error";
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
   * redact...), returned synchronously: anything but an object (a Promise from an `async` filter
   * included) fails the handoff call with an `InvalidArgumentError` naming `inputFilter`.
   * @default the caller's inputs with the conversation (`messages`) as `chat_history`, and as
   *   `input` the model's `request`, or the caller's input again when it gave none
   */
  inputFilter?: (conversation: HandoffConversation) => Record<string, unknown>;
  /**
   * How deeply nested the other agent's sub-run may be: a handoff that would start it deeper than
   * this (counting every `handoff` and `asTool` sub-run from the top run, whose own tools start
   * depth 1) fails with a `SubRunDepthError` naming the depth and the path of tool names, and the
   * calling model reads it (the handoff does not end the run with it). It stops agents that hand
   * off to each other in a loop. A whole number of at least 1.
   * @default 10
   */
  maxDepth?: number;
}

/** The other agent's stop reasons that say it stopped at a limit of its own, without an answer of its choosing. */
const LIMIT_STOPS: ReadonlySet<StopReason> = new Set<StopReason>(["max_iterations", "max_execution_time", "budget"]);

const SCHEMA = z.object({
  request: z.string().optional().describe("What the other agent should do, if it is not plain from the conversation."),
});

/**
 * A tool that hands the conversation over to another agent (`executor`): the other agent gets the
 * calling run's conversation (through `inputFilter`), its events reach the calling run's
 * subscribers as a sub-run (`subRun: [name]`, as `asTool` does), and its answer is the calling
 * run's answer (the tool returns directly: a handoff that is the only call of its turn ends the
 * run, `stopReason: "return_direct"`). When the other agent does not answer (its run fails, it
 * stops at a limit of its own), the call fails with a {@link HandoffFailedError} instead (a
 * sub-run nested deeper than `maxDepth` is not started: `SubRunDepthError`), its step marked
 * `failed` and `handoffFailed`: its observation goes back to the calling model, which can answer
 * or try another route. The sub-run is recorded in the calling run's record; when the
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
  checkOptionKeys("handoff", options, ["name", "description", "inputFilter", "maxDepth"] satisfies (keyof HandoffOptions)[]);
  const { name, description, inputFilter, maxDepth = DEFAULT_MAX_SUB_RUN_DEPTH } = (options ?? {}) as HandoffOptions;
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
  checkMaxDepth("handoff", maxDepth);
  const handoffTool = tool(
    async ({ request }: { request?: string | undefined }, config?: RunnableConfig) => {
      const sink = subRunSinkOf(config);
      const conversation = conversationOf(sink?.conversation?.(), request);
      const inputs: unknown = inputFilter ? inputFilter(conversation) : defaultInputs(conversation);
      // A promise (an async filter) is refused as the executor's other synchronous hooks' are.
      const promise = refusePromise(inputs);
      if (promise || typeof inputs !== "object" || inputs === null || Array.isArray(inputs)) {
        const got = promise ? "a Promise" : Array.isArray(inputs) ? "an array" : typeof inputs;
        throw new InvalidArgumentError({ argument: "inputFilter", value: inputs, message: `handoff "${name}": \`inputFilter\` must return the other agent's inputs as an object (synchronously), got ${got}.` });
      }
      let answer: SubRunAnswer;
      try {
        answer = await callSubRun(executor, inputs as Record<string, unknown>, config, { tool: name, label: `handoff "${name}"`, runIdPrefix: "handoff", maxDepth });
      } catch (error) {
        // A pause is not a failure (it pauses a recorded caller), nor is a cancellation.
        if (SubRunInterruptedError.isInstance(error) || AbortError.isInstance(error) || config?.signal?.aborted) throw error;
        // Too deep: never started, its error says why and what to do.
        throw failed(config, SubRunDepthError.isInstance(error) ? error : new HandoffFailedError({ tool: name, cause: error }));
      }
      const { output, stopReason } = answer;
      if (stopReason !== undefined && LIMIT_STOPS.has(stopReason)) throw failed(config, new HandoffFailedError({ tool: name, stopped: { stopReason, output } }));
      return output;
    },
    { name, description, schema: SCHEMA },
  ) as unknown as StructuredToolInterface & { returnDirect: boolean };
  handoffTool.returnDirect = true;
  return withSubRunExecutor(handoffTool, executor);
}

/**
 * `error`, once the call's step metadata says the handoff failed (`handoffFailed`): its turn does
 * not return directly, live or resumed (the flag is recorded with the step).
 */
function failed<E extends Error>(config: RunnableConfig | undefined, error: E): E {
  const metadata = getStepMetadata(config);
  if (metadata !== undefined) metadata.handoffFailed = true;
  return error;
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
