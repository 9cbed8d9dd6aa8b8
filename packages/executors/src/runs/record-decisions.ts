import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { checkDecisions } from "../executor/approvals";
import type { Decision } from "../executor/events";
import { restoreRunState } from "./restore-run-state";
import { encodeDecisions } from "./run-event-codec";
import { ownerId } from "./run-recorder";
import type { RunInfo, RunStore, RunUpdate, StoredRunEvent } from "./run-store";
import { RunBusyError, RunNotFoundError } from "./run-store-errors";
import { guarded, withStoreTimeout } from "./with-store-timeout";

/** Options of {@link recordDecisions}. */
export interface RecordDecisionsOptions {
  /**
   * The tools of the executor that will go on with the run: an edited input (`{ type: "edit" }`)
   * is checked against its tool's schema, as `resume` checks it. Without them an edit is checked
   * for its shape and size only; a tool checks its input when it is called, and input its schema
   * refuses becomes the call's observation (the tool does not run).
   * @default []
   */
  tools?: readonly StructuredToolInterface[];
  /** The lease holder while the decisions are written (a process-unique id). @default a fresh id */
  owner?: string;
  /** How long the lease taken to write them lasts, in ms (the write gives it up at once). @default 10_000 */
  leaseMs?: number;
  /** How long each store call may take, in ms, before it fails with `RunStoreError` (`reason: "timeout"`). @default 10_000 */
  storeTimeoutMs?: number;
  /** What error messages name as the call (e.g. `RunClient.resume`). @default "recordDecisions" */
  operation?: string;
}

/** What {@link recordDecisions} recorded. */
export interface RecordedDecisionsWrite {
  /** The decisions as checked and recorded, by interrupt id (`"approve"` stays `"approve"`). */
  decisions: Record<string, Decision>;
  /** The `seq` of the `decisions` entry in the run's record. */
  seq: number;
  /** The run's epoch (fencing token) after the write; undefined from a store without epochs. */
  epoch: number | undefined;
}

/** The options {@link recordDecisions} takes, checked against the interface by `satisfies`. */
const KNOWN_OPTIONS = Object.keys({ tools: true, owner: true, leaseMs: true, storeTimeoutMs: true, operation: true } satisfies Record<keyof RecordDecisionsOptions, true>);

/**
 * Records a person's decisions on a paused run in its store, durably, without running anything:
 * the run's record gets the same `decisions` entry `resume(runId, { decisions })` writes, and the
 * run becomes `queued`. Whoever resumes it next (`executor.resume(runId)`, without decisions: a
 * worker, `RunClient.reconcile`) goes on with them: approved calls run, rejected ones get their
 * rejection as their observation, as if it had been resumed with them. For an API process that
 * accepts decisions and leaves the run to a worker (see docs/deploying.md, "Approval"): once this
 * resolves the decisions survive any process and any queue.
 *
 * The decisions are checked as `resume` checks them (`checkDecisions`: every id must be waiting,
 * every decision well-formed; edits against the `tools` given), against the pause read from the
 * record, before anything is written. The run is then claimed (compare-and-set on its lease,
 * which raises its epoch), and the entry and the new status are written in one write fenced by
 * that epoch. A pause is decided once: when another process claimed the run between the read
 * and the claim (another decision, a cancel, a worker), nothing is written and the call is refused.
 *
 * @throws InvalidArgumentError (rejects) naming the interrupt and what is wrong with its decision,
 *   or when the run is not paused for approval (finished, running, queued, or decided already,
 *   also by another process at the same time); nothing is written then
 * @throws RunNotFoundError (rejects) for an unknown run
 * @throws RunStoreError (rejects) when the store fails; when the final write fails, the run stays
 *   paused (or the write landed and it is `queued`): its record says which
 *
 * @example
 * ```ts
 * import { recordDecisions, type RunStore } from "@agentrx/executors";
 *
 * async function approve(store: RunStore, runId: string, interruptId: string): Promise<void> {
 *   await recordDecisions(store, runId, { [interruptId]: "approve" });
 *   // The run is `queued`: `executor.resume(runId, { store })` runs the approved call.
 * }
 * ```
 */
export async function recordDecisions(store: RunStore, runId: string, decisions: unknown, options: RecordDecisionsOptions = {}): Promise<RecordedDecisionsWrite> {
  const where = typeof options?.operation === "string" && options.operation !== "" ? options.operation : "recordDecisions";
  checkArguments(where, store, runId, options);
  const { tools = [], owner = ownerId(), leaseMs = 10_000, storeTimeoutMs = 10_000 } = options;
  const guard = <T>(operation: string, call: () => Promise<T>): Promise<T> => guarded(operation, runId, () => withStoreTimeout(call(), storeTimeoutMs, operation, runId));

  // Checked against the pause as recorded, before anything is written (the claim is a write).
  const info = await guard("getRun", () => store.getRun(runId));
  if (info === undefined) throw new RunNotFoundError({ operation: where, runId });
  if (info.status !== "interrupted") throw notPaused(where, runId, `is ${info.status}`);
  const restored = restoreRunState(info, await guard("readEvents", () => store.readEvents(runId)), where);
  if (restored.pause === undefined) throw notPaused(where, runId, "has its decisions recorded already");
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const checked = renamed(where, () => checkDecisions(runId, decisions, restored.state.interrupts, toolsByName));
  for (const [id, decision] of Object.entries(checked)) {
    // Without the tool's schema an edit without an input would pass; the call would then run with none.
    if (typeof decision === "object" && decision.type === "edit" && decision.toolInput === undefined) {
      throw new InvalidArgumentError({ argument: "decisions", value: decisions, message: `${where}: the edit decision for "${id}" has no \`toolInput\` (the input the call is to run with). Nothing was recorded.` });
    }
  }
  if (Object.keys(checked).length === 0) {
    throw new InvalidArgumentError({ argument: "decisions", value: decisions, message: `${where}: \`decisions\` is empty: give a decision for at least one of the waiting interrupts (${restored.state.interrupts.map((interrupt) => interrupt.id).join(", ")}).` });
  }

  let claimed: RunInfo;
  try {
    claimed = await guard("claimRun", () => store.claimRun(runId, { owner, leaseMs, at: Date.now() }));
  } catch (error) {
    // Another process holds the paused run: deciding it, cancelling it, or resuming it.
    if (RunBusyError.isInstance(error)) throw notPaused(where, runId, `is being taken by another process (${error.owner ?? "unknown owner"}) at the same time`, error);
    throw error;
  }
  const epoch = typeof claimed.epoch === "number" ? claimed.epoch : undefined;
  const write = (events: StoredRunEvent[], update: RunUpdate) =>
    guard("write", () => store.write(runId, { owner, leaseMs, events, update: { ...update, release: true }, at: Date.now(), ...(epoch === undefined ? {} : { epoch }) }));
  // Still the pause checked above: its record has not moved on, and nobody ended it (a run left
  // `running` by a process that took it, then stopped, is that pause too: the claim fenced it out).
  const unchanged = claimed.eventCount === restored.lastSeq && (claimed.status === "interrupted" || claimed.status === "running");
  if (!unchanged) {
    // It moved on between the read and the claim (another process decided or cancelled it): given
    // back as the claim found it, and refused.
    await write([], givenBack(claimed)).catch(() => undefined);
    throw notPaused(where, runId, claimed.status === "interrupted" ? "was decided by another process at the same time" : `is ${claimed.status} now (another process went on with it at the same time)`);
  }
  const at = Date.now();
  const seq = restored.lastSeq + 1;
  const entry = encodeDecisions({ type: "decisions", at, decisions: checked });
  // Not given back when this write fails: it may have landed (a timeout), and a run given back as
  // paused with its decisions recorded could be neither decided nor resumed. The lease lapses in
  // `leaseMs`; whoever resumes the run then finds it paused, or queued with these decisions.
  await write([{ seq, type: "decisions", at, data: entry }], { status: "queued" });
  return { decisions: checked, seq, epoch };
}

function checkArguments(where: string, store: RunStore, runId: string, options: RecordDecisionsOptions): void {
  if (typeof store !== "object" || store === null || typeof store.claimRun !== "function" || typeof store.write !== "function") {
    throw new InvalidArgumentError({ argument: "store", value: store, message: `${where}: \`store\` must be a RunStore (e.g. a PostgresRunStore of @agentrx/runs).` });
  }
  if (typeof runId !== "string" || runId === "") {
    throw new InvalidArgumentError({ argument: "runId", value: runId, message: `${where}: \`runId\` must be a non-empty string, got ${JSON.stringify(runId)}.` });
  }
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({ argument: "options", value: options, message: `${where}: \`options\` must be an object.` });
  }
  checkOptionKeys(where, options, KNOWN_OPTIONS, "options.");
  const { tools, owner, leaseMs, storeTimeoutMs } = options;
  if (tools !== undefined && (!Array.isArray(tools) || tools.some((tool) => typeof (tool as { name?: unknown })?.name !== "string"))) {
    throw new InvalidArgumentError({ argument: "tools", value: tools, message: `${where}: \`options.tools\` must be an array of tools (each with a \`name\`).` });
  }
  if (owner !== undefined && (typeof owner !== "string" || owner === "")) {
    throw new InvalidArgumentError({ argument: "owner", value: owner, message: `${where}: \`options.owner\` must be a non-empty string.` });
  }
  for (const [name, value] of [["leaseMs", leaseMs], ["storeTimeoutMs", storeTimeoutMs]] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
      throw new InvalidArgumentError({ argument: name, value, message: `${where}: \`options.${name}\` must be an integer >= 1 (milliseconds), got ${String(value)}.` });
    }
  }
}

/** `check()`, with a refusal worded for `where` (`checkDecisions` words them for `AgentExecutor.resume`). */
/** The write that gives a claim back, leaving the run as the claim found it (its status and its `error`, which the claim cleared). */
function givenBack(before: RunInfo): RunUpdate {
  if (before.status === "running") return { status: "cancelled", error: "The run had been left running by a process that stopped; a decision on it was refused." };
  return { status: before.status, ...(before.error === undefined ? {} : { error: before.error }) };
}

function renamed<T>(where: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!InvalidArgumentError.isInstance(error)) throw error;
    const message = error.message.replace(/^AgentExecutor\.resume: /, `${where}: `);
    throw new InvalidArgumentError({ argument: error.argument, value: error.value, message: `${message}${/Nothing ran\.$/.test(message) ? "" : " Nothing was recorded."}`, cause: error });
  }
}

function notPaused(where: string, runId: string, how: string, cause?: unknown): InvalidArgumentError {
  return new InvalidArgumentError({
    argument: "decisions",
    value: runId,
    message: `${where}: run "${runId}" ${how}, not paused for approval: there is nothing to decide (a pause is decided once). Nothing was recorded.`,
    ...(cause === undefined ? {} : { cause }),
  });
}
