import { InvalidArgumentError } from "@agentrx/core";
import { MemoryRunStore } from "@agentrx/runs";
import { EMPTY } from "rxjs";
import { describe, expect, it } from "vitest";
import { displayRun, renderTracePage, startUiServer } from "./index";

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(InvalidArgumentError.isInstance(error)).toBe(true);
  return error as Error;
}

describe("the viewer's entry points refuse an option they do not take", () => {
  it("startUiServer: before it listens", async () => {
    const store = new MemoryRunStore();
    const error = await rejection(startUiServer({ store, source: "memory", port: 0, pollms: 50 } as never));
    expect(error.message).toBe("startUiServer: unknown option `pollms`; did you mean `pollMs`? Known options: store, source, port, host, pollMs, listLimit, onError, executor.");
  });

  it("renderTracePage and displayRun", async () => {
    const store = new MemoryRunStore();
    await store.createRun({ runId: "r1", inputs: { input: "hi" }, status: "queued", at: 1 });
    expect((await rejection(renderTracePage(store, "r1", { sources: "x" } as never))).message).toMatch(/renderTracePage: unknown option `sources`; did you mean `source`\? Known options: source, textBudget\./);
    expect(await renderTracePage(store, "r1", { source: "memory", textBudget: 1000 })).toContain("<html");
    expect((await rejection(displayRun(EMPTY, { throttle: 10 } as never))).message).toMatch(/displayRun: unknown option `throttle`; did you mean `throttleMs`\? Known options: live, store, throttleMs, traceHeight\./);
  });
});
