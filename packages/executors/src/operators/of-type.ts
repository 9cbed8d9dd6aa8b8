import { InvalidArgumentError } from "@agentrx/core";
import { type OperatorFunction, filter } from "rxjs";
import type { AgentStreamEvent } from "../executor/events";

/**
 * Keeps the events of the given types and narrows the event union to them, so what follows in the
 * pipe sees `step`, `token` or `output` fields without a type guard of its own.
 *
 * @param types the event types to keep (`"action"`, `"step"`, `"token"`, `"output"`, ...)
 * @throws InvalidArgumentError when no type is given
 * @example
 * ```ts
 * import { AgentExecutor, ofType } from "@agentrx/executors";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const agent = RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" }));
 * const executor = new AgentExecutor({ agent, tools: [] });
 * executor.stream({ input: "hello" })
 *   .pipe(ofType("output"))
 *   .subscribe((event) => console.log(event.output, event.stopReason)); // "hi" "finish"
 * ```
 */
export function ofType<K extends AgentStreamEvent["type"]>(
  ...types: [K, ...K[]]
): OperatorFunction<AgentStreamEvent, Extract<AgentStreamEvent, { type: K }>> {
  if (types.length === 0 || types.some((type) => typeof type !== "string")) {
    throw new InvalidArgumentError({ argument: "types", value: types, message: `ofType: give one or more event types, such as ofType("step") or ofType("action", "step"), got ${JSON.stringify(types)}.` });
  }
  const wanted = new Set<string>(types);
  return filter((event): event is Extract<AgentStreamEvent, { type: K }> => wanted.has(event.type));
}
