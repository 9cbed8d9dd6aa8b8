import type { Interrupt } from "../executor/events";
import { RunEventDecoder } from "./run-event-codec";
import type { StoredRunEvent } from "./run-store";

/** What {@link runPauses} read from a run's record. @internal */
export interface RunPauses {
  /** The interrupts of each of the run's own pauses (its `interrupt` events, not its sub-runs'), in order. */
  pauses: Interrupt[][];
  /**
   * The interrupts of the pause the run waits on now: those of its last pause, unless decisions
   * recorded after it answered it (the run went on). Empty when it never paused.
   */
  waiting: Interrupt[];
  /**
   * The ids of the interrupts of pauses that are over (the run went on past them), except those
   * it waits on now: a decision naming one of them comes late (see docs/serving.md, "Answering a
   * pause").
   */
  over: ReadonlySet<string>;
}

/**
 * Folds a run's recorded events (in `seq` order, as the store returns them) into its pauses:
 * which tool calls each `interrupt` event made the run wait on, and which pause it waits on now.
 * A `decisions` entry answers the pause before it (the run was resumed, as `reduceRun` has it); a
 * sub-run's events are its own. Other events are passed over, so a reader may leave out events
 * it could not read. Throws (a `TypeError`) when a recorded pause cannot be decoded.
 *
 * Shared by the routes that answer a pause (`@agentrx/serve`'s `staleDecisions`) and by the `ui`
 * server of `@agentrx/viewer`, each reading the record its own way.
 *
 * @internal
 *
 * @example
 * ```ts
 * import { runPauses, type RunStore } from "@agentrx/executors";
 * declare const store: RunStore;
 *
 * const { waiting, over } = runPauses("run-1", await store.readEvents("run-1"));
 * console.log(waiting.map((interrupt) => interrupt.id), over.has("call-0-0"));
 * ```
 */
export function runPauses(runId: string, events: Iterable<StoredRunEvent>): RunPauses {
  const decoder = new RunEventDecoder(runId);
  const pauses: Interrupt[][] = [];
  let answered = false;
  for (const stored of events) {
    // Decisions answer the pause before them; what they decided does not matter here, so they are
    // not decoded. A sub-run's entries (tagged with its path, see `RunEventDecoder`) are its own.
    if (stored.type === "decisions") {
      if (!Array.isArray(stored.data["subRun"])) answered = pauses.length > 0;
      continue;
    }
    if (stored.type !== "interrupt") continue;
    const event = decoder.decode(stored);
    if (event.type !== "interrupt" || event.subRun !== undefined) continue;
    pauses.push(event.interrupts);
    answered = false;
  }
  const waiting = answered ? [] : (pauses.at(-1) ?? []);
  const now = new Set(waiting.map((interrupt) => interrupt.id));
  const over = new Set<string>();
  for (const pause of answered ? pauses : pauses.slice(0, -1)) {
    for (const interrupt of pause) if (!now.has(interrupt.id)) over.add(interrupt.id);
  }
  return { pauses, waiting, over };
}
