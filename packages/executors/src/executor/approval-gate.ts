import type { AgentAction, AgentFinish, AgentStep, InDoubtPolicy, StepMetadata } from "@agentrx/core";
import { InDoubtToolCallError } from "./in-doubt-tool-call-error";
import { type ApprovalCheck, REJECTED_OBSERVATION, interruptsOf } from "./approvals";
import type { Decision, Interrupt, InterruptEvent, StopReason } from "./events";
import { forced } from "./run-helpers";
import type { RunState, RunTransition } from "./run-state";

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
  /** The turn (its iteration) in which a person rejected an action: that turn never returns directly. */
  private rejectedIn: number | undefined;

  constructor(private readonly run: ApprovalGateContext) {}

  /** Whether any action can need approval (else the loop skips the check). */
  get enabled(): boolean {
    return this.run.approval !== undefined;
  }

  /** Whether a person rejected an action of the turn of `iteration`. */
  rejectedInTurn(iteration: number): boolean {
    return this.rejectedIn === iteration;
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

  /** Applies the decisions this resume brought: rejections become observations, edits change the input. */
  applyDecisions(): void {
    const { decisions, state } = this.run;
    if (decisions === undefined || state.interrupts.length === 0) return;
    const decided = state.interrupts.filter((interrupt) => decisions[interrupt.id] !== undefined);
    if (decided.length === 0) return;
    this.run.dispatch({ type: "decided", ids: decided.map((interrupt) => interrupt.id) });
    const turn = state.turn;
    for (const interrupt of decided) {
      const decision = decisions[interrupt.id] as Decision;
      const action = turn?.actions[interrupt.index];
      if (action === undefined || typeof decision === "string") continue;
      if (decision.type === "reject") {
        this.rejectedIn = interrupt.iteration;
        this.run.toolFinished(interrupt.index, { action, observation: decision.message ?? REJECTED_OBSERVATION }, 0, undefined);
      } else if (decision.type === "result") {
        this.run.toolFinished(interrupt.index, { action, observation: decision.observation }, 0, undefined);
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
      if (policy === "retry") continue;
      if (policy === "fail") throw new InDoubtToolCallError({ runId: state.runId, tool: action.tool, iteration: turn.iteration, index });
      const interrupt: Interrupt = { id: `call-${turn.iteration}-${index}`, tool: action.tool, toolInput: action.toolInput, iteration: turn.iteration, index, reason: "in_doubt" };
      const toolCallId = (action as { toolCallId?: unknown }).toolCallId;
      if (typeof toolCallId === "string") interrupt.toolCallId = toolCallId;
      waiting.push(interrupt);
    }
    if (waiting.length > 0) this.run.dispatch({ type: "approvalRequested", interrupts: [...state.interrupts, ...waiting] });
  }

  /** Pauses the run for the interrupts of its turn: recorded first, then the `interrupt` and `output` events. */
  pause(): Promise<void> {
    const { state } = this.run;
    const interrupts = state.interrupts;
    const event: InterruptEvent = { type: "interrupt", runId: state.runId, interrupts, at: Date.now() };
    return this.run.complete(forced(""), "interrupted", event);
  }
}
