import { afterEach, describe, expect, it, vi } from "vitest";
import { nextTurn, onNextTurn } from "./on-next-turn";

describe("onNextTurn", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs after the promise jobs queued in the same turn", async () => {
    const order: string[] = [];
    onNextTurn(() => order.push("next turn"));
    void Promise.resolve().then(() => order.push("promise job"));
    order.push("now");
    await nextTurn();
    expect(order).toEqual(["now", "promise job", "next turn"]);
  });

  it("is not held back by fake timers installed after it loaded", async () => {
    vi.useFakeTimers();
    const ran = vi.fn();
    onNextTurn(ran);
    await nextTurn();
    expect(ran).toHaveBeenCalledOnce();
  });
});
