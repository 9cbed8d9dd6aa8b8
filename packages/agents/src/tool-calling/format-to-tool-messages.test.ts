import type { ToolAgentAction } from "@agentrx/core";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { formatToToolMessages } from "./format-to-tool-messages";

const message = new AIMessage({
  content: "Checking.",
  id: "m1",
  tool_calls: [
    { id: "a", name: "search", args: { q: 1 } },
    { id: "b", name: "calc", args: { e: "1" } },
  ],
});
const action = (id: string, tool: string): ToolAgentAction => ({ tool, toolInput: {}, log: "", toolCallId: id, messageLog: [message] });

describe("formatToToolMessages", () => {
  it("sends a turn's message once when its steps carry equal copies without an id (a run restored from its record)", () => {
    const copy = () =>
      new AIMessage({
        content: "",
        tool_calls: [
          { id: "c1", name: "weather", args: { city: "Paris" } },
          { id: "c2", name: "weather", args: { city: "Rome" } },
        ],
      });
    const steps = ["c1", "c2"].map((toolCallId, i) => ({
      action: { tool: "weather", toolInput: { city: i === 0 ? "Paris" : "Rome" }, log: "", toolCallId, messageLog: [copy()] } as ToolAgentAction,
      observation: `sunny ${i}`,
    }));
    const messages = formatToToolMessages(steps);
    expect(messages.map((message) => message.getType())).toEqual(["ai", "tool", "tool"]);
    expect((messages[2] as ToolMessage).tool_call_id).toBe("c2");
  });

  it("keeps each turn's message when two turns' calls have the same ids and no message id (a model that reuses ids)", () => {
    const turn = (text: string) => new AIMessage({ content: text, tool_calls: [{ id: "call_0_0", name: "weather", args: { city: text } }] });
    const first = turn("Paris");
    const second = turn("Rome");
    const messages = formatToToolMessages([
      { action: { tool: "weather", toolInput: { city: "Paris" }, log: "", toolCallId: "call_0_0", messageLog: [first] } as ToolAgentAction, observation: "sunny" },
      { action: { tool: "weather", toolInput: { city: "Rome" }, log: "", toolCallId: "call_0_0", messageLog: [second] } as ToolAgentAction, observation: "rain" },
    ]);
    expect(messages.map((message) => message.getType())).toEqual(["ai", "tool", "ai", "tool"]);
    expect(messages.map((message) => message.text)).toEqual(["Paris", "sunny", "Rome", "rain"]);
  });

  it("keeps each turn's message when two turns' messages have the same id but other calls (a server that reuses the message id)", () => {
    const turn = (id: string, city: string) => new AIMessage({ id: "chatcmpl-123", content: city, tool_calls: [{ id, name: "weather", args: { city } }] });
    const messages = formatToToolMessages([
      { action: { tool: "weather", toolInput: { city: "Paris" }, log: "", toolCallId: "c1", messageLog: [turn("c1", "Paris")] } as ToolAgentAction, observation: "sunny" },
      { action: { tool: "weather", toolInput: { city: "Rome" }, log: "", toolCallId: "c2", messageLog: [turn("c2", "Rome")] } as ToolAgentAction, observation: "rain" },
    ]);
    expect(messages.map((message) => message.getType())).toEqual(["ai", "tool", "ai", "tool"]);
    expect(messages.map((message) => message.text)).toEqual(["Paris", "sunny", "Rome", "rain"]);
    expect((messages[2] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["c2"]);
  });

  it("sends the shared message once, then the tool results in order", () => {
    const messages = formatToToolMessages([
      { action: action("a", "search"), observation: "found" },
      { action: action("b", "calc"), observation: "1" },
    ]);
    expect(messages.map((m) => m.getType())).toEqual(["ai", "tool", "tool"]);
    expect(messages[0]).toBe(message);
    expect((messages[1] as ToolMessage).tool_call_id).toBe("a");
    expect((messages[2] as ToolMessage).name).toBe("calc");
  });

  it("names a result after the tool the model called, when the executor answered the call itself (_Exception)", () => {
    // A final answer that did not fit, or a call whose arguments could not be read: the step is an
    // `_Exception` step answering the model's call, and a provider matching by name must see "calc".
    const messages = formatToToolMessages([
      { action: action("a", "search"), observation: "found" },
      { action: action("b", "_Exception"), observation: "Your answer does not fit." },
    ]);
    const results = messages.filter((m): m is ToolMessage => m.getType() === "tool");
    expect(results.map((m) => [m.tool_call_id, m.name, m.additional_kwargs["name"]])).toEqual([
      ["a", "search", "search"],
      ["b", "calc", "calc"],
    ]);
  });

  it("drops tool calls whose steps were trimmed away", () => {
    const messages = formatToToolMessages([{ action: action("b", "calc"), observation: "1" }]);
    expect((messages[0] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["b"]);
    expect(messages[0]?.text).toBe("Checking.");
    expect(message.tool_calls).toHaveLength(2);
  });

  it("moves a Gemini step's thought signature to the first call left when trimming drops the signed one", () => {
    const signatures = "__gemini_function_call_thought_signatures__";
    const signed = new AIMessage({ content: "", id: "g1", tool_calls: message.tool_calls ?? [], additional_kwargs: { [signatures]: { a: "sig-a" } } });
    const signedAction = (id: string, tool: string): ToolAgentAction => ({ ...action(id, tool), messageLog: [signed] });
    const [kept] = formatToToolMessages([{ action: signedAction("b", "calc"), observation: "1" }]) as AIMessage[];
    expect(kept?.tool_calls?.map((call) => call.id)).toEqual(["b"]);
    expect(kept?.additional_kwargs[signatures]).toEqual({ b: "sig-a" });
    const [whole] = formatToToolMessages([
      { action: signedAction("a", "search"), observation: "found" },
      { action: signedAction("b", "calc"), observation: "1" },
    ]) as AIMessage[];
    expect(whole?.additional_kwargs[signatures]).toEqual({ a: "sig-a" });
  });

  it("shows a step that is not a tool call as the raw output and the observation", () => {
    const messages = formatToToolMessages([{ action: { tool: "_Exception", toolInput: "fix it", log: "bad output" }, observation: "fix it" }]);
    expect(messages.map((m) => [m.getType(), m.text])).toEqual([
      ["ai", "bad output"],
      ["human", "fix it"],
    ]);
  });

  it("serialises non-string observations to JSON", () => {
    const messages = formatToToolMessages([{ action: action("a", "search"), observation: { hits: 2 } as unknown as string }]);
    expect(messages.at(-1)?.text).toBe('{"hits":2}');
  });

  it("names the tool in additional_kwargs of every tool message, over several turns (LangChain's scratchpad case)", () => {
    const turn = (calls: [string, string][]) =>
      new AIMessage({ content: "", tool_calls: calls.map(([id, name]) => ({ id, name, args: { a: 3, b: 5 } })) });
    const first = turn([["call_1", "add"]]);
    const second = turn([["call_2", "subtract"]]);
    const third = turn([
      ["call_3", "multiply"],
      ["call_4", "divide"],
    ]);
    const step = (message: AIMessage, index: number, observation: string) => {
      const call = message.tool_calls?.[index];
      const toolAction: ToolAgentAction = { tool: call?.name ?? "", toolInput: call?.args ?? {}, log: "", toolCallId: call?.id ?? "", messageLog: [message] };
      return { action: toolAction, observation };
    };
    const messages = formatToToolMessages([
      step(first, 0, "observation1"),
      step(second, 0, "observation2"),
      step(third, 0, "observation3"),
      step(third, 1, "observation4"),
    ]);
    expect(messages.map((m) => (ToolMessage.isInstance(m) ? [m.tool_call_id, m.name, m.additional_kwargs.name, m.text] : m))).toEqual([
      first,
      ["call_1", "add", "add", "observation1"],
      second,
      ["call_2", "subtract", "subtract", "observation2"],
      third,
      ["call_3", "multiply", "multiply", "observation3"],
      ["call_4", "divide", "divide", "observation4"],
    ]);
    expect(formatToToolMessages([])).toEqual([]);
  });

  it("keeps a trimmed turn's thinking, drops its unanswered calls everywhere, and a Responses reasoning item with them", () => {
    const thinking = { type: "thinking", thinking: "Two lookups.", signature: "sig==" };
    const turn = new AIMessage({
      content: [thinking, { type: "tool_use", id: "a", name: "search", input: { q: 1 } }, { type: "tool_use", id: "b", name: "calc", input: { e: "1" } }],
      id: "m2",
      tool_calls: [
        { id: "a", name: "search", args: { q: 1 } },
        { id: "b", name: "calc", args: { e: "1" } },
      ],
      response_metadata: {
        output: [
          { type: "reasoning", id: "rs_1" },
          { type: "function_call", id: "fc_a", call_id: "a" },
          { type: "function_call", id: "fc_b", call_id: "b" },
        ],
      },
      additional_kwargs: {
        reasoning: { id: "rs_1", type: "reasoning", summary: [] },
        refusal_note: "kept",
        tool_calls: [
          { id: "a", type: "function", function: { name: "search", arguments: "{}" } },
          { id: "b", type: "function", function: { name: "calc", arguments: "{}" } },
        ],
      },
    });
    const step = { action: { tool: "calc", toolInput: { e: "1" }, log: "", toolCallId: "b", messageLog: [turn] } as ToolAgentAction, observation: "1" };
    const [sent] = formatToToolMessages([step]) as AIMessage[];
    expect(sent?.content).toEqual([thinking, { type: "tool_use", id: "b", name: "calc", input: { e: "1" } }]);
    expect(sent?.tool_calls?.map((call) => call.id)).toEqual(["b"]);
    expect(sent?.additional_kwargs.reasoning).toBeUndefined();
    expect(sent?.additional_kwargs.refusal_note).toBe("kept");
    expect((sent?.additional_kwargs.tool_calls ?? []).map((call) => call.id)).toEqual(["b"]);
    expect(sent?.response_metadata.output).toEqual([{ type: "function_call", call_id: "b" }]);
  });
});
