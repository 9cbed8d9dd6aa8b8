/** A call a person edited before it ran: where it is in its turn, and the input it ran with. @internal */
export interface EditedCall {
  iteration: number;
  index: number;
  toolInput: unknown;
}

/**
 * The calls a run's pauses wait on, by interrupt id, so that a resume's `decisions` can be read
 * back: which calls a person edited, and the input each ran with. Takes interrupts and decisions as
 * recorded (JSON) or decoded. Used wherever a record is read back (`RunEventDecoder`, a fork's
 * copy, the trace page).
 *
 * @internal
 */
export class PausedCalls {
  private readonly calls = new Map<string, { iteration: number; index: number }>();

  /** Notes the calls a pause (an `interrupt` event's `interrupts`) waits on. */
  paused(interrupts: unknown): void {
    if (!Array.isArray(interrupts)) return;
    for (const interrupt of interrupts) {
      const { id, iteration, index, subRun } = (interrupt ?? {}) as { id?: unknown; iteration?: unknown; index?: unknown; subRun?: unknown };
      // A sub-run's call (a handoff's): an edit of it changes that call's input, not this run's call's.
      if (subRun !== undefined) continue;
      if (typeof id === "string" && typeof iteration === "number" && typeof index === "number") this.calls.set(id, { iteration, index });
    }
  }

  /** The edits among a resume's `decisions`, for the calls a pause noted. */
  edits(decisions: unknown): EditedCall[] {
    if (decisions === null || typeof decisions !== "object") return [];
    const edited: EditedCall[] = [];
    for (const [id, decision] of Object.entries(decisions as Record<string, unknown>)) {
      const call = this.calls.get(id);
      const edit = decision as { type?: unknown; toolInput?: unknown } | null;
      if (call === undefined || typeof edit !== "object" || edit === null || edit.type !== "edit" || edit.toolInput === undefined) continue;
      edited.push({ ...call, toolInput: edit.toolInput });
    }
    return edited;
  }
}
