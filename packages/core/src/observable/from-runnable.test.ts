import { type Runnable, RunnableLambda } from "@langchain/core/runnables";
import { firstValueFrom, lastValueFrom, take, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { AbortError } from "../errors/abort-error";
import { deferred } from "../testing/deferred";
import { fromRunnable } from "./from-runnable";


describe("fromRunnable", () => {
  it("is cold: nothing runs until subscription, and each subscription is its own call", async () => {
    let calls = 0;
    const runnable = RunnableLambda.from((n: number) => {
      calls++;
      return n * 2;
    });
    const observable = fromRunnable(runnable, 21, {}, { mode: "invoke" });
    expect(calls).toBe(0);
    expect(await lastValueFrom(observable)).toBe(42);
    expect(await lastValueFrom(observable)).toBe(42);
    expect(calls).toBe(2);
  });

  it("emits every chunk of a stream in order", async () => {
    const runnable = RunnableLambda.from(async function* (input: string) {
      for (const letter of input) yield letter;
    });
    expect(await lastValueFrom(fromRunnable(runnable, "abc").pipe(toArray()))).toEqual(["a", "b", "c"]);
  });

  it("aborts the call's signal when the subscriber unsubscribes", async () => {
    const started = deferred<AbortSignal>();
    const runnable = RunnableLambda.from((_: string, config) => {
      started.resolve(config.signal as AbortSignal);
      return new Promise<string>(() => undefined);
    });
    const subscription = fromRunnable(runnable, "x", {}, { mode: "invoke" }).subscribe();
    const signal = await started.promise;
    expect(signal.aborted).toBe(false);
    subscription.unsubscribe();
    expect(signal.aborted).toBe(true);
    expect(AbortError.isInstance(signal.reason)).toBe(true);
  });

  it("aborts a stream's signal when a downstream operator has enough", async () => {
    let signal: AbortSignal | undefined;
    const runnable = RunnableLambda.from(async function* (_: undefined, config) {
      signal = config?.signal;
      for (let i = 0; i < 1_000 && !signal?.aborted; i++) yield i;
    });
    expect(await firstValueFrom(fromRunnable(runnable, undefined).pipe(take(3), toArray()))).toEqual([0, 1, 2]);
    expect(signal?.aborted).toBe(true);
  });

  it("links the caller's signal and leaves no listener on it", async () => {
    const parent = new AbortController();
    const added = new Set<unknown>();
    const removed = new Set<unknown>();
    const { addEventListener, removeEventListener } = parent.signal;
    parent.signal.addEventListener = (type: string, listener: never, options?: never) => {
      added.add(listener);
      addEventListener.call(parent.signal, type, listener, options);
    };
    parent.signal.removeEventListener = (type: string, listener: never, options?: never) => {
      removed.add(listener);
      removeEventListener.call(parent.signal, type, listener, options);
    };
    const runnable = RunnableLambda.from((n: number) => n + 1);
    expect(await lastValueFrom(fromRunnable(runnable, 1, { signal: parent.signal }, { mode: "invoke" }))).toBe(2);
    expect(added.size).toBe(1);
    expect(removed).toEqual(added);
  });

  it("aborts the call when the caller's signal aborts", async () => {
    const parent = new AbortController();
    const started = deferred<AbortSignal>();
    const runnable = RunnableLambda.from((_: string, config) => {
      const signal = config.signal as AbortSignal;
      started.resolve(signal);
      return new Promise<string>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    });
    const outcome = lastValueFrom(fromRunnable(runnable, "x", { signal: parent.signal }, { mode: "invoke" })).catch(
      (error: unknown) => error,
    );
    const signal = await started.promise;
    parent.abort("user stop");
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("user stop");
    expect(await outcome).toBeDefined();
  });

  it("delivers errors through the observable", async () => {
    const failure = new Error("tool exploded");
    const runnable = RunnableLambda.from((): number => {
      throw failure;
    });
    await expect(lastValueFrom(fromRunnable(runnable, undefined, {}, { mode: "invoke" }))).rejects.toBe(failure);
    const streaming = RunnableLambda.from(async function* () {
      yield 1;
      throw failure;
    });
    const seen: number[] = [];
    await expect(
      new Promise((resolve, reject) =>
        fromRunnable(streaming as unknown as Runnable<undefined, number>, undefined).subscribe({ next: (value) => seen.push(value), error: reject, complete: () => resolve(undefined) }),
      ),
    ).rejects.toBe(failure);
    expect(seen).toEqual([1]);
  });
});
