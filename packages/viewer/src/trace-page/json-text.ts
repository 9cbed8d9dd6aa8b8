// Runtime-neutral: bundled into the pages' scripts (the trace page's detail pane, the diff page),
// which do not carry `@agentrx/core`.

/**
 * `value` as JSON (indented by `indent` spaces), else its `String`, else `[object]`; never throws
 * (a cycle, a BigInt, a getter or `toJSON` that throws, an object without a prototype). This is
 * `@agentrx/core`'s `valueToText` with `quoteStrings`, with an indent, for the pages' scripts.
 *
 * @internal
 */
export function jsonText(value: unknown, indent?: number): string {
  try {
    const text = JSON.stringify(value, null, indent);
    if (text !== undefined) return text;
  } catch {
    // its `String`, below
  }
  try {
    return String(value);
  } catch {
    return "[object]"; // an object without a prototype, a `toString` that throws
  }
}
