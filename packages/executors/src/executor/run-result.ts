// A run's events as its result: what `invoke` resolves with, and what an awaited `stream`, `resume`
// or `fork` settles as. @internal
import { Observable, type OperatorFunction, type Subscriber } from "rxjs";
import type { AgentExecutorResult } from "./agent-executor-options";
import type { AgentStreamEvent, Interrupt, OutputEvent } from "./events";
import type { RunSubscriber } from "./run-ending";
import { noteAwaitedRunId } from "./run-observable";

/**
 * A run's subscriber that keeps the `output` event and passes it on as the result, straight to
 * `destination` (what `invoke` hands a run: no operator's observable and subscriber per run).
 * Without `inputs`, they come from the run's `start` event (a resumed run's). @internal
 */
export class ResultSink implements RunSubscriber {
  private interrupts: Interrupt[] | undefined;
  private seen: Record<string, unknown>;

  constructor(
    private readonly destination: Subscriber<AgentExecutorResult>,
    private readonly inputs: Record<string, unknown> | undefined,
  ) {
    this.seen = inputs ?? {};
  }

  get closed(): boolean {
    return this.destination.closed;
  }

  next(event: AgentStreamEvent): void {
    if (event.subRun !== undefined) return; // a sub-run's start, pause and answer are not the run's
    if (event.type === "start") {
      if (this.inputs === undefined) this.seen = event.inputs;
      noteAwaitedRunId(this.destination, event.runId); // an awaited run that fails still says which run it was
    } else if (event.type === "interrupt") this.interrupts = event.interrupts;
    else if (event.type === "output") {
      const result = toResult(this.seen, event);
      if (this.interrupts) result.interrupts = this.interrupts;
      this.destination.next(result);
    }
  }

  error(error: unknown): void {
    this.destination.error(error);
  }

  complete(): void {
    this.destination.complete();
  }
}

/**
 * Keeps the `output` event and maps it to the result (`filter` + `map` in one operator). Without
 * `inputs`, they come from the run's `start` event (a resumed run's). @internal
 */
export function toResultOf(inputs: Record<string, unknown> | undefined): OperatorFunction<AgentStreamEvent, AgentExecutorResult> {
  return (events) => new Observable<AgentExecutorResult>((subscriber) => events.subscribe(new ResultSink(subscriber, inputs)));
}

function toResult(inputs: Record<string, unknown>, event: OutputEvent): AgentExecutorResult {
  // Copied key by key, not with `{ ...inputs, ...returnValues, output, ... }`: V8 (Node 20) builds
  // an object spread and then given more keys on a slow path, some 3 µs a result.
  const result = {} as AgentExecutorResult;
  copyEchoed(result, inputs);
  copyEchoed(result, event.returnValues);
  result.output = event.output;
  result.runId = event.runId;
  result.stopReason = event.stopReason;
  if (event.intermediateSteps) result.intermediateSteps = event.intermediateSteps;
  if (event.usage) result.usage = event.usage;
  if (event.stoppedBy !== undefined) result.stoppedBy = event.stoppedBy;
  if (event.generateError !== undefined) result.generateError = event.generateError;
  return result;
}

/**
 * Copies `source`'s own enumerable keys into `target`, as a spread does (a `__proto__` key too, as
 * an own property), except `type`: a result is not an event (see AgentExecutorResult).
 */
function copyEchoed(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const key of Object.keys(source)) {
    if (key === "type") continue;
    if (key === "__proto__") Object.defineProperty(target, key, { value: source[key], enumerable: true, writable: true, configurable: true });
    else target[key] = source[key];
  }
}
