/**
 * The deepest nesting of objects and arrays accepted in a tool call's arguments. Deeper ones (a
 * model can write thousands of levels of valid JSON) are refused before anything recursive
 * (`JSON.stringify`, schema validation, the executor's records) could run out of stack on them.
 */
export const MAX_ARGUMENT_DEPTH = 100;

/**
 * Whether `value` nests objects and arrays more than `max` levels deep (`{}` is one level,
 * `{"a": []}` two). Iterative, stops as soon as it knows, and visits every object at most once
 * per depth it is reached at, so a shared or circular reference cannot make it loop.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const seen = new Map<object, number>();
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    if (depth > max) return true;
    if ((seen.get(current) ?? 0) >= depth) continue;
    seen.set(current, depth);
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
