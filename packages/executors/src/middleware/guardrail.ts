import { InvalidArgumentError, isAgentFinish, isMessageStep, observationText, checkOptionKeys, showValue, valueToText } from "@agentrx/core";
import { markHoldsAnswerTokens } from "./holds-answer-tokens";
import type { AgentAction, AgentOutput, AgentStep, Observation } from "@agentrx/core";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import { toOutputString } from "../executor/run-helpers";
import { finalAnswerCall } from "../executor/structured-output";
import type { AgentMiddleware } from "./agent-middleware";
import { badOption, isInvokable, replyText } from "./middleware-helpers";
import { stopRun } from "./stop-run";

/** What a guardrail checks. */
export interface GuardrailSubject {
  /** Where the guardrail sits. */
  on: "input" | "output" | "tool";
  /** For `on: "tool"`: `"call"` (the tool's input, before or while it runs) or `"result"` (its observation, before the model sees it). */
  phase?: "call" | "result";
  /**
   * The text to check: the input (`inputs.input`, else the inputs as JSON), a message sent to the
   * run, the final answer, a tool call's input as JSON, or its observation.
   */
  text: string;
  /** The run's inputs (`on: "input"`). */
  inputs?: Readonly<Record<string, unknown>>;
  /** `on: "input"`: true when `text` is a message sent to the run (`executor.send`), not its input. */
  sent?: true;
  /** The tool call (`on: "tool"`). */
  action?: AgentAction;
  /** The tool call's result (`on: "tool"`, `phase: "result"`). */
  observation?: Observation;
  /** Aborts when the run is cancelled or stopped (or, for a parallel check, when the guarded call failed). */
  signal: AbortSignal;
}

/**
 * A check's verdict: `true`, a reason (a non-empty string) or `{ tripped: true, reason? }` trips the
 * guardrail; `false`, `""`, `undefined` or `{ tripped: false }` lets the run go on. Anything else
 * fails the run (a `MiddlewareError` naming the guardrail): it is never read as a pass.
 */
export type GuardrailVerdict = boolean | string | undefined | null | void | { tripped: boolean; reason?: string };

/** A guardrail's check as a function. */
export type GuardrailCheck = (subject: GuardrailSubject) => GuardrailVerdict | Promise<GuardrailVerdict>;

/** A guardrail's check as a model call: the model reads `instructions` and the text, and answers `PASS` or `TRIP: reason`. */
export interface GuardrailModelCheck {
  model: Runnable<BaseLanguageModelInput, unknown>;
  /** What the model must look for (e.g. "Does the text contain a credit-card number?"); not blank. */
  instructions: string;
}

/** Options of {@link guardrail}. */
export interface GuardrailOptions {
  /** Names the guardrail in the run's `stoppedBy` and its errors (a string that is not blank). @default `guardrail(${on})` */
  name?: string;
  /**
   * `"input"`: the run's input, before the first agent call, and each message sent to the run
   * (`executor.send`), before the agent call it joins for; `"output"`: the final answer (the
   * agent's, a structured answer as JSON, or the result of a `returnDirect` tool); `"tool"`: each
   * tool call's input and result.
   */
  on: "input" | "output" | "tool";
  /** A function, or a model call ({@link GuardrailModelCheck}). */
  check: GuardrailCheck | GuardrailModelCheck;
  /**
   * `true`: the check runs before the agent call (`"input"`) or the tool call (`"tool"`), which
   * wait for it; `false`: they run at once, side by side, and a trip cancels them and the run.
   * Final answers and tool results are always checked before anyone sees them.
   * @default true
   */
  blocking?: boolean;
}

/**
 * A guardrail with a tripwire (see docs/middleware.md): a check on the run's input (and the
 * messages sent to it), its final answer, or each tool call (its input, then its result before the model sees it). When the check
 * trips, the run ends with `stopReason: "guardrail"`, the output `Agent stopped: guardrail "<name>"
 * tripped on <what>: <reason>.`, and `stoppedBy: { middleware, guardrail, on, phase?, reason, message }`
 * on the output event and the result. A check that throws fails the run with a `MiddlewareError`.
 *
 * @example
 * ```ts
 * import { AgentExecutor, guardrail } from "@agentrx/executors";
 * import { RunnableLambda } from "@langchain/core/runnables";
 * import { tool } from "@langchain/core/tools";
 * import { z } from "zod";
 *
 * const lookup = tool(async () => "card on file: 4111 1111 1111 1111", { name: "lookup", description: "Looks up a customer.", schema: z.object({ id: z.string() }) });
 * const agent = RunnableLambda.from(() => ({ tool: "lookup", toolInput: { id: "c-1" }, log: "" }));
 * const noCards = guardrail({ name: "no-card-numbers", on: "tool", check: ({ text }) => /\b(?:\d[ -]?){13,16}\b/.test(text) && "a credit-card number" });
 * const result = await new AgentExecutor({ agent, tools: [lookup], middleware: [noCards] }).invoke({ input: "customer c-1?" });
 * console.log(result.stopReason, result.output); // "guardrail" 'Agent stopped: guardrail "no-card-numbers" tripped on a tool result (lookup): a credit-card number.'
 * ```
 */
export function guardrail(options: GuardrailOptions): AgentMiddleware {
  if (typeof options !== "object" || options === null || Array.isArray(options)) badOption("guardrail", "options", options, "pass an options object { on, check, blocking?, name? }.");
  checkOptionKeys("guardrail", options, ["name", "on", "check", "blocking"] satisfies (keyof GuardrailOptions)[]);
  const { on, check, blocking = true } = options;
  if (on !== "input" && on !== "output" && on !== "tool") badOption("guardrail", "on", on, `\`on\` must be "input", "output" or "tool", got ${JSON.stringify(on)}.`);
  if (typeof blocking !== "boolean") badOption("guardrail", "blocking", blocking, "`blocking` must be a boolean.");
  // Only a missing name (or `undefined`) takes the default: `null` is refused, as for every other option.
  const name = options.name === undefined ? `guardrail(${on})` : options.name;
  if (typeof name !== "string" || name.trim() === "") badOption("guardrail", "name", name, "`name` must be a string that is not blank.");
  const run = checkFunction(check);

  /** Checks `subject`; a trip ends the run. */
  const verify = async (subject: GuardrailSubject, what: string): Promise<void> => {
    const verdict = toVerdict(await run(subject), name);
    if (!verdict.tripped) return;
    const reason = verdict.reason ?? "";
    stopRun({
      reason: "guardrail",
      message: `Agent stopped: guardrail "${name}" tripped on ${what}${reason === "" ? "" : `: ${reason}`}.`,
      details: { guardrail: name, on, ...(subject.phase === undefined ? {} : { phase: subject.phase }), reason },
    });
  };
  /** Runs `call` after the checks (blocking) or side by side with them (a trip rejects at once). */
  const guarded = async <T>(check: () => Promise<void>, call: () => Promise<T>): Promise<T> => {
    if (blocking) {
      await check();
      return call();
    }
    const [value] = await Promise.all([call(), check()]);
    return value;
  };

  const middleware: AgentMiddleware = { name };
  if (on === "input") {
    // The messages sent to a run that passed (steps of this process's runs): each is checked once.
    const passed = new WeakSet<AgentStep>();
    middleware.wrapModelCall = (request, next) => {
      // The input is checked once, before the run's first agent call; the messages sent to the run,
      // before the agent call they joined for (they are the run's last steps then).
      const sent = sentMessages(request.runSteps, passed);
      if (request.iteration !== 0 && sent.length === 0) return next(request);
      const { inputs, signal } = request;
      const check = async () => {
        if (request.iteration === 0) await verify({ on, text: typeof inputs["input"] === "string" ? inputs["input"] : JSON.stringify(inputs), inputs, signal }, "the input");
        for (const step of sent) {
          await verify({ on, text: observationText(step.observation), inputs, sent: true, signal }, "a message sent to the run");
          passed.add(step);
        }
      };
      return guarded(check, () => next(request));
    };
  } else if (on === "output") {
    // The run holds a model call's streamed tokens until this check passed (see `holdsAnswerTokens`).
    markHoldsAnswerTokens(middleware);
    middleware.wrapModelCall = async (request, next) => {
      const output = await next(request);
      const text = answerText(output);
      if (text !== undefined) await verify({ on, text, signal: request.signal }, "the final answer");
      return output;
    };
    // A tool that returns directly: its result may be the run's answer, with no model call after it.
    middleware.wrapToolCall = async (call, next) => {
      const observation = await next(call);
      if (call.returnDirect) await verify({ on, text: observationText(observation), action: call.action, observation, signal: call.signal }, `the final answer (returned directly by ${call.action.tool})`);
      return observation;
    };
  } else {
    middleware.wrapToolCall = async (call, next) => {
      const { action, signal } = call;
      const input = typeof action.toolInput === "string" ? action.toolInput : JSON.stringify(action.toolInput);
      const observation = await guarded(() => verify({ on, phase: "call", text: input, action, signal }, `a tool call (${action.tool})`), () => next(call));
      await verify({ on, phase: "result", text: observationText(observation), action, observation, signal }, `a tool result (${action.tool})`);
      return observation;
    };
  }
  return middleware;
}

/**
 * The messages sent to the run that joined for the coming agent call and were not checked yet:
 * the message steps at the end of the run's steps (messages join between turns, right before an
 * agent call), less those that `passed` already.
 */
function sentMessages(steps: readonly AgentStep[], passed: WeakSet<AgentStep>): AgentStep[] {
  const sent: AgentStep[] = [];
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i] as AgentStep;
    if (!isMessageStep(step)) break;
    if (!passed.has(step)) sent.unshift(step);
  }
  return sent;
}

/**
 * The text of a final answer among an agent call's outputs: an `AgentFinish`'s output, or the
 * input (as JSON) of a call of the final-answer tool (`outputSchema`); undefined for tool calls.
 */
function answerText(output: AgentOutput): string | undefined {
  if (isAgentFinish(output)) return toOutputString(output.returnValues["output"]);
  const answer = finalAnswerCall(Array.isArray(output) ? output : [output]);
  if (answer === undefined) return undefined;
  const value = answer.returnValues["structuredOutput"];
  return valueToText(value);
}

function checkFunction(check: GuardrailOptions["check"]): GuardrailCheck {
  if (typeof check === "function") return check;
  const given = check as Partial<GuardrailModelCheck> | null;
  if (typeof given !== "object" || given === null || !isInvokable(given.model) || typeof given.instructions !== "string" || given.instructions.trim() === "") {
    badOption("guardrail", "check", check, "`check` must be a function (subject) => verdict, or { model, instructions } (a chat model that answers PASS or TRIP: reason; instructions that are not blank).");
  }
  // A setting it does not take (`temperature`, a misspelt `instruction`) would be ignored: refused.
  checkOptionKeys("guardrail", given as object, ["model", "instructions"] satisfies (keyof GuardrailModelCheck)[], "check.");
  const { model, instructions } = given as GuardrailModelCheck;
  const system = `${instructions}\n\nReply with exactly PASS when the text is acceptable. Otherwise reply TRIP: followed by a short reason.`;
  return async ({ text, signal }) => {
    const reply = replyText(await model.invoke([new SystemMessage(system), new HumanMessage(text)], { signal })).trim();
    // PASS alone (any case, a full stop allowed): "PASS, but it names a competitor" is no pass.
    if (/^PASS[.!]?$/i.test(reply)) return false;
    // Anything else trips: a guardrail that cannot read its model's answer does not let the run through.
    const reason = reply.replace(/^TRIP\b\s*:?\s*/i, "").trim();
    return reason === "" ? true : reason;
  };
}

/**
 * What a check's verdict says; a value that is none of the verdicts throws (the run fails naming the
 * guardrail): a tripwire does not let the run through on an answer it cannot read.
 */
function toVerdict(verdict: GuardrailVerdict, name: string): { tripped: boolean; reason?: string } {
  if (verdict === true) return { tripped: true };
  if (verdict === false || verdict === undefined || verdict === null) return { tripped: false };
  if (typeof verdict === "string") return verdict === "" ? { tripped: false } : { tripped: true, reason: verdict };
  if (typeof verdict === "object" && typeof verdict.tripped === "boolean" && (verdict.reason === undefined || typeof verdict.reason === "string")) {
    return verdict.tripped ? { tripped: true, ...(verdict.reason === undefined ? {} : { reason: verdict.reason }) } : { tripped: false };
  }
  throw new InvalidArgumentError({
    argument: "check",
    value: verdict,
    message: `guardrail "${name}": its check returned ${showValue(verdict)}, which is not a verdict: return true, false, a reason (a string) or { tripped: boolean, reason?: string }.`,
  });
}
