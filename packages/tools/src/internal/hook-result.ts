import { isThenable, valueToText } from "@agentrx/core";

/** A hook's result as error messages show it: `a Promise`, `a function`, else its JSON, else its string; never throws. */
export function shownResult(value: unknown): string {
  if (isThenable(value)) return "a Promise";
  if (typeof value === "function") return "a function";
  return valueToText(value, { quoteStrings: true });
}
