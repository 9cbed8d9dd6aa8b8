import { InvalidArgumentError } from "@agentrx/core";
import { runInboxId } from "@agentrx/executors";
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/memory-run-store";
import { ThreadMemory } from "./thread-memory";

describe("ThreadMemory threadId", () => {
  it("refuses a run's inbox as a thread: it cannot read, steer or clear another run's messages", async () => {
    const store = new MemoryRunStore();
    await store.createRun({ runId: "victim", inputs: { input: "hi" }, status: "running", owner: "w", leaseMs: 60_000, at: Date.now() });
    await store.appendRunMessage("victim", { message: { type: "human", data: { content: "sent to the run" } }, tokens: 0, at: Date.now() });
    const memory = new ThreadMemory({ store, maxTokens: 1000 });
    const inbox = runInboxId("victim");
    for (const call of [() => memory.getMessages(inbox), () => memory.addMessages(inbox, [new HumanMessage("injected")]), () => memory.clear(inbox), () => memory.hasRunMessages(inbox, "victim")]) {
      const error = await call().then(() => undefined, (caught: unknown) => caught);
      expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ argument: "threadId", message: expect.stringContaining('must be a thread id that does not start with "agentrx:run-inbox:"') });
    }
    const messages = await store.readThreadMessages(inbox);
    expect(messages.map((message) => (message.message.data as { content: string }).content)).toEqual(["sent to the run"]);
  });
});
