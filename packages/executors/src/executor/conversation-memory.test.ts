import type { AgentStep } from "@agentrx/core";
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { runMessages } from "./conversation-memory";

/** Steps of one turn of calls `ids`; `copies`: each with its own copy of the message (a run rebuilt from its record). */
function turn(ids: string[], copies: boolean): AgentStep[] {
  const make = () => new AIMessage({ content: "", tool_calls: ids.map((id) => ({ id, name: "weather", args: {} })) });
  const shared = make();
  return ids.map((id) => ({ action: { tool: "weather", toolInput: {}, log: "", toolCallId: id, messageLog: [copies ? make() : shared] }, observation: `sunny ${id}` }) as AgentStep);
}

describe("runMessages", () => {
  it.each([
    ["live (one message object)", false],
    ["rebuilt from its record (a copy per step, no id)", true],
  ])("puts each turn's model message in once, before its results: %s", (_, copies) => {
    const steps = [...turn(["a1", "a2"], copies), ...turn(["b1"], copies)];
    const messages = runMessages({ input: "Weather?" }, "input", steps, "Sunny.");
    expect(messages.map((message) => `${message.getType()}${(message as AIMessage).tool_calls?.length ? `:${(message as AIMessage).tool_calls?.length}` : ""}`)).toEqual([
      "human",
      "ai:2",
      "tool",
      "tool",
      "ai:1",
      "tool",
      "ai",
    ]);
  });
});
