import { type Interrupt, type RunStore, runPauses } from "@agentrx/executors";

/**
 * What {@link staleDecisions} found: decisions that answer an earlier pause of a run, which is
 * over, while the run waits on a newer one.
 *
 * @example
 * ```ts
 * import type { StaleDecisions } from "@agentrx/serve";
 *
 * const found: StaleDecisions = {
 *   runId: "run-1",
 *   answered: ["call-0-0"],
 *   waiting: [{ id: "call-1-0", tool: "refund", toolInput: { order: "A1" }, iteration: 1, index: 0, reason: "approval" }],
 *   message: 'Run "run-1" paused again: "call-0-0" answers an earlier pause, which is over. It waits on call-1-0 (refund) now: answer that pause.',
 * };
 * ```
 */
export interface StaleDecisions {
  runId: string;
  /** The interrupt ids answered that an earlier pause waited on (it was answered, and the run went on). */
  answered: string[];
  /** The interrupts of the pause the run waits on now. */
  waiting: Interrupt[];
  /** One line that says so and names the pause the run waits on now: the body of a `409`. */
  message: string;
}

/**
 * Whether `decisions` (by interrupt id, as `executor.resume` and `recordDecisions` take them)
 * answer an earlier pause of run `runId` while the run waits on a newer one: a client that
 * answers a pause late (a second tab, a retried request, a stale page) after another answer
 * resumed the run and it paused again. `resume` and `recordDecisions` refuse them as decisions the
 * pause does not wait for (an `InvalidArgumentError`); the request was well-formed but conflicts
 * with the run's state, so a route answers it with `409`, naming the pause the run waits on now,
 * not with the `400` of an interrupt id the run never had (see docs/serving.md). Undefined when
 * the run is not paused or no decision names an earlier pause's interrupt. Rejects when the store
 * fails.
 *
 * @example
 * ```ts
 * import { staleDecisions } from "@agentrx/serve";
 * import type { RunStore } from "@agentrx/executors";
 * declare const store: RunStore;
 *
 * const stale = await staleDecisions(store, "run-1", { "call-0-0": "approve" });
 * if (stale) console.log(409, stale.message, stale.waiting.map((interrupt) => interrupt.id));
 * ```
 */
export async function staleDecisions(store: RunStore, runId: string, decisions: Readonly<Record<string, unknown>>): Promise<StaleDecisions | undefined> {
  if ((await store.getRun(runId))?.status !== "interrupted") return undefined;
  // Read strictly: a store failure or a pause that cannot be decoded rejects.
  const { waiting, over } = runPauses(runId, await store.readEvents(runId));
  const answered = Object.keys(decisions).filter((id) => over.has(id));
  if (answered.length === 0) return undefined;
  const names = answered.map((id) => JSON.stringify(id)).join(", ");
  const calls = waiting.map((interrupt) => `${interrupt.id} (${interrupt.tool})`).join(", ");
  const message = `Run "${runId}" paused again: ${names} ${answered.length === 1 ? "answers" : "answer"} an earlier pause, which is over. It waits on ${calls || "no call"} now: answer that pause.`;
  return { runId, answered, waiting, message };
}
