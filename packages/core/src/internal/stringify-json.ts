// JSON.stringify for data of any depth. The built-in one recurses, so a value nested a few
// thousand levels deep (tool-call arguments a model or a test wrote) overflows the stack.

type Frame =
  | { kind: "array"; container: unknown[]; index: number }
  | { kind: "object"; container: Record<string, unknown>; keys: string[]; index: number; first: boolean };

/**
 * `JSON.stringify(value)`, and the same text for values nested too deeply for it: those are
 * written by an iterative walk that honours `toJSON` and boxed primitives, leaves `undefined`,
 * functions and symbols out of objects (`null` in arrays), writes non-finite numbers as `null`,
 * and throws a `TypeError` for a circular structure or a `BigInt`, as `JSON.stringify` does.
 */
export function stringifyJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  return stringifyIteratively(value);
}

function stringifyIteratively(root: unknown): string | undefined {
  const out: string[] = [];
  const stack: Frame[] = [];
  const path = new Set<object>();

  const write = (value: unknown, inArray: boolean): void => {
    if (value === null) {
      out.push("null");
      return;
    }
    switch (typeof value) {
      case "string":
        out.push(JSON.stringify(value));
        return;
      case "number":
        out.push(Number.isFinite(value) ? String(value) : "null");
        return;
      case "boolean":
        out.push(value ? "true" : "false");
        return;
      case "bigint":
        throw new TypeError("Do not know how to serialize a BigInt");
      case "object": {
        if (path.has(value)) throw new TypeError("Converting circular structure to JSON");
        path.add(value);
        if (Array.isArray(value)) {
          out.push("[");
          stack.push({ kind: "array", container: value, index: 0 });
        } else {
          out.push("{");
          const container = value as Record<string, unknown>;
          stack.push({ kind: "object", container, keys: Object.keys(container), index: 0, first: true });
        }
        return;
      }
      default:
        if (inArray) out.push("null");
    }
  };

  const first = prepare(root, "");
  if (isLeftOut(first)) return undefined;
  write(first, false);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.kind === "array") {
      if (frame.index >= frame.container.length) {
        out.push("]");
        path.delete(frame.container);
        stack.pop();
        continue;
      }
      if (frame.index > 0) out.push(",");
      const index = frame.index++;
      write(prepare(frame.container[index], String(index)), true);
      continue;
    }
    if (frame.index >= frame.keys.length) {
      out.push("}");
      path.delete(frame.container);
      stack.pop();
      continue;
    }
    const key = frame.keys[frame.index++] as string;
    const value = prepare(frame.container[key], key);
    if (isLeftOut(value)) continue;
    out.push(`${frame.first ? "" : ","}${JSON.stringify(key)}:`);
    frame.first = false;
    write(value, false);
  }
  return out.join("");
}

/** Applies `toJSON` and unwraps boxed primitives, as `JSON.stringify` does. */
function prepare(value: unknown, key: string): unknown {
  let prepared = value;
  if ((typeof prepared === "object" && prepared !== null) || typeof prepared === "bigint") {
    const toJSON = (prepared as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") prepared = toJSON.call(prepared, key);
  }
  if (prepared instanceof Number || prepared instanceof String || prepared instanceof Boolean) return prepared.valueOf();
  return prepared;
}

function isLeftOut(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}
