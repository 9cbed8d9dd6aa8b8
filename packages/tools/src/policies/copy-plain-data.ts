const NOT_PLAIN = Symbol("not plain data");

/**
 * A deep copy of `value` when it is plain data: primitives, arrays, objects whose prototype is
 * `Object.prototype` (or null), `Date`, `Map` and `Set`, nested and cyclic alike. Returns
 * `{ copy }`, or undefined for anything else (a class instance, a function, a symbol), which
 * cannot be copied without losing what it is. Only own enumerable string keys are copied.
 */
export function copyPlainData(value: unknown): { copy: unknown } | undefined {
  try {
    return { copy: copy(value, new Map()) };
  } catch (error) {
    if (error === NOT_PLAIN) return undefined;
    throw error;
  }
}

function copy(value: unknown, seen: Map<object, unknown>): unknown {
  if (typeof value === "function" || typeof value === "symbol") throw NOT_PLAIN;
  if (typeof value !== "object" || value === null) return value;
  if (seen.has(value)) return seen.get(value);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(copy(item, seen));
    return out;
  }
  if (value instanceof Date) return new Date(value.getTime());
  if (value instanceof Map) {
    const out = new Map<unknown, unknown>();
    seen.set(value, out);
    for (const [key, item] of value) out.set(copy(key, seen), copy(item, seen));
    return out;
  }
  if (value instanceof Set) {
    const out = new Set<unknown>();
    seen.set(value, out);
    for (const item of value) out.add(copy(item, seen));
    return out;
  }
  const prototype = Object.getPrototypeOf(value) as object | null;
  // Object.prototype (of any realm) has a null prototype; a class's prototype does not.
  if (prototype !== null && Object.getPrototypeOf(prototype) !== null) throw NOT_PLAIN;
  const out = Object.create(prototype) as Record<string, unknown>;
  seen.set(value, out);
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, { value: copy((value as Record<string, unknown>)[key], seen), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
