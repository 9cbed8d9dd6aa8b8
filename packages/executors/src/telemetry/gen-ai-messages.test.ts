import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { outputMessagesJson } from "./gen-ai-messages";

describe("gen_ai.output.messages", () => {
  it("gives every output message a finish reason (the conventions require one): the reply's, else tool_call or stop", () => {
    const text = new AIMessage("Hello.");
    const call = new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "weather", args: { city: "Paris" } }] });
    expect(JSON.parse(outputMessagesJson([text], undefined))).toEqual([{ role: "assistant", parts: [{ type: "text", content: "Hello." }], finish_reason: "stop" }]);
    expect(JSON.parse(outputMessagesJson([call], undefined))[0].finish_reason).toBe("tool_call");
    expect(JSON.parse(outputMessagesJson([text], "length"))[0].finish_reason).toBe("length");
  });
});
