import { describe, expect, it } from "vitest";
import { isThenable, refusePromise } from "./refuse-promise";

/** The unhandled rejections Node reports while `run` runs and a macrotask after it (Node reports them once the microtasks are done). */
async function unhandledDuring(run: () => void): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const listener = (reason: unknown): void => void unhandled.push(reason);
  process.on("unhandledRejection", listener);
  try {
    run();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 10));
    return unhandled;
  } finally {
    process.off("unhandledRejection", listener);
  }
}

const throwingGetter = () =>
  Object.defineProperty({}, "then", {
    get() {
      throw new Error("no then for you");
    },
  });

const revokedProxy = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};

const nonThenables: [string, unknown][] = [
  ["undefined", undefined],
  ["null", null],
  ["a number", 42],
  ["a string", "text"],
  ["an object", {}],
  ["an object with a non-function then", { then: 1 }],
  ["a function", () => undefined],
  ["a then getter that throws", throwingGetter()],
  ["a revoked proxy", revokedProxy()],
];

describe("isThenable", () => {
  it("is true for a promise and for a foreign thenable", () => {
    const promise = Promise.resolve(1);
    expect(isThenable(promise)).toBe(true);
    expect(isThenable({ then: () => undefined })).toBe(true);
    const callable = Object.assign(() => undefined, { then: () => undefined });
    expect(isThenable(callable)).toBe(true);
  });

  it.each(nonThenables)("is false, without throwing, for %s", (_, value) => {
    expect(isThenable(value)).toBe(false);
  });
});

describe("refusePromise", () => {
  it("marks a rejected promise handled: no unhandled rejection", async () => {
    let refused: boolean | undefined;
    const unhandled = await unhandledDuring(() => {
      refused = refusePromise(Promise.reject(new Error("async hook threw")));
    });
    expect(refused).toBe(true);
    expect(unhandled).toEqual([]);
  });

  it("marks a foreign thenable handled, one that rejects and one whose then throws", async () => {
    const results: boolean[] = [];
    const unhandled = await unhandledDuring(() => {
      results.push(refusePromise({ then: (_: unknown, reject: (reason: unknown) => void) => reject(new Error("rejected")) }));
      results.push(
        refusePromise({
          then() {
            throw new Error("then threw");
          },
        }),
      );
    });
    expect(results).toEqual([true, true]);
    expect(unhandled).toEqual([]);
  });

  it("gives onRejected the rejection's reason, also a throwing then's error", async () => {
    const reasons: unknown[] = [];
    const reason = new Error("async hook threw");
    const thrown = new Error("then threw");
    refusePromise(Promise.reject(reason), (r) => reasons.push(r));
    refusePromise(
      {
        then() {
          throw thrown;
        },
      },
      (r) => reasons.push(r),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(reasons).toEqual([reason, thrown]);
  });

  it("does not call onRejected for a promise that resolves", async () => {
    const reasons: unknown[] = [];
    expect(refusePromise(Promise.resolve("late"), (r) => reasons.push(r))).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reasons).toEqual([]);
  });

  it("leaves nothing unhandled when onRejected throws", async () => {
    const unhandled = await unhandledDuring(() => {
      refusePromise(Promise.reject(new Error("x")), () => {
        throw new Error("the reporter broke");
      });
    });
    expect(unhandled).toEqual([]);
  });

  it.each(nonThenables)("is false, without throwing or calling onRejected, for %s", async (_, value) => {
    const reasons: unknown[] = [];
    expect(refusePromise(value, (r) => reasons.push(r))).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reasons).toEqual([]);
  });
});
