import { InvalidArgumentError } from "@agentrx/core";
import { AIMessage, type BaseMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { runInboxId } from "./run-inbox";
import { sendRunMessage } from "./send-run-message";

/** A store with one running run, "r", that takes messages. */
async function runningRun(): Promise<InProcessRunStore> {
  const store = new InProcessRunStore();
  await store.createRun({ runId: "r", inputs: {}, status: "running", owner: "o", leaseMs: 60_000, at: Date.now() });
  return store;
}

async function refusal(store: InProcessRunStore, message: unknown): Promise<unknown> {
  return sendRunMessage("r", message, { store, operation: "send" }).then(() => undefined, (error: unknown) => error);
}

describe("sendRunMessage's message", () => {
  it.each([
    ["a HumanMessage of white space", new HumanMessage(" \n\t ")],
    ["a HumanMessage of no content", new HumanMessage("")],
    ["a HumanMessage whose text blocks are blank", new HumanMessage({ content: [{ type: "text", text: "  " }, { type: "text", text: "\n" }] })],
    ["a HumanMessage of no blocks", new HumanMessage({ content: [] })],
  ])("refuses %s as it refuses a blank string, and appends nothing", async (_, message) => {
    const store = await runningRun();
    const error = await refusal(store, message);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/send: `message` must be a non-empty string or a HumanMessage with text or other content \(an image\), got a HumanMessage that is empty or only white space\./);
    expect(await store.readThreadMessages(runInboxId("r"))).toEqual([]);
  });

  it.each([
    ["an AIMessage", new AIMessage("I will check Rome."), 'a message of type "ai" (AIMessage)'],
    ["a SystemMessage", new SystemMessage("Be brief."), 'a message of type "system" (SystemMessage)'],
    ["a ToolMessage", new ToolMessage({ content: "sunny", tool_call_id: "c1" }), 'a message of type "tool" (ToolMessage)'],
    ["a ChatMessage", new ChatMessage({ content: "hi", role: "user" }), 'a message of type "generic" (ChatMessage)'],
  ])("refuses %s: a message joins the run as the user's turn", async (_, message: BaseMessage, got) => {
    const store = await runningRun();
    const error = await refusal(store, message);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`a message joins the run as the user's, so it must be a HumanMessage (or a string), got ${got}`);
    expect(await store.readThreadMessages(runInboxId("r"))).toEqual([]);
  });

  it("takes a HumanMessage with text, and one whose only content is an image", async () => {
    const store = await runningRun();
    await sendRunMessage("r", new HumanMessage({ content: [{ type: "text", text: " Also " }, { type: "text", text: "Rome." }] }), { store, operation: "send" });
    const image = new HumanMessage({ content: [{ type: "text", text: " " }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }] });
    await sendRunMessage("r", image, { store, operation: "send" });
    expect((await store.readThreadMessages(runInboxId("r"))).map((row) => row.seq)).toEqual([1, 2]);
  });
});

describe("sendRunMessage's options", () => {
  it("refuses a misspelt option instead of ignoring it, and names itself when no operation is given", async () => {
    const store = await runningRun();
    await expect(sendRunMessage("r", "hi", { store, maxPending: 0 } as never)).rejects.toThrow("sendRunMessage: unknown option `options.maxPending`. Known options: store, storeTimeoutMs, operation, maxMessageChars, maxPendingMessages.");
    await expect(sendRunMessage("r", "   ", { store })).rejects.toThrow(/^sendRunMessage: /);
    await expect(sendRunMessage("r", "hi", null as never)).rejects.toThrow(InvalidArgumentError);
    expect(await store.readThreadMessages(runInboxId("r"))).toEqual([]);
    expect(await sendRunMessage("r", "hi", { store })).toMatchObject({ runId: "r", inboxSeq: 1 });
  });
});
