// What RunClient checks and makes of a call's arguments before anything is recorded or queued:
// inputs that travel as JSON, a resume with nothing to do (or whose job is still queued), and the inputs' two forms (the record's,
// the job's). @internal
import { InvalidArgumentError } from "@agentrx/core";
import { type JsonObject, RunBusyError, type RunInfo, encodeRunEvent, initialRunState, serializeRunState } from "@agentrx/executors";
import { jsonProblem } from "../internal/json-problem";
import { GRACE_MS, type LatestJob, PENDING_STATES } from "./reconcile-run";

/** Refuses `value` when a part of it would not reach the worker as given (see `jsonProblem`); `carrier` says what travels. */
export function refuseNonJson(where: string, value: unknown, path: string, carrier: string): void {
  const problem = jsonProblem(value, path);
  if (problem === undefined) return;
  throw new InvalidArgumentError({
    argument: problem.path,
    value: problem.value,
    message: `${where}: ${problem.path} ${problem.what}, which ${carrier} cannot carry (they travel as JSON). Nothing was queued.`,
  });
}

/**
 * Refuses a resume without decisions that would queue a job with nothing to do: the run finished
 * (a worker would only find its output again), is paused (only decisions move it on), or is
 * running under a live lease (the job would wait for that lease, then find the run ended, or
 * resume a failure nobody asked to retry).
 */
export function refuseIdleResume(where: string, info: RunInfo, now: number): void {
  const { runId, status } = info;
  if (status === "finished") {
    throw new InvalidArgumentError({
      argument: "runId",
      value: runId,
      message: `${where}: run "${runId}" is finished: there is nothing to resume (\`result(runId)\` gives its output; submit a new run to ask again).`,
    });
  }
  if (status === "interrupted") {
    throw new InvalidArgumentError({
      argument: "decisions",
      value: undefined,
      message: `${where}: run "${runId}" is paused for approval: only \`decisions\` for its interrupts move it on (\`result(runId)\` lists them), e.g. resume(runId, { decisions: { [interruptId]: "approve" } }); or cancel it.`,
    });
  }
  if (status === "running" && (info.leaseExpiresAt ?? 0) >= now) {
    throw new RunBusyError({ runId, ...(info.owner === undefined ? {} : { owner: info.owner }), ...(info.leaseExpiresAt === undefined ? {} : { leaseExpiresAt: info.leaseExpiresAt }) });
  }
}

/**
 * Refuses a resume without decisions of a `queued` run whose latest job will still run it (waiting,
 * delayed, or taken by a worker), or that was queued less than `GRACE_MS` before `now` and has no
 * such job yet (the call that queued it, `submit` or a resume with decisions, records the run
 * before it queues the job, and may be queuing it: `reconcile` leaves such a run alone too): a
 * second job would have nothing to do. Such a resume is for a queued run with no job: one whose
 * job Redis lost, or whose decisions `recordDecisions` recorded (it queues no job). Which of the
 * two a run that has no job yet is cannot be told from its record, so the refusal names both.
 */
export function refuseQueuedResume(where: string, info: RunInfo, job: LatestJob, now: number): void {
  if (info.status !== "queued") return;
  const pending = PENDING_STATES.has(job.state);
  if (!pending && info.updatedAt + GRACE_MS <= now) return;
  const message = pending
    ? `${where}: run "${info.runId}" is queued, its job is ${job.state}: a worker ${job.state === "active" ? "has taken it" : "will take it"}, so there is nothing to resume (a resume without decisions is for a queued run whose job Redis lost; cancel the run to stop it).`
    : `${where}: run "${info.runId}" was queued less than a second ago and has no job yet. If \`submit\` or a resume with decisions queued it, its job is being queued (the run is recorded first, then its job) and a worker will take it: there is nothing to resume. If its decisions were recorded with \`recordDecisions\`, which queues no job, call resume(runId) again once it has been queued for a second (\`reconcile()\`, or a follower of the run, queues it then too); a resume with decisions records them and queues the job in one call. Cancel the run to stop it.`;
  throw new InvalidArgumentError({ argument: "runId", value: info.runId, message });
}

/**
 * The inputs as the run's record keeps them for the worker to run on: whole, in the form a run's
 * state is serialized in (messages in `@langchain/core`'s stored form), which `executor.resume`
 * restores a queued run from; as a run started in-process records them (docs/deploying.md, "The
 * API process").
 */
export function recordedInputs(inputs: Record<string, unknown>, runId: string, threadId: string | undefined): JsonObject {
  try {
    return serializeRunState(initialRunState(runId, threadId, inputs)).inputs as JsonObject;
  } catch (cause) {
    throw new InvalidArgumentError({ argument: "inputs", value: inputs, message: `RunClient.submit: \`inputs\` cannot be recorded: ${(cause as Error).message}`, cause });
  }
}

/**
 * The inputs as queue tools show them on the job: as a `start` event records them (an image of
 * more than `MAX_RECORDED_IMAGE_CHARS` of base64 is a text that names it), so that Redis does not
 * hold a second copy of large images. The worker never runs on these (see {@link recordedInputs}).
 */
export function shownInputs(inputs: Record<string, unknown>, runId: string): JsonObject {
  try {
    return encodeRunEvent({ type: "start", runId, inputs, resumed: false, at: 0 })["inputs"] as JsonObject;
  } catch (cause) {
    throw new InvalidArgumentError({ argument: "inputs", value: inputs, message: `RunClient.submit: \`inputs\` cannot be recorded: ${(cause as Error).message}`, cause });
  }
}
