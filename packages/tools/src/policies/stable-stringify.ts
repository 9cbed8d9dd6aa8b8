/**
 * JSON with object keys sorted at every level, so `{ a, b }` and `{ b, a }` give the same text.
 * JSON values come out exactly as `JSON.stringify` writes them (keys sorted), but for `-0`. Values JSON cannot
 * hold, or cannot tell apart, get unquoted tags that `JSON.stringify` never writes, so two
 * different values never share a text: `NaN`, `Infinity`, `-Infinity`, `-0`, `12n` (bigint),
 * `Map(...)` and `Set(...)` (entries in a stable order), `undefined` in arrays, `[Circular]`, and an
 * object with a `toJSON` method (a `Date`, a `URL`) as its JSON inside its class's name,
 * `Date("1970-01-01T00:00:00.000Z")`, so it never shares a text with the string it turns into.
 * Properties whose value is undefined, a function or a symbol are left out, as `JSON.stringify`
 * leaves them out.
 *
 * @example
 * ```ts
 * import { stableStringify } from "@agentrx/tools";
 *
 * console.log(stableStringify({ b: 1, a: [2, { d: 3, c: 4 }] })); // {"a":[2,{"c":4,"d":3}],"b":1}
 * ```
 */
export function stableStringify(value: unknown): string {
  return encode(value, new Set()) ?? "undefined";
}

const sortedTexts = (texts: string[]) => texts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

// Returns undefined for what JSON.stringify leaves out of objects (undefined, functions, symbols).
function encode(value: unknown, open: Set<object>): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (Object.is(value, -0)) return "-0"; // JSON.stringify writes 0: -0 is another argument (1 / x, Math.atan2)
      return Number.isFinite(value) ? JSON.stringify(value) : String(value);
    case "bigint":
      return `${value}n`;
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return "null";
  const object = value as object;
  if (open.has(object)) return "[Circular]";
  open.add(object);
  try {
    if (typeof (object as { toJSON?: unknown }).toJSON === "function") {
      // A Date and its ISO string are different arguments (a tool may tell them apart): tagged with the class.
      const name = (object as { constructor?: { name?: unknown } }).constructor?.name;
      return `${typeof name === "string" && name ? name : "Object"}(${encode((object as { toJSON: (key: string) => unknown }).toJSON(""), open) ?? "undefined"})`;
    }
    if (Array.isArray(object)) return `[${object.map((item) => encode(item, open) ?? "undefined").join(",")}]`;
    if (object instanceof Map) {
      const entries = [...object].map(([key, item]) => `[${encode(key, open) ?? "undefined"},${encode(item, open) ?? "undefined"}]`);
      return `Map(${sortedTexts(entries).join(",")})`;
    }
    if (object instanceof Set) return `Set(${sortedTexts([...object].map((item) => encode(item, open) ?? "undefined")).join(",")})`;
    const members: string[] = [];
    for (const key of Object.keys(object).sort()) {
      const text = encode((object as Record<string, unknown>)[key], open);
      if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${members.join(",")}}`;
  } finally {
    open.delete(object);
  }
}
