import { InvalidArgumentError, getToolApproval } from "@agentrx/core";
import type { AgentAction, AgentFinish, AgentStep, InDoubtPolicy, StepMetadata } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Validator } from "@langchain/core/utils/json_schema";
import type { Decision, Interrupt, InterruptEvent, StopReason } from "./events";
import { InDoubtToolCallError } from "./in-doubt-tool-call-error";
import { subRunExecutorOf } from "./executor-tool";
import type { SubRunInterruptedError } from "../handoff/sub-run-interrupted-error";
import type { MiddlewareRun } from "../middleware/middleware-run";
import { leftOutPart } from "../runs/json-value";
import { forced } from "./run-helpers";
import { type RunState, type RunTransition, pendingActions } from "./run-state";

// Approvals (the `needsApproval` option, tools marked `withApproval`, `resume` with decisions):
// the checks and limits (`approvalCheck`, `interruptsOf`, `checkDecisions`) and the run's gate
// that applies them (`ApprovalGate`). See docs/approval.md.

/** Decides whether an action needs a person's approval. @internal */
export type ApprovalCheck = (action: AgentAction, context: { runId: string; threadId?: string }) => Promise<boolean>;

/**
 * The approval check of an executor: a tool marked with `withApproval`, or the executor's
 * `needsApproval` option; undefined when nothing ever needs approval (the loop then skips it).
 *
 * @internal
 */
export function approvalCheck(
  toolsByName: ReadonlyMap<string, StructuredToolInterface>,
  needsApproval: ((action: AgentAction) => boolean | Promise<boolean>) | undefined,
): ApprovalCheck | undefined {
  const marked = [...toolsByName.values()].some((tool) => getToolApproval(tool) !== undefined);
  if (!marked && needsApproval === undefined) return undefined;
  return async (action, context) => {
    const approval = getToolApproval(toolsByName.get(action.tool));
    if (approval === true) return true;
    if (typeof approval === "function" && (await approval(action.toolInput, { ...context, action }))) return true;
    // Truthy, as `withApproval`'s function: a call is never run unasked because a check said "yes" or 1.
    return needsApproval !== undefined && Boolean(await needsApproval(action));
  };
}

/** The interrupts of a turn: the actions that need approval, with stable ids. @internal */
export async function interruptsOf(actions: readonly AgentAction[], iteration: number, check: ApprovalCheck, context: { runId: string; threadId?: string }): Promise<Interrupt[]> {
  const needs = await Promise.all(actions.map((action) => check(action, context)));
  const interrupts: Interrupt[] = [];
  needs.forEach((need, index) => {
    if (!need) return;
    const action = actions[index] as AgentAction;
    const interrupt: Interrupt = { id: `call-${iteration}-${index}`, tool: action.tool, toolInput: action.toolInput, iteration, index, reason: "approval" };
    const toolCallId = (action as { toolCallId?: unknown }).toolCallId;
    if (typeof toolCallId === "string") interrupt.toolCallId = toolCallId;
    interrupts.push(interrupt);
  });
  return interrupts;
}

/**
 * The observation of a call in doubt that a resume would run again while its record does not hold
 * all of its input (`leftOut` says which part is missing; see `MAX_RECORDED_DEPTH`).
 */
function leftOutObservation(tool: string, leftOut: string): string {
  return `The call to tool "${tool}" could not run again on resume: its input was nested too deeply for the run record, which kept ${leftOut}.`;
}

/** The observation of a rejected tool call without a message of its own. */
export const REJECTED_OBSERVATION = "The user rejected this tool call.";

/**
 * Checks `decisions` against the interrupts waiting for one: every id must be waiting, every
 * decision well-formed, every edited input valid for its tool's schema.
 *
 * @throws InvalidArgumentError naming the interrupt and what is wrong
 * @internal
 */
export function checkDecisions(
  runId: string,
  decisions: unknown,
  waiting: readonly Interrupt[],
  toolsByName: ReadonlyMap<string, StructuredToolInterface>,
): Record<string, Decision> {
  if (typeof decisions !== "object" || decisions === null || Array.isArray(decisions)) {
    throw invalid(decisions, `\`decisions\` must be an object from interrupt id to decision, got ${Array.isArray(decisions) ? "an array" : String(decisions)}.`);
  }
  const byId = new Map(waiting.map((interrupt) => [interrupt.id, interrupt]));
  const out: Record<string, Decision> = {};
  for (const [id, decision] of Object.entries(decisions)) {
    const interrupt = byId.get(id);
    if (interrupt === undefined) {
      const ids = [...byId.keys()];
      throw invalid(decisions, `run "${runId}" has no interrupt "${id}" waiting for a decision (${ids.length ? `waiting: ${ids.join(", ")}` : "none is waiting"}).`);
    }
    out[id] = checkDecision(id, decision, interrupt, toolsByName);
  }
  return out;
}

/** The keys each kind of decision takes. */
const DECISION_KEYS: Readonly<Record<string, readonly string[]>> = { approve: ["type"], reject: ["type", "message"], edit: ["type", "toolInput"], result: ["type", "observation"] };

function checkDecision(id: string, decision: unknown, interrupt: Interrupt, toolsByName: ReadonlyMap<string, StructuredToolInterface>): Decision {
  if (decision === "approve") return decision;
  const type = (decision as { type?: unknown } | null)?.type;
  const keys = typeof type === "string" ? DECISION_KEYS[type] : undefined;
  if (keys !== undefined) {
    // A misspelt key (`mesage`, `input`) would be ignored: the call would run, or be rejected, other than meant.
    const unknown = Object.keys(decision as object).find((key) => !keys.includes(key));
    if (unknown !== undefined) throw invalid(decision, `the ${type} decision for "${id}" has an unknown key \`${unknown}\` (it would be ignored); it takes ${keys.join(", ")}. Nothing ran.`);
  }
  if (type === "approve") return { type };
  if (type === "reject") {
    const message = (decision as { message?: unknown }).message;
    if (message !== undefined && typeof message !== "string") throw invalid(decision, `the reject decision for "${id}" has a \`message\` that is not a string.`);
    if (typeof message === "string" && message.length > MAX_DECISION_CHARS) throw invalid(decision, `the reject decision for "${id}" has a message of ${message.length} characters; at most ${MAX_DECISION_CHARS} are accepted.`);
    return message === undefined ? { type } : { type, message };
  }
  if (type === "result") {
    const observation = (decision as { observation?: unknown }).observation;
    if (typeof observation !== "string") throw invalid(decision, `the result decision for "${id}" needs an \`observation\` string (the tool call's result, as the model will see it).`);
    if (observation.length > MAX_DECISION_CHARS) throw invalid(decision, `the result decision for "${id}" has an observation of ${observation.length} characters; at most ${MAX_DECISION_CHARS} are accepted.`);
    return { type, observation };
  }
  if (type === "edit") {
    const toolInput = (decision as { toolInput?: unknown }).toolInput;
    const size = jsonSize(toolInput);
    if (size === undefined) throw invalid(decision, `the edited input for "${id}" (tool "${interrupt.tool}") cannot be written as JSON (too deep, or circular). Nothing ran.`);
    if (size > MAX_DECISION_CHARS) throw invalid(decision, `the edited input for "${id}" (tool "${interrupt.tool}") is ${size} characters of JSON; at most ${MAX_DECISION_CHARS} are accepted. Nothing ran.`);
    const problem = schemaProblem(interrupt.subRun === undefined ? toolsByName.get(interrupt.tool) : subRunToolOf(interrupt.subRun, interrupt.tool, toolsByName), toolInput);
    if (problem !== undefined) throw invalid(decision, `the edited input for "${id}" (tool "${interrupt.tool}"${interrupt.subRun === undefined ? "" : ` of the agent "${interrupt.subRun.tool}" runs`}) does not fit the tool's schema: ${problem}. Nothing ran.`);
    return { type, toolInput };
  }
  throw invalid(decision, `the decision for "${id}" must be "approve", { type: "approve" }, { type: "reject", message? }, { type: "edit", toolInput } or { type: "result", observation }.`);
}

/**
 * The tool of a sub-run's paused call (`Interrupt.subRun`): the tool named `name` of the executor
 * that the caller's `handoff` or `asTool` tool runs, for its edits to be checked when the caller's
 * resume is called (see docs/approval.md, "A pause inside a handoff"). Undefined, and the edit is
 * left to that executor, when the paused call is itself a sub-run's (one more handoff down: its
 * tool is not this executor's), or when the tool cannot be found.
 */
function subRunToolOf(subRun: NonNullable<Interrupt["subRun"]>, name: string, toolsByName: ReadonlyMap<string, StructuredToolInterface>): StructuredToolInterface | undefined {
  if (subRun.interruptId.includes("/")) return undefined;
  return subRunExecutorOf(toolsByName.get(subRun.tool))?.toolNamed(name);
}

/** What is wrong with `input` for the tool's schema (zod, or JSON Schema as MCP tools have), if anything. */
function schemaProblem(tool: StructuredToolInterface | undefined, input: unknown): string | undefined {
  const schema = tool?.schema as { safeParse?: (value: unknown) => { success: boolean; error?: { message?: string; issues?: { path: PropertyKey[]; message: string }[] } } } | undefined;
  if (typeof schema?.safeParse !== "function") {
    if (typeof schema !== "object" || schema === null) return undefined;
    // The validator @langchain/core's own tools use for JSON Schema.
    const result = new Validator(schema as never, "2019-09", false).validate(input);
    if (result.valid) return undefined;
    return result.errors.map((error) => `${error.instanceLocation.replace(/^#\/?/, "").replace(/\//g, ".") || "(input)"}: ${error.error}`).join("; ");
  }
  const result = schema.safeParse(input);
  if (result.success) return undefined;
  const issues = result.error?.issues;
  if (issues && issues.length > 0) return issues.map((issue) => `${issue.path.map(String).join(".") || "(input)"}: ${issue.message}`).join("; ");
  return result.error?.message ?? "invalid input";
}

/** The most characters a decision may carry (an edited input's JSON, a result, a rejection message). */
export const MAX_DECISION_CHARS = 1_000_000;

/** The length of `value` as JSON, or undefined when it cannot be written (too deep, circular). */
function jsonSize(value: unknown): number | undefined {
  try {
    return JSON.stringify(value ?? null).length;
  } catch {
    return undefined;
  }
}

function invalid(value: unknown, message: string): InvalidArgumentError {
  return new InvalidArgumentError({ argument: "decisions", value, message: `AgentExecutor.resume: ${message}` });
}

/**
 * What the approval gate needs of its run, and nothing more: the state it reads (interrupts, the
 * turn, the run and thread ids), the check and the decisions it applies, and the transitions,
 * waits and ends it asks for.
 *
 * @internal
 */
export interface ApprovalGateContext {
  /** The run's state (read only: it changes through `dispatch`). */
  readonly state: RunState;
  /** The executor's approval check; undefined when nothing ever needs approval. */
  readonly approval: ApprovalCheck | undefined;
  /** Checked decisions on the interrupts a resumed run waits for. */
  readonly decisions: Record<string, Decision> | undefined;
  /** The ids of the interrupts this resume's own decisions answer (their calls never started). */
  readonly freshDecisions: ReadonlySet<string>;
  /**
   * The run's middleware: with it, a result a person supplies (a `result` decision) goes through
   * its `wrapToolCall` chain as the call's, before it is the call's step (see `suppliedResult`).
   */
  readonly middleware?: MiddlewareRun | undefined;
  /** Changes the run's state. */
  dispatch(event: RunTransition): void;
  /** Awaits `promise` unless the run is cancelled or (when `halts`) halted first. */
  wait<T>(promise: Promise<T>, halts: boolean): Promise<T>;
  /** A tool call of the turn finished (a rejected one: with the rejection as its observation). */
  toolFinished(index: number, step: AgentStep, durationMs: number, metadata: StepMetadata | undefined): void;
  /** The in-doubt policy for a call of `action` (its tool's, else the executor's). */
  inDoubtPolicy(action: AgentAction): InDoubtPolicy;
  /** Ends the run with `finish`; with `interrupt`, as a pause. */
  complete(finish: AgentFinish, stopReason: StopReason, interrupt: InterruptEvent): Promise<void>;
}

/**
 * Approval decisions and pauses (the `needsApproval` option, tools marked `withApproval`, and
 * `resume` with decisions): asks which of a turn's actions need a person, pauses the run for them,
 * and applies the decisions a resume brings.
 *
 * @internal
 */
export class ApprovalGate {
  constructor(private readonly run: ApprovalGateContext) {}

  /** Whether any action can need approval (else the loop skips the check). */
  get enabled(): boolean {
    return this.run.approval !== undefined;
  }

  /** Whether a person rejected an action of the turn of `iteration`. */
  rejectedInTurn(iteration: number): boolean {
    // In the run's state (`rejectedIn`), fed by the recorded decisions too: a resumed run agrees.
    return this.run.state.rejectedIn === iteration;
  }

  /** The interrupts of a turn's `actions` (call only when `enabled`); the wait ends at once on a halt or cancellation. */
  interruptsOf(actions: readonly AgentAction[], iteration: number): Promise<Interrupt[]> {
    const { runId, threadId } = this.run.state;
    const context = threadId === undefined ? { runId } : { runId, threadId };
    return this.run.wait(interruptsOf(actions, iteration, this.run.approval as ApprovalCheck, context), true);
  }

  /** The turn's actions that need approval wait for a decision (nothing happens when none does). */
  requested(interrupts: Interrupt[]): void {
    if (interrupts.length > 0) this.run.dispatch({ type: "approvalRequested", interrupts });
  }

  /**
   * A resumed run's pending turn, before its calls run: applies the decisions (`applyDecisions`),
   * asks for approval on the calls that need it and were never asked about (`askUnasked`), and
   * settles the calls without a result that may have started (`settleInDoubt`): every one but
   * those this resume's own decisions answer, which never started, and those that ran a sub-run
   * whose paused calls have decisions, fresh or recorded: such a call runs again with them, and
   * the sub-run's own record decides what they do (a paused sub-run applies them, one that went
   * on refuses them and the call takes its answer), so nothing runs twice.
   *
   * A promise only when a call must be checked for approval (the check may be async): the calls
   * in doubt are settled once it is done. Rejects (or throws) as the check or `settleInDoubt` does.
   */
  resumeTurn(): Promise<void> | void {
    const { state, freshDecisions, decisions } = this.run;
    const settled = new Set<number>();
    // The calls a person was asked about (a recorded pause): approved or edited ones that are still
    // pending may have started under that decision (in doubt, unless this resume's own).
    const asked = new Set<number>();
    for (const interrupt of state.interrupts) {
      asked.add(interrupt.index);
      if (freshDecisions.has(interrupt.id) || (interrupt.subRun !== undefined && decisions?.[interrupt.id] !== undefined)) settled.add(interrupt.index);
    }
    this.applyDecisions();
    // A supplied result that goes through the middleware (fresh or recorded) is no call in doubt: the tool never runs for it.
    for (const index of this.supplied?.byIndex.keys() ?? []) settled.add(index);
    const unasked = this.enabled ? pendingActions(state).filter((index) => !asked.has(index)) : [];
    if (unasked.length === 0) {
      this.settleInDoubt(pendingActions(state).filter((index) => !settled.has(index)));
      return undefined;
    }
    return this.askUnasked(unasked).then(() => this.settleInDoubt(pendingActions(state).filter((index) => !settled.has(index))));
  }

  /**
   * The calls at `indexes` of a resumed turn were never asked about: those that need approval
   * wait for it (reason `approval`) and never count as in doubt. Their pause was never recorded
   * (it is written when the turn's other calls are done, and the run stopped before: a tool
   * threw, it was cancelled, its process died), so none of them started: a call is never run
   * unasked (see docs/approval.md).
   */
  private async askUnasked(indexes: readonly number[]): Promise<void> {
    const { state } = this.run;
    const turn = state.turn;
    if (turn === undefined) return;
    const actions = indexes.map((index) => turn.actions[index] as AgentAction);
    const found = await this.interruptsOf(actions, turn.iteration);
    if (found.length === 0) return;
    // Numbered by the call's place in the turn, as the live run numbers them.
    const interrupts = found.map((interrupt): Interrupt => {
      const index = indexes[interrupt.index] as number;
      return { ...interrupt, id: `call-${turn.iteration}-${index}`, index };
    });
    this.run.dispatch({ type: "approvalRequested", interrupts: [...state.interrupts, ...interrupts] });
  }

  /**
   * Applies the decisions this resume brought: rejections become observations, edits change the
   * input, a supplied result (`result`) becomes the call's step, marked `observationEdited: true`;
   * with middleware, it is left to the turn's calls instead, which give it to the `wrapToolCall`
   * chain as the call's result without running the tool (`suppliedResult`), so what would refuse
   * or change a live result does the same with it (see docs/approval.md). Decisions on a sub-run's interrupts (`subRun`) are not this run's to apply: the call
   * that ran the sub-run runs again and hands them to the sub-run (`subRunDecisions`); that call's
   * other sub-run interrupts leave the waiting list too (the sub-run, resumed, pauses on them again).
   */
  applyDecisions(): void {
    const { decisions, state } = this.run;
    if (decisions === undefined || state.interrupts.length === 0) return;
    const decided = state.interrupts.filter((interrupt) => decisions[interrupt.id] !== undefined);
    if (decided.length === 0) return;
    const turn = state.turn;
    const nested = new Map<number, Record<string, Decision>>();
    for (const interrupt of decided) {
      if (interrupt.subRun === undefined) continue;
      const forCall = nested.get(interrupt.index) ?? {};
      forCall[interrupt.subRun.interruptId] = decisions[interrupt.id] as Decision;
      nested.set(interrupt.index, forCall);
    }
    const ids = state.interrupts.filter((interrupt) => decisions[interrupt.id] !== undefined || (interrupt.subRun !== undefined && nested.has(interrupt.index))).map((interrupt) => interrupt.id);
    this.run.dispatch({ type: "decided", ids });
    if (turn !== undefined && nested.size > 0) this.subRunDecided = { iteration: turn.iteration, byIndex: nested };
    for (const interrupt of decided) {
      const decision = decisions[interrupt.id] as Decision;
      const action = turn?.actions[interrupt.index];
      if (action === undefined || typeof decision === "string" || interrupt.subRun !== undefined) continue;
      if (decision.type === "reject") {
        this.run.dispatch({ type: "callRejected", iteration: interrupt.iteration });
        this.run.toolFinished(interrupt.index, { action, observation: decision.message ?? REJECTED_OBSERVATION }, 0, { rejected: true });
      } else if (decision.type === "result") {
        if (this.run.middleware !== undefined) {
          if (this.supplied?.iteration !== interrupt.iteration) this.supplied = { iteration: interrupt.iteration, byIndex: new Map() };
          this.supplied.byIndex.set(interrupt.index, decision.observation);
        } else this.run.toolFinished(interrupt.index, { action, observation: decision.observation }, 0, { observationEdited: true });
      } else if (decision.type === "edit") {
        this.run.dispatch({ type: "inputEdited", index: interrupt.index, toolInput: decision.toolInput });
      }
    }
  }

  /**
   * The calls at `indexes` of a resumed turn are in doubt (recorded as started, no result): each
   * by its tool's policy (`withInDoubt`), else the executor's `inDoubt`. `retry` leaves it to run
   * again; `interrupt` makes it wait for a person's decision; `fail` fails the run.
   */
  settleInDoubt(indexes: readonly number[]): void {
    const { state } = this.run;
    const turn = state.turn;
    if (turn === undefined || indexes.length === 0) return;
    const waiting: Interrupt[] = [];
    for (const index of indexes) {
      const action = turn.actions[index] as AgentAction;
      const policy = this.run.inDoubtPolicy(action);
      if (policy === "retry") {
        // The record does not hold all of its input (see MAX_RECORDED_DEPTH): it cannot run again as it was
        // called. Marked as a refused input: the model reads the observation (a `returnDirect` tool's turn
        // does not end the run with it).
        const leftOut = leftOutPart(action.toolInput);
        if (leftOut !== undefined) this.run.toolFinished(index, { action, observation: leftOutObservation(action.tool, leftOut) }, 0, { failed: true, refusedInput: true });
        continue;
      }
      if (policy === "fail") throw new InDoubtToolCallError({ runId: state.runId, tool: action.tool, iteration: turn.iteration, index });
      const interrupt: Interrupt = { id: `call-${turn.iteration}-${index}`, tool: action.tool, toolInput: action.toolInput, iteration: turn.iteration, index, reason: "in_doubt" };
      const toolCallId = (action as { toolCallId?: unknown }).toolCallId;
      if (typeof toolCallId === "string") interrupt.toolCallId = toolCallId;
      waiting.push(interrupt);
    }
    if (waiting.length > 0) this.run.dispatch({ type: "approvalRequested", interrupts: [...state.interrupts, ...waiting] });
  }

  /** Results a person supplied for calls of the resumed turn, left to its calls (`applyDecisions`), by call index. */
  private supplied: { iteration: number; byIndex: Map<number, string> } | undefined;

  /**
   * The result a person supplied (a `result` decision) for the current turn's call at `index`,
   * when the run has middleware: the call gives it to the `wrapToolCall` chain as its result,
   * without running the tool. Undefined for any other call.
   */
  suppliedResult(index: number): string | undefined {
    const supplied = this.supplied;
    if (supplied === undefined || supplied.iteration !== this.run.state.turn?.iteration) return undefined;
    return supplied.byIndex.get(index);
  }

  /** Decisions for sub-runs of the resumed turn (`applyDecisions`), by the index of the call that ran each. */
  private subRunDecided: { iteration: number; byIndex: Map<number, Record<string, Decision>> } | undefined;

  /**
   * The decisions a person gave on the paused sub-run of the current turn's call at `index`, by
   * the sub-run's interrupt ids: what that call hands its sub-run when it runs again.
   */
  subRunDecisions(index: number): Record<string, Decision> | undefined {
    const decided = this.subRunDecided;
    if (decided === undefined || decided.iteration !== this.run.state.turn?.iteration) return undefined;
    return decided.byIndex.get(index);
  }

  /**
   * The sub-run of the current turn's call at `index` paused (a `handoff` or `asTool`, `error` says how): its
   * interrupts become this run's, each under the id `<call's interrupt id>/<its id>` with `subRun`
   * saying where it came from, and the call waits on them with no result (the run pauses when
   * its turn's other calls are done). See docs/agent-types.md, "Pauses inside a handoff".
   */
  subRunPaused(index: number, error: SubRunInterruptedError): void {
    const { state } = this.run;
    const turn = state.turn;
    if (turn === undefined) return;
    const callId = `call-${turn.iteration}-${index}`;
    const nested = error.interrupts.map((inner): Interrupt => {
      const interrupt: Interrupt = { id: `${callId}/${inner.id}`, tool: inner.tool, toolInput: inner.toolInput, iteration: turn.iteration, index, reason: inner.reason ?? "approval" };
      if (inner.toolCallId !== undefined) interrupt.toolCallId = inner.toolCallId;
      interrupt.subRun = { tool: error.tool, runId: error.runId, interruptId: inner.id };
      return interrupt;
    });
    // (A call that runs waits on nothing: what it waited on before is replaced.) In call order, as
    // the turn's steps are, whichever of its parallel calls paused first.
    const interrupts = [...state.interrupts.filter((interrupt) => interrupt.index !== index), ...nested].sort((a, b) => a.index - b.index);
    this.run.dispatch({ type: "approvalRequested", interrupts });
  }

  /** Pauses the run for the interrupts of its turn: recorded first, then the `interrupt` and `output` events. */
  pause(): Promise<void> {
    const { state } = this.run;
    const interrupts = state.interrupts;
    const event: InterruptEvent = { type: "interrupt", runId: state.runId, interrupts, at: Date.now() };
    return this.run.complete(forced(""), "interrupted", event);
  }
}
