/**
 * A value as an error message shows what was given: a string quoted, a number as written (JSON
 * would write `NaN` and `Infinity` as null), a function as "a function", anything else as JSON
 * where it can be, else its `String`.
 *
 * @internal
 */
export function showValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") return String(value);
  if (typeof value === "function") return "a function";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
