import { describe, expect, it } from "vitest";
import { copyPlainData } from "./copy-plain-data";

describe("copyPlainData", () => {
  it("copies plain data deeply, cycles and null prototypes included", () => {
    const value: Record<string, unknown> = { n: 1, s: "a", list: [1, { b: null }], map: new Map([["k", { v: 1 }]]), when: new Date(5), big: 2n, none: undefined };
    value.self = value;
    const bare = Object.assign(Object.create(null) as object, { x: 1 });
    const { copy } = copyPlainData({ value, bare })! as { copy: { value: typeof value; bare: { x: number } } };
    expect(copy.value).not.toBe(value);
    expect(copy.value.self).toBe(copy.value);
    expect(copy.value.list).toEqual([1, { b: null }]);
    expect(copy.value.list).not.toBe(value.list);
    expect((copy.value.map as Map<string, unknown>).get("k")).not.toBe((value.map as Map<string, unknown>).get("k"));
    expect(copy.value.when).toEqual(new Date(5));
    expect(Object.getPrototypeOf(copy.bare)).toBeNull();
    expect(copyPlainData("text")).toEqual({ copy: "text" });
  });

  it("returns undefined for what it cannot copy without changing it", () => {
    class Thing {}
    for (const value of [new Thing(), { nested: [new Thing()] }, () => 1, { f: () => 1 }, Symbol("s"), new Uint8Array(2)]) {
      expect(copyPlainData(value)).toBeUndefined();
    }
  });
});
