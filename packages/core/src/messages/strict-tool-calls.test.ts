import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { strictToolCalls } from "./strict-tool-calls";

describe("strictToolCalls", () => {
  it("rebuilds streamed tool calls strictly, where AIMessageChunk repairs truncated JSON", () => {
    const chunk = new AIMessageChunk({
      content: "",
      tool_call_chunks: [
        { type: "tool_call_chunk", index: 0, id: "a", name: "search", args: '{"query": "Par' },
        { type: "tool_call_chunk", index: 1, id: "b", name: "calc", args: '{"x":' },
        { type: "tool_call_chunk", index: 1, args: " 2}" },
      ],
    });
    expect(chunk.tool_calls?.map((call) => call.name)).toContain("search"); // core's lenient parse
    const { toolCalls, invalidToolCalls } = strictToolCalls(chunk);
    expect(toolCalls).toEqual([{ id: "b", name: "calc", args: { x: 2 }, type: "tool_call" }]);
    expect(invalidToolCalls).toHaveLength(1);
    expect(invalidToolCalls[0]).toMatchObject({ id: "a", name: "search", args: '{"query": "Par' });
  });

  it("keeps apart two calls a provider streamed at the same index with different ids (as AIMessageChunk does)", () => {
    // Ollama-style streams send every call whole at index 0; the merged chunk keeps both.
    const chunk = new AIMessageChunk({ content: "", tool_call_chunks: [{ type: "tool_call_chunk", index: 0, id: "a", name: "weather", args: '{"city":"Paris"}' }] }).concat(
      new AIMessageChunk({ content: "", tool_call_chunks: [{ type: "tool_call_chunk", index: 0, id: "b", name: "weather", args: '{"city":"Rome"}' }] }),
    );
    expect(chunk.tool_calls?.map((call) => call.id)).toEqual(["a", "b"]);
    const { toolCalls, invalidToolCalls } = strictToolCalls(chunk);
    expect(invalidToolCalls).toEqual([]);
    expect(toolCalls).toEqual([
      { id: "a", name: "weather", args: { city: "Paris" }, type: "tool_call" },
      { id: "b", name: "weather", args: { city: "Rome" }, type: "tool_call" },
    ]);
  });

  it("treats empty arguments as {} and non-object JSON as invalid", () => {
    const chunk = new AIMessageChunk({
      content: "",
      tool_call_chunks: [
        { type: "tool_call_chunk", index: 0, id: "a", name: "now", args: "" },
        { type: "tool_call_chunk", index: 1, id: "b", name: "list", args: "[1]" },
      ],
    });
    const { toolCalls, invalidToolCalls } = strictToolCalls(chunk);
    expect(toolCalls).toEqual([{ id: "a", name: "now", args: {}, type: "tool_call" }]);
    expect(invalidToolCalls.map((call) => call.name)).toEqual(["list"]);
  });

  it("returns a complete message's tool calls as they are", () => {
    const message = new AIMessage({ content: "", tool_calls: [{ id: "a", name: "search", args: { q: 1 } }] });
    const { toolCalls, invalidToolCalls } = strictToolCalls(message);
    expect(toolCalls.map((call) => [call.id, call.args])).toEqual([["a", { q: 1 }]]);
    expect(invalidToolCalls).toEqual([]);
  });
});
