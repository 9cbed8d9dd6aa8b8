import { InvalidArgumentError, isThenable } from "@agentrx/core";
import type { Observable } from "rxjs";
import type { AgentStreamEvent } from "../executor/events";

/** The `type` of every run event: the type checker says when `AgentStreamEvent` gains one. */
const EVENT_TYPES: ReadonlySet<string> = new Set(
  Object.keys({
    start: true,
    action: true,
    step: true,
    token: true,
    usage: true,
    compaction: true,
    middleware: true,
    interrupt: true,
    message: true,
    output: true,
  } satisfies Record<AgentStreamEvent["type"], true>),
);

/**
 * Checks, before subscribing, that `events` is a run's events as a function taking them needs: an
 * Observable, such as `executor.stream(inputs)`. Anything else throws an `InvalidArgumentError`
 * that names what it got and what to pass instead: the executor itself, a Promise (an awaited run
 * gives its result, not its events), a run's result, an array of events, a function. What an
 * `executor.invoke(...)` observable emits (the run's result, not its events) can only be told when
 * it comes: check each value with {@link checkRunEvent} for that.
 *
 * @param caller the function the events were given to, which the message starts with
 * @param argument the name of its parameter
 * @param events what was given
 * @example
 * ```ts
 * import { AgentExecutor, checkRunEventStream } from "@agentrx/executors";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const agent = RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" }));
 * const executor = new AgentExecutor({ agent, tools: [] });
 * checkRunEventStream("serve", "events", executor.stream({ input: "hello" })); // passes
 * try {
 *   checkRunEventStream("serve", "events", executor);
 * } catch (error) {
 *   console.log((error as Error).message); // "serve: `events` must be a run's event stream, such as executor.stream({ input }), got an AgentExecutor: pass executor.stream(inputs), not the executor."
 * }
 * ```
 */
export function checkRunEventStream(caller: string, argument: string, events: unknown): asserts events is Observable<AgentStreamEvent> {
  const given = events as { pipe?: unknown; subscribe?: unknown } | null | undefined;
  if (typeof given?.pipe === "function" && typeof given.subscribe === "function") return;
  throw new InvalidArgumentError({
    argument,
    value: events,
    message: `${caller}: \`${argument}\` must be a run's event stream, such as executor.stream({ input }), got ${notAnObservable(events)}.`,
  });
}

/**
 * Checks a value a run's events gave, as a function mapping them (to a protocol, a trace) gets it:
 * a run event (an object whose `type` is an `AgentStreamEvent`'s) passes; anything else throws an
 * `InvalidArgumentError` naming it, so that the function fails there instead of leaving the value
 * out, and a run's answer is never lost to a value it does not map. The result of a run, which is
 * what an `executor.invoke(...)` observable emits, is refused with "pass `executor.stream(...)`, not
 * `executor.invoke(...)`". Call it in the subscriber's `next` and deliver what it throws with
 * `subscriber.error` (see {@link checkRunEventStream} for the check made before subscribing).
 *
 * @param caller the function the events were given to, which the message starts with
 * @param argument the name of its parameter
 * @param value a value the events emitted
 * @example
 * ```ts
 * import { checkRunEvent } from "@agentrx/executors";
 *
 * checkRunEvent("myMapper", "events", { type: "token", iteration: 0, at: 0, text: "Hi" }); // passes
 * const result = { output: "Hi", stopReason: "finish", runId: "run-1" }; // what executor.invoke(...) emits
 * try {
 *   checkRunEvent("myMapper", "events", result);
 * } catch (error) {
 *   console.log((error as Error).message); // "myMapper: `events` emitted a run's result (what executor.invoke(...) emits), not its events: pass `executor.stream(...)`, not `executor.invoke(...)`."
 * }
 * ```
 */
export function checkRunEvent(caller: string, argument: string, value: unknown): asserts value is AgentStreamEvent {
  if (typeof value === "object" && value !== null && EVENT_TYPES.has((value as { type?: unknown }).type as string)) return;
  const message = isRunResult(value)
    ? `${caller}: \`${argument}\` emitted a run's result (what executor.invoke(...) emits), not its events: pass \`executor.stream(...)\`, not \`executor.invoke(...)\`.`
    : `${caller}: \`${argument}\` emitted ${notAnEvent(value)}, which is not a run event (an AgentStreamEvent, as executor.stream(...) emits): pass a run's events.`;
  throw new InvalidArgumentError({ argument, value, message });
}

/** A run's result, as `invoke` emits it and an awaited run gives it: `output`, `stopReason` and `runId`, and no `type`. */
function isRunResult(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const result = value as Record<string, unknown>;
  return result["type"] === undefined && typeof result["output"] === "string" && typeof result["stopReason"] === "string" && typeof result["runId"] === "string";
}

/** What a value that is not a run event is, for a message. */
function notAnEvent(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== "object") return `a ${typeof value}`;
  if (Array.isArray(value)) return "an array";
  const type = (value as { type?: unknown }).type;
  return typeof type === "string" ? `an object of type ${JSON.stringify(type)}` : "an object without a `type`";
}

/** What a value that is not an Observable is, and what to pass instead, for a message. */
function notAnObservable(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "function") return "a function: pass executor.stream(inputs), the events of a run, not a function";
  if (typeof value !== "object") return `a ${typeof value}`;
  if (Array.isArray(value)) return "an array: pass executor.stream(inputs), or from(events) (rxjs) for events you hold";
  const given = value as Record<string, unknown>;
  if (typeof given["stream"] === "function" && typeof given["invoke"] === "function") {
    const name = typeof given.constructor === "function" && given.constructor.name !== "" && given.constructor.name !== "Object" ? given.constructor.name : "executor";
    return `${/^[aeiou]/i.test(name) ? "an" : "a"} ${name}: pass executor.stream(inputs), not the executor`;
  }
  if (isThenable(value)) return "a Promise: pass executor.stream(inputs) itself (an awaited run gives its result, not its events)";
  if (isRunResult(value)) return "a run's result: pass executor.stream(inputs), not the result of executor.invoke(inputs)";
  return "an object that is not an Observable";
}
