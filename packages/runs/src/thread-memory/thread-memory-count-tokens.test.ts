import { InvalidArgumentError } from "@agentrx/core";
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/memory-run-store";
import { ThreadMemory } from "./thread-memory";

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
  unhandled.length = 0;
});

describe("ThreadMemory countTokens", () => {
  it("refuses a count that is a Promise, naming countTokens, and leaves no rejection unhandled", async () => {
    process.on("unhandledRejection", onUnhandled);
    const store = new MemoryRunStore();
    for (const countTokens of [() => Promise.reject(new Error("tokenizer down")), async () => 3]) {
      const memory = new ThreadMemory({ store, maxTokens: 100, countTokens: countTokens as never });
      const error = await memory.addMessages("t", [new HumanMessage("hello")]).then(() => undefined, (caught: unknown) => caught);
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe("countTokens");
      expect((error as Error).message).toBe(
        "ThreadMemory: countTokens must return a finite number >= 0 (at most Number.MAX_SAFE_INTEGER), synchronously, got a Promise for messages[0] (a human message): count with a synchronous tokenizer, loaded before the ThreadMemory is created (docs/memory.md).",
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([]);
    expect(await store.readThreadMessages("t")).toEqual([]);
  });
});
