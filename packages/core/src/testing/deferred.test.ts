import { describe, expect, it } from "vitest";
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
