import { InvalidArgumentError } from "@agentrx/core";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/memory-run-store";
import { ThreadMemory } from "./thread-memory";

const oneToken = () => 1;

describe("ThreadMemory cutEvery", () => {
  it("moves the window's start in steps, so growing windows share their beginning", async () => {
    const memory = new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 20, countTokens: oneToken, cutEvery: 10 });
    const starts: string[] = [];
    for (let n = 0; n < 30; n++) {
      await memory.addMessages("t", [new HumanMessage(`q${n}`), new AIMessage(`a${n}`)]);
      starts.push(String((await memory.getMessages("t"))[0]?.content));
    }
    // Without cutEvery the start would move at every turn once the thread passes 20 messages.
    expect(new Set(starts.slice(10)).size).toBeLessThanOrEqual(5);
    for (const count of (await Promise.all([memory.getMessages("t")])).map((window) => window.length)) {
      expect(count).toBeGreaterThan(10);
      expect(count).toBeLessThanOrEqual(20);
    }
    expect(() => new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 5, cutEvery: 0 })).toThrow(/cutEvery must be an integer >= 1/);
  });

  it("keeps a leading system message and never starts on a tool result", async () => {
    // startOn "any": where the step alone puts the start (the default then moves it on to h2, below).
    const memory = new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 6, countTokens: oneToken, cutEvery: 4, includeToolMessages: true, startOn: "any" });
    await memory.addMessages("t", [
      new SystemMessage("sys"),
      new HumanMessage("h1"),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "x", args: {} }] }),
      new ToolMessage({ content: "r1", tool_call_id: "c1" }),
      new AIMessage("a1"),
      new HumanMessage("h2"),
      new AIMessage("a2"),
      new HumanMessage("h3"),
    ]);
    const window = await memory.getMessages("t");
    expect(window[0]?.getType()).toBe("system");
    expect(window[1]?.getType()).not.toBe("tool");
    expect(window.map((message) => String(message.content))).toEqual(["sys", "a1", "h2", "a2", "h3"]);
    const byDefault = new ThreadMemory({ store: memory.store, maxTokens: 6, countTokens: oneToken, cutEvery: 4 });
    expect((await byDefault.getMessages("t")).map((message) => String(message.content))).toEqual(["sys", "h2", "a2", "h3"]);
  });

  it("keeps a thread that fits whole, after a leading system message or a left-out first message too", async () => {
    const withSystem = new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 1000, countTokens: oneToken, cutEvery: 20 });
    await withSystem.addMessages("t", [new SystemMessage("sys"), new HumanMessage("h1"), new AIMessage("a1")]);
    expect((await withSystem.getMessages("t")).map((message) => message.text)).toEqual(["sys", "h1", "a1"]);

    const orphanFirst = new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 1000, countTokens: oneToken, cutEvery: 20, includeToolMessages: true });
    await orphanFirst.addMessages("t", [new ToolMessage({ content: "orphan", tool_call_id: "x" }), new HumanMessage("h1"), new AIMessage("a1")]);
    expect((await orphanFirst.getMessages("t")).map((message) => message.text)).toEqual(["h1", "a1"]);

    // Once the budget cuts the thread, the start moves in steps again (here to seq 21, the 20th message after the system message).
    const cut = new ThreadMemory({ store: new MemoryRunStore(), maxTokens: 16, countTokens: oneToken, cutEvery: 20 });
    await cut.addMessages("t", [new SystemMessage("sys"), ...Array.from({ length: 29 }, (_, index) => new HumanMessage(`m${index + 2}`))]);
    expect((await cut.getMessages("t")).map((message) => message.text)).toEqual(["sys", ...Array.from({ length: 10 }, (_, index) => `m${index + 21}`)]);
  });
});

describe("ThreadMemory unknown options", () => {
  const store = new MemoryRunStore();
  const caught = (make: () => unknown): unknown => {
    try {
      make();
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it("refuses an unknown option (a typo such as includeToolMessage) instead of ignoring it", () => {
    const error = caught(() => new ThreadMemory({ store, maxTokens: 100, includeToolMessage: true } as never));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "includeToolMessage" });
    expect((error as Error).message).toBe("ThreadMemory: unknown option `includeToolMessage`; did you mean `includeToolMessages`? Known options: store, maxTokens, countTokens, includeToolMessages, cutEvery, startOn.");
  });

  it("refuses an unknown option of addMessages (a typo such as runid)", async () => {
    const memory = new ThreadMemory({ store, maxTokens: 100 });
    const error = await memory.addMessages("t1", [new HumanMessage("hi")], { runid: "r1" } as never).catch((thrown: unknown) => thrown);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "options.runid" });
    expect(await store.readThreadMessages("t1")).toEqual([]);
  });
});
