import { InvalidArgumentError } from "@agentrx/core";
import { RunBusyError, RunLeaseLostError, RunNotFoundError, ThreadBusyError, errorMessageOf as messageOf } from "@agentrx/executors";

/** The answer to an action: the HTTP status and its JSON body. */
export interface RunActionResult {
  status: number;
  body: { runId?: string; error?: string };
}

/**
 * A run that is not in the state the request needs (it moved on, or never was): `409`.
 *
 * @internal
 */
export function conflict(error: string): RunActionResult {
  return { status: 409, body: { error } };
}

/**
 * A request the run cannot take whatever its state, the client's mistake: `400`.
 *
 * @internal
 */
export function badRequest(error: string): RunActionResult {
  return { status: 400, body: { error } };
}

/**
 * A failure of the server (its store, a record it cannot read), not of the request: `500`, said
 * in one line, never with a stack.
 *
 * @internal
 */
export function serverError(error: string): RunActionResult {
  return { status: 500, body: { error } };
}

/**
 * A run the store does not have: `404`, naming it.
 *
 * @internal
 */
export function notFound(runId: string): RunActionResult {
  return { status: 404, body: { error: `no run ${JSON.stringify(runId)}` } };
}

/**
 * The answer to a run that failed before it started (see `RunActions`' `start`): `refusal`'s,
 * when it gives one; `404` for a run the store no longer has, named by the error, else `source`
 * (the run acted on: a fork's source, not the fork); `409` when the run's state refused
 * it (another process runs it or took it over, another run of its thread goes on, it is not paused
 * for the decision); `400` for a value the executor or the store refuses, as the server answers
 * it elsewhere. Undefined for anything else (the store failed, a record that cannot be read): the
 * server's failure, not a conflict (docs/trace-viewer.md).
 *
 * @internal
 */
export async function refusedStart(source: string, error: unknown, refusal?: (error: unknown) => Promise<RunActionResult | undefined>): Promise<RunActionResult | undefined> {
  const refused = await refusal?.(error);
  if (refused !== undefined) return refused;
  if (RunNotFoundError.isInstance(error)) return notFound(error.runId ?? source);
  if (RunBusyError.isInstance(error) || RunLeaseLostError.isInstance(error) || ThreadBusyError.isInstance(error)) return conflict(messageOf(error));
  if (InvalidArgumentError.isInstance(error)) return error.argument === "decisions" ? conflict(messageOf(error)) : badRequest(messageOf(error));
  return undefined;
}
