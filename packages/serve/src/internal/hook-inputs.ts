import { InvalidArgumentError, isThenable, refusePromise } from "@agentrx/core";

/**
 * What a handler's inputs hook (`inputs` of the AG-UI handler, `toInputs` of the A2A handler)
 * returned, once checked to be the run's inputs: a plain object, returned synchronously. Anything
 * else fails naming the hook; a Promise's rejection, if any, is handled (not left to crash the
 * process).
 *
 * @internal
 */
export function hookInputs(where: string, hook: string, inputs: unknown): Record<string, unknown> {
  if (typeof inputs === "object" && inputs !== null && !Array.isArray(inputs) && !isThenable(inputs)) {
    return inputs as Record<string, unknown>;
  }
  let shown: string;
  if (refusePromise(inputs)) shown = "a Promise";
  else if (Array.isArray(inputs)) shown = "an array";
  else if (typeof inputs === "function") shown = "a function";
  else shown = String(inputs);
  throw new InvalidArgumentError({
    argument: hook,
    value: inputs,
    message: `${where}: \`${hook}\` must return the run's inputs, an object such as { input: "..." }, synchronously; got ${shown}.`,
  });
}
