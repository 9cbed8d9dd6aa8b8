import type { AgentExecutorResult, AgentStreamEvent, Interrupt } from "@agentrx/executors";
import { Observable, type OperatorFunction } from "rxjs";

/**
 * Keeps a followed run's `output` event and maps it to the result `invoke` gives: the inputs (from
 * the run's `start` event), the return values, the output, the run id, the stop reason, the usage, and the
 * interrupts of a pause. Emits nothing when the stream has no `output` event.
 *
 * @internal
 */
export function toResult(): OperatorFunction<AgentStreamEvent, AgentExecutorResult> {
  return (events) =>
    new Observable<AgentExecutorResult>((subscriber) => {
      let inputs: Record<string, unknown> = {};
      let interrupts: Interrupt[] | undefined;
      return events.subscribe({
        next: (event) => {
          if (event.subRun !== undefined) return; // a sub-run's start, pause and answer are not the run's
          if (event.type === "start") inputs = event.inputs;
          if (event.type === "interrupt") interrupts = event.interrupts;
          if (event.type !== "output") return;
          // A result is not an event: no `type` (see AgentExecutorResult).
          const { type: _input, ...echoed } = inputs;
          const { type: _value, ...returnValues } = event.returnValues;
          const result: AgentExecutorResult = { ...echoed, ...returnValues, output: event.output, runId: event.runId, stopReason: event.stopReason };
          if (event.intermediateSteps) result.intermediateSteps = event.intermediateSteps;
          if (event.usage) result.usage = event.usage;
          if (interrupts && event.stopReason === "interrupted") result.interrupts = interrupts;
          subscriber.next(result);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}
