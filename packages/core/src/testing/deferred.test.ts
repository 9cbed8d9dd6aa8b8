import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { deferred, latch } from "./deferred";

describe("deferred", () => {
  it("settles from outside, with a value or an error", async () => {
    const ok = deferred<number>();
    ok.resolve(42);
    await expect(ok.promise).resolves.toBe(42);
    const bad = deferred();
    bad.reject(new Error("no"));
    await expect(bad.promise).rejects.toThrow("no");
  });
});

describe("latch", () => {
  it("opens only when every party has arrived", async () => {
    const gate = latch(2);
    let opened = false;
    const first = gate.arrive().then(() => {
      opened = true;
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(opened).toBe(false);
    expect(gate.arrived).toBe(1);
    await Promise.all([gate.arrive(), first]);
    expect(opened).toBe(true);
    expect(gate.arrived).toBe(2);
  });
});

describe("latch, its count", () => {
  it.each([Number.NaN, 1.5, -1, Infinity, 2 ** 53, "2"])("refuses %s with an InvalidArgumentError naming it", (count) => {
    let error: unknown;
    try {
      latch(count as number);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "count", value: count });
    expect((error as Error).message).toContain(`latch: \`count\` must be a whole number of parties >= 0, got ${typeof count === "string" ? `"${count}"` : String(count)}.`);
  });

  it("of 0 is open from the start", async () => {
    const gate = latch(0);
    let opened = false;
    void gate.arrive().then(() => (opened = true));
    await Promise.resolve();
    expect(opened).toBe(true);
    expect(gate.arrived).toBe(1);
  });
});
