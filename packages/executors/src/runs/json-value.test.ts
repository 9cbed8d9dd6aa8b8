import { describe, expect, it } from "vitest";
import { decodeValue, encodeValue } from "./json-value";

describe("a recorded value with a key named __proto__", () => {
  it("keeps it as an own key through encoding, JSON and decoding, and sets no prototype", () => {
    const inputs = JSON.parse('{"input":"double 2","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const encoded = encodeValue(inputs);
    expect(JSON.stringify(encoded)).toBe('{"input":"double 2","__proto__":{"polluted":true}}');
    const decoded = decodeValue(JSON.parse(JSON.stringify(encoded))) as Record<string, unknown>;
    expect(Object.keys(decoded)).toEqual(["input", "__proto__"]);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect((decoded as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(decoded, "__proto__")?.value).toEqual({ polluted: true });
  });
});
