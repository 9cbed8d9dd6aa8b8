/**
 * JSON with object keys sorted at every level, so `{ a, b }` and `{ b, a }` give the same text.
 * Values JSON cannot hold (undefined, functions) are dropped as JSON.stringify drops them.
 *
 * @example
 * ```ts
 * import { stableStringify } from "@agentrx/tools";
 *
 * console.log(stableStringify({ b: 1, a: [2, { d: 3, c: 4 }] })); // {"a":[2,{"c":4,"d":3}],"b":1}
 * ```
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, current: unknown) => {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return current;
    const sorted: Record<string, unknown> = Object.create(null); // so a "__proto__" key stays a key
    for (const key of Object.keys(current).sort()) sorted[key] = (current as Record<string, unknown>)[key];
    return sorted;
  }) ?? "undefined";
}
