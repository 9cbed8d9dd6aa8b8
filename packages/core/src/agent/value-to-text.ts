import { kindOfValue } from "./show-value";

/** Options of {@link valueToText}. */
export interface ValueToTextOptions {
  /**
   * Whether a string is written as JSON (`"\"Paris\""`) like any other value, rather than as it is.
   *
   * @default false
   */
  quoteStrings?: boolean;
}

/**
 * A value as text in full, as outputs, observations and traces show one: a string as it is (or
 * quoted, with `quoteStrings`); anything else as its JSON; else (`undefined`, a symbol, a
 * function, a BigInt, a cycle, a getter or `toJSON` that throws) its `String`; else, when
 * `String` throws too (an object without a prototype, a `toString` that throws, a revoked proxy),
 * the kind of value (`an object`, `an array`, `an object without a prototype`). It is never cut
 * and never throws. For a value in an error message, shown short, see {@link showValue}.
 *
 * @param value - Whatever is to be shown.
 * @param options - See {@link ValueToTextOptions}.
 * @returns The text; never throws.
 *
 * @example
 * ```ts
 * import { valueToText } from "@agentrx/core";
 *
 * console.log(valueToText("Sunny")); // "Sunny"
 * console.log(valueToText({ city: "Paris" })); // "{\"city\":\"Paris\"}"
 * console.log(valueToText(10n)); // "10"
 * ```
 */
export function valueToText(value: unknown, options: ValueToTextOptions = {}): string {
  const { quoteStrings = false } = options;
  if (typeof value === "string") return quoteStrings ? JSON.stringify(value) : value;
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    // a cycle, a BigInt, a getter or `toJSON` that throws: its `String`
  }
  try {
    return String(value);
  } catch {
    return kindOfValue(value);
  }
}
