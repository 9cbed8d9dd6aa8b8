// The id of each tool call in a protocol stream: the action's `toolCallId` (tool-calling agents), else
// `<prefix>call-<iteration>-<index>` (without a prefix, the executor's interrupt id for the same
// call), so steps and interrupts of text agents name the call their action did. @internal
import type { AgentAction } from "@agentrx/core";

export class ToolCallIds {
  /**
   * Put before the ids made from a call's place: the run's id and a dash where ids must differ
   * between the runs of one conversation (AG-UI's are the thread's), as places repeat in every run.
   */
  prefix = "";
  private readonly byAction = new Map<AgentAction, string>();
  private readonly counts = new Map<number, number>();
  private readonly pending = new Map<string, string[]>();

  /** The id of an `action` event's call; `index` is the event's (its place in the turn), when it has one. */
  ofAction(iteration: number, action: AgentAction, index?: number): string {
    const known = idOf(action);
    if (known !== undefined) return known;
    if (index !== undefined) return this.ofPlace(iteration, index);
    // An event without its place (a stream from before events carried it): numbered in order.
    const seen = this.byAction.get(action);
    if (seen !== undefined) return seen;
    const place = this.counts.get(iteration) ?? 0;
    this.counts.set(iteration, place + 1);
    const id = this.ofPlace(iteration, place);
    this.byAction.set(action, id);
    const key = keyOf(iteration, action);
    this.pending.set(key, [...(this.pending.get(key) ?? []), id]);
    return id;
  }

  /**
   * The id of a `step` event's call; `index` is the event's: a step whose action was not in this
   * stream (a resumed run's approved or in-doubt call) is named by its place in the turn, as the
   * interrupt that asked about it was.
   */
  ofStep(iteration: number, action: AgentAction, index?: number): string {
    const known = idOf(action);
    if (known !== undefined) return known;
    if (index !== undefined) return this.ofPlace(iteration, index);
    const seen = this.byAction.get(action);
    if (seen !== undefined) return seen;
    // The step carries a copy of the action (a replayed record): match it by iteration, tool and input.
    const queue = this.pending.get(keyOf(iteration, action));
    return queue?.shift() ?? this.ofAction(iteration, action);
  }

  /** The id of the call at `index` of turn `iteration` whose action carries no `toolCallId`. */
  ofPlace(iteration: number, index: number): string {
    return `${this.prefix}call-${iteration}-${index}`;
  }
}

function idOf(action: AgentAction): string | undefined {
  const id = (action as { toolCallId?: unknown }).toolCallId;
  return typeof id === "string" && id !== "" ? id : undefined;
}

function keyOf(iteration: number, action: AgentAction): string {
  return `${iteration}\u0000${action.tool}\u0000${JSON.stringify(action.toolInput)}`;
}
