import { afterEach, describe, expect, it, vi } from "vitest";
import { randomUuid } from "./random-uuid";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("randomUuid", () => {
  it("uses crypto.randomUUID where there is one", () => {
    expect(randomUuid()).toMatch(V4);
  });

  it("builds a version 4 UUID from getRandomValues where randomUUID is missing (an insecure page)", () => {
    const real = crypto;
    vi.stubGlobal("crypto", { getRandomValues: (array: Uint8Array) => real.getRandomValues(array) });
    const ids = new Set(Array.from({ length: 200 }, () => randomUuid()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(V4);
  });
});
