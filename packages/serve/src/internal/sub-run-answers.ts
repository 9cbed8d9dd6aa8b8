// The answers a resumed run's stream carries for the calls of a paused handoff (nested interrupts,
// `Interrupt.subRun`: see docs/serving.md): the steps each sub-run takes in the turn it resumes, named
// as the calling run named the calls it waited on (`<call's interrupt id>/<sub-run's interrupt id>`,
// e.g. `call-0-0/call-0-0`). @internal
import type { AgentStreamEvent, Interrupt, StepEvent } from "@agentrx/executors";
import { ResumedTurn } from "./resumed-turn";

export class SubRunAnswers {
  /** Each sub-run's resumed turn, by its path of call ids (`subRunCallIds`). */
  private readonly turns = new Map<string, ResumedTurn>();
  /** The answered calls of each sub-run's resumed turn, by their id in that sub-run, by the sub-run's path. */
  private readonly answered = new Map<string, Map<string, StepEvent>>();
  /** Each sub-run's path, by its run id. */
  private readonly paths = new Map<string, string>();

  /** Notes one of a sub-run's events (`subRun` set). */
  saw(event: AgentStreamEvent): void {
    const path = event.subRunCallIds ?? [];
    const key = keyOf(path);
    if (event.type === "start") {
      const turn = new ResumedTurn();
      turn.started(event.resumed);
      this.turns.set(key, turn);
      this.paths.set(event.runId, key);
      return;
    }
    if (event.type !== "token" && event.type !== "action" && event.type !== "step" && event.type !== "usage") return;
    const turn = this.turns.get(key);
    turn?.saw(event.type, event.iteration);
    if (event.type === "step" && turn?.answersShownCall(event.iteration) === true) {
      const answers = this.answered.get(key) ?? new Map<string, StepEvent>();
      this.answered.set(key, answers);
      // A call that ran a paused sub-run waited on that sub-run's calls; any other, on itself.
      const nested = this.answersOf(path, event);
      if (nested.size === 0) answers.set(`call-${event.iteration}-${event.index ?? 0}`, event);
      for (const [id, step] of nested) answers.set(id, step);
    }
  }

  /**
   * The answers to the nested calls of the step `event` (a call of the run at `path`, the top run
   * when empty): for a call that ran a sub-run, the sub-run's answered calls by their id in this
   * run (`call-<iteration>-<index>/<their id>`); none for any other call.
   */
  answersOf(path: readonly string[], event: StepEvent): Map<string, StepEvent> {
    return this.take(keyOf([...path, callIdOf(event)]), `call-${event.iteration}-${event.index ?? 0}`);
  }

  /**
   * The answers the sub-run of a nested interrupt of the top run gave before it paused again
   * (its resumed turn answered some calls, then it asked about more), by their id in the top run.
   */
  answersBeforePause(interrupt: Interrupt): Map<string, StepEvent> {
    const key = interrupt.subRun === undefined ? undefined : this.paths.get(interrupt.subRun.runId);
    return key === undefined ? new Map() : this.take(key, `call-${interrupt.iteration}-${interrupt.index}`);
  }

  /** The answers of the sub-run at `key`, named under its call's id `own`; given once (a replayed record's later pause starts again). */
  private take(key: string, own: string): Map<string, StepEvent> {
    const answers = new Map<string, StepEvent>();
    for (const [id, step] of this.answered.get(key) ?? []) answers.set(`${own}/${id}`, step);
    this.answered.delete(key);
    return answers;
  }
}

/** The id a sub-run's events name the call that started it by (`subRunCallIds`): its `toolCallId`, else `<iteration>:<index>`. */
function callIdOf(event: StepEvent): string {
  const id = (event.step.action as { toolCallId?: unknown }).toolCallId;
  return typeof id === "string" && id !== "" ? id : `${event.iteration}:${event.index ?? 0}`;
}

function keyOf(path: readonly string[]): string {
  return JSON.stringify(path);
}
