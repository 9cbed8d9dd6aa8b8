import type { AgentStep } from "@agentrx/core";
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { sameTurn } from "./same-turn";

/** A model message calling `ids`, as the model gave it (with `id`) or as a record rebuilds it. */
const message = (ids: string[], id?: string) => new AIMessage({ content: "", ...(id === undefined ? {} : { id }), tool_calls: ids.map((call) => ({ id: call, name: "t", args: {} })) });
const step = (toolCallId: string, log: AIMessage): AgentStep => ({ action: { tool: "t", toolInput: {}, log: "", toolCallId, messageLog: [log] } as AgentStep["action"], observation: "ok" });

describe("sameTurn", () => {
  it("the calls of one message are one turn: the same object, or copies of it (a run rebuilt from its record)", () => {
    const shared = message(["c1", "c2"]);
    expect(sameTurn(step("c1", shared), step("c2", shared))).toBe(true);
    // Copies with the message's id, and copies without one (Gemini's messages have none).
    expect(sameTurn(step("c1", message(["c1", "c2"], "m1")), step("c2", message(["c1", "c2"], "m1")))).toBe(true);
    expect(sameTurn(step("c1", message(["c1", "c2"])), step("c2", message(["c1", "c2"])))).toBe(true);
  });

  it("two messages are two turns, and so is a call id seen again (a model that reuses its ids)", () => {
    expect(sameTurn(step("c1", message(["c1"])), step("c2", message(["c2"])))).toBe(false);
    expect(sameTurn(step("c1", message(["c1", "c2"], "m1")), step("c2", message(["c1", "c2"], "m2")))).toBe(false);
    expect(sameTurn(step("c1", message(["c1"])), step("c1", message(["c1"])))).toBe(false);
    // A step without a model message (a handled parsing error, a message sent to the run) is a turn of its own.
    const text: AgentStep = { action: { tool: "_Exception", toolInput: "", log: "" }, observation: "fix it" };
    expect(sameTurn(text, step("c1", message(["c1"])))).toBe(false);
    expect(sameTurn(step("c1", message(["c1"])), text)).toBe(false);
  });
});
