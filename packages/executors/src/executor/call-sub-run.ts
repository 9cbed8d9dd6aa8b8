import { InvalidArgumentError, STEP_METADATA_KEY, getIdempotencyKey } from "@agentrx/core";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type Observable, catchError, lastValueFrom, tap, throwError } from "rxjs";
import type { AgentExecutor } from "./agent-executor";
import type { AgentStreamEvent, Decision, Interrupt } from "./events";
import { SubRunInterruptedError } from "../handoff/sub-run-interrupted-error";
import { RunNotFoundError } from "../runs/run-store-errors";
import { SUB_RUN_CALL_KEY, SUB_RUN_DECISIONS_KEY, SUB_RUN_KEY, SUB_RUN_MODEL_CALLS_KEY, type SubRunModelCalls, subRunLink } from "./sub-run";

/** How a tool runs its executor as a sub-run (see {@link callSubRun}). @internal */
export interface CallSubRunOptions {
  /** The tool's name: the sub-run's name in `subRun` paths, and in `SubRunInterruptedError`. */
  tool: string;
  /** The tool as its errors name it, e.g. `handoff "transfer_to_billing"` or `asTool "researcher"`. */
  label: string;
  /**
   * What the sub-run's id starts with, before `:` and the tool call's idempotency key (`handoff`,
   * `as-tool`): a retry of the call (same key) finds the same run.
   */
  runIdPrefix: string;
}

/**
 * Runs `executor` as the sub-run of the tool call `config` belongs to (`handoff`, `asTool`) and
 * gives its answer: its events go up to the calling run (`subRunLink`). With a tool-call key, the
 * sub-run's id is `<runIdPrefix>:<key>`, and a recorded run of that id (a resumed caller's retry)
 * is resumed rather than started again, with the decisions a person gave on its pause when the
 * calling run passes some (`SUB_RUN_DECISIONS_KEY`). A sub-run that pauses has no answer: the call
 * fails with a `SubRunInterruptedError`, `resumable` when a retry finds the run again (the
 * executor has a store, the call a key), which pauses a recorded calling run instead (see
 * docs/agent-types.md, "Pauses inside a handoff"). @internal
 */
export async function callSubRun(executor: AgentExecutor, inputs: Record<string, unknown>, config: RunnableConfig | undefined, options: CallSubRunOptions): Promise<string> {
  const link = subRunLink(config, options.tool);
  let output: Extract<AgentStreamEvent, { type: "output" }> | undefined;
  const waitingOn: string[] = [];
  const interrupts: Interrupt[] = [];
  const run = subRun(executor, inputs, config, link.modelCalls, options);
  await lastValueFrom(
    run.events.pipe(
      tap((event) => {
        if (event.subRun === undefined && event.type === "output") output = event;
        if (event.subRun === undefined && event.type === "interrupt") {
          waitingOn.push(...event.interrupts.map((interrupt) => interrupt.tool));
          interrupts.push(...event.interrupts);
        }
        link.forward(event);
      }),
    ),
  );
  // A paused run has no answer: "" would let the caller go on as if it had answered. A recorded
  // calling run pauses with it instead (when the sub-run can be resumed: `resumable`).
  if (output?.stopReason === "interrupted") throw new SubRunInterruptedError({ tool: options.tool, runId: output.runId, waitingOn, interrupts, resumable: run.resumable() });
  return output?.output ?? "";
}

/**
 * The sub-run's events: resumed (with the calling run's decisions, if any) when a run of its id is
 * recorded, else started. `resumable` says, once it ended, whether it is recorded where a retry
 * finds it.
 */
function subRun(
  executor: AgentExecutor,
  inputs: Record<string, unknown>,
  config: RunnableConfig | undefined,
  modelCalls: SubRunModelCalls | undefined,
  { label, runIdPrefix }: CallSubRunOptions,
): { events: Observable<AgentStreamEvent>; resumable: () => boolean } {
  const child = childConfig(config, modelCalls);
  const key = getIdempotencyKey(config);
  if (key === undefined) return { events: executor.stream(inputs, child), resumable: () => false };
  const runId = `${runIdPrefix}:${key}`;
  const decisions = subRunDecisionsOf(config);
  let recorded = true;
  const fresh = (): Observable<AgentStreamEvent> => executor.stream(inputs, { ...child, runId });
  const resumed = (decisions === undefined ? executor.resume(runId, child) : executor.resume(runId, { ...child, decisions })) as Observable<AgentStreamEvent>;
  const events = resumed.pipe(
    catchError((error: unknown) => {
      // Not recorded (first call; or recorded in another process's in-process store, when a pause's
      // decisions come to this one: it is asked again), or the executor records nowhere: start it.
      if (RunNotFoundError.isInstance(error)) return fresh();
      if (InvalidArgumentError.isInstance(error) && error.argument === "store") {
        recorded = false;
        return fresh();
      }
      if (decisions !== undefined && InvalidArgumentError.isInstance(error) && error.argument === "decisions") {
        // Not paused any more (its value is the run's status: decided with that agent's executor
        // meanwhile, say): it goes on without them, or gives its recorded answer.
        if (typeof error.value === "string") return executor.resume(runId, child) as Observable<AgentStreamEvent>;
        return throwError(() => refusedDecisions(label, runId, error));
      }
      return throwError(() => error);
    }),
  );
  return { events, resumable: () => recorded };
}

/**
 * The sub-run's config: the call's signal and callbacks (so it nests), without the calling run's
 * own keys; with `modelCalls`, where the sub-run reports its model calls. @internal
 */
export function childConfig(config: RunnableConfig | undefined, modelCalls?: SubRunModelCalls): RunnableConfig {
  const out: RunnableConfig = {};
  if (config?.signal) out.signal = config.signal;
  if (config?.callbacks) out.callbacks = config.callbacks;
  if (config?.tags) out.tags = config.tags;
  if (config?.metadata) out.metadata = config.metadata;
  if (config?.configurable) {
    const { [SUB_RUN_KEY]: _sink, [STEP_METADATA_KEY]: _metadata, [SUB_RUN_CALL_KEY]: _call, [SUB_RUN_MODEL_CALLS_KEY]: _calls, [SUB_RUN_DECISIONS_KEY]: _decisions, ...rest } = config.configurable;
    if (Object.keys(rest).length > 0) out.configurable = rest;
  }
  if (modelCalls !== undefined) out.configurable = { ...out.configurable, [SUB_RUN_MODEL_CALLS_KEY]: modelCalls };
  return out;
}

/** The decisions the calling run passes on for its sub-run's pause, by the sub-run's interrupt ids. */
function subRunDecisionsOf(config: RunnableConfig | undefined): Record<string, Decision> | undefined {
  const decisions = config?.configurable?.[SUB_RUN_DECISIONS_KEY] as Record<string, Decision> | undefined;
  return typeof decisions === "object" && decisions !== null ? decisions : undefined;
}

/** The other executor refused the decisions a person gave on its run's pause (an edit its tool's schema refuses, say). */
function refusedDecisions(label: string, runId: string, error: InvalidArgumentError): InvalidArgumentError {
  return new InvalidArgumentError({
    argument: "decisions",
    value: error.value,
    message: `${label}: the other agent's run "${runId}" refused the decisions given on its pause (${error.message.replace(/^AgentExecutor\.resume: /, "")}). Nothing of it ran; it is still paused: decide it with that agent's executor (resume("${runId}", { decisions })).`,
    cause: error,
  });
}
