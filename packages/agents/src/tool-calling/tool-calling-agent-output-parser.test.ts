import { AIMessage, AIMessageChunk, ToolMessage } from "@langchain/core/messages";
import { OutputParserException } from "@langchain/core/output_parsers";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { InvalidToolArgumentsException, type ToolAgentAction } from "@agentrx/core";
import { assertParserHandlesAnyGeneration, isAgentOutput, megabyteOf, nestedArguments, nestedArgumentsText } from "../test-utils/parser-properties";
import { formatToToolMessages } from "./format-to-tool-messages";
import { ToolCallingAgentOutputParser } from "./tool-calling-agent-output-parser";

const parser = new ToolCallingAgentOutputParser();

describe("ToolCallingAgentOutputParser", () => {
  it("parses plain text as the final answer", async () => {
    expect(await parser.parse("Hello")).toEqual({ returnValues: { output: "Hello" }, log: "Hello" });
  });

  it("reads OpenAI's raw tool calls when the message has no parsed ones", async () => {
    const message = new AIMessage({
      content: "",
      additional_kwargs: {
        tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: '{"q":"x"}' } }],
      },
    });
    expect(await parser.invoke(message)).toMatchObject([{ tool: "search", toolInput: { q: "x" }, toolCallId: "c1" }]);
    const broken = new AIMessage({
      content: "",
      additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: "{oops" } }] },
    });
    await expect(parser.invoke(broken)).rejects.toThrow(/tool "search".*invalid JSON/);
  });

  it("unwraps LangChain's single-input encoding {__arg1: value}, as LangChain Python does", async () => {
    const message = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: { __arg1: "Paris" } }] });
    expect(await parser.invoke(message)).toMatchObject([{ tool: "search", toolInput: "Paris", toolCallId: "c1" }]);
    const two = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: { __arg1: "Paris", lang: "fr" } }] });
    expect(await parser.invoke(two)).toMatchObject([{ toolInput: { __arg1: "Paris", lang: "fr" } }]);
  });

  it("reads raw OpenAI tool calls whose arguments are empty or hold raw newlines", async () => {
    const message = new AIMessage({
      content: "",
      additional_kwargs: {
        tool_calls: [
          { id: "c1", type: "function", function: { name: "now", arguments: " " } },
          { id: "c2", type: "function", function: { name: "python", arguments: '{"code": "a = 1\nprint(a)"}' } },
        ],
      },
    });
    expect(await parser.invoke(message)).toMatchObject([
      { tool: "now", toolInput: {} },
      { tool: "python", toolInput: { code: "a = 1\nprint(a)" } },
    ]);
  });

  it("accepts tool-call arguments with raw newlines in strings, sending the call back in the message's tool_calls", async () => {
    const message = new AIMessage({
      content: "",
      id: "m1",
      tool_calls: [{ id: "c1", name: "search", args: { query: "x" } }],
      invalid_tool_calls: [{ type: "invalid_tool_call", id: "c2", name: "python", args: '{"code": "a = 1\nprint(a)"}', error: "Bad control character" }],
    });
    const actions = (await parser.invoke(message)) as ToolAgentAction[];
    expect(actions).toMatchObject([
      { tool: "search", toolCallId: "c1" },
      { tool: "python", toolInput: { code: "a = 1\nprint(a)" }, toolCallId: "c2" },
    ]);
    const messages = formatToToolMessages(actions.map((action) => ({ action, observation: "ok" })));
    expect(messages.map((m) => m.getType())).toEqual(["ai", "tool", "tool"]);
    expect((messages[0] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["c1", "c2"]);
    const truncated = new AIMessage({
      content: "",
      invalid_tool_calls: [{ type: "invalid_tool_call", id: "c3", name: "python", args: '{"code": "a = 1\npri', error: "Unterminated string" }],
    });
    await expect(parser.invoke(truncated)).rejects.toThrow(/tool "python".*invalid JSON/);
  });

  it("reads a tool call whose args are missing or null (a tool without parameters) as {}, and sends it back with {}", async () => {
    for (const args of [undefined, null]) {
      const message = new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "now", args: args as never }] });
      const [action] = (await parser.invoke(message)) as ToolAgentAction[];
      expect(action).toMatchObject({ tool: "now", toolInput: {}, toolCallId: "call_1", log: 'Invoking "now" with {}' });
      expect((action?.messageLog?.[0] as AIMessage).tool_calls).toEqual([{ id: "call_1", name: "now", args: {}, type: "tool_call" }]);
    }
  });

  it("handles one-megabyte adversarial arguments", async () => {
    for (const args of [megabyteOf("["), megabyteOf('{"a":'), `{"a": "${megabyteOf("\n")}"}`, megabyteOf('"\n')]) {
      const message = new AIMessage({
        content: "",
        additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: args } }] },
      });
      const invalid = new AIMessage({ content: "", invalid_tool_calls: [{ type: "invalid_tool_call", id: "c1", name: "search", args }] });
      for (const input of [message, invalid]) {
        const result = await parser.invoke(input).then(
          (output) => isAgentOutput(output),
          (error: unknown) => error instanceof OutputParserException,
        );
        expect(result).toBe(true);
      }
    }
  });

  it("accepts arguments nested 100 levels deep, and refuses deeper ones with InvalidToolArgumentsException however they arrive", async () => {
    const accepted = await parser.invoke(new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: nestedArguments(100) }] }));
    expect(accepted).toMatchObject([{ tool: "search", toolCallId: "c1" }]);
    const deep = nestedArgumentsText(10_000);
    const messages = [
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: nestedArguments(101) }] }),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: nestedArguments(10_000) }] }),
      new AIMessage({ content: "", additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { name: "search", arguments: deep } }] } }),
      new AIMessage({ content: "", invalid_tool_calls: [{ type: "invalid_tool_call", id: "c1", name: "search", args: deep.replace("{}", '{"x": "a\nb"}') }] }),
      new AIMessageChunk({ content: "", tool_call_chunks: [{ type: "tool_call_chunk", index: 0, id: "c1", name: "search", args: deep }] }),
    ];
    for (const message of messages) {
      const error = await parser.invoke(message).catch((caught: unknown) => caught);
      expect(InvalidToolArgumentsException.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ toolName: "search", toolCallId: "c1", sendToLLM: true });
      expect((error as InvalidToolArgumentsException).problem).toBe("the arguments are nested more than 100 levels deep");
      expect((error as InvalidToolArgumentsException).rawArguments.length).toBeLessThanOrEqual(501);
    }
  });

  it("says, when one of several calls cannot be read, that the whole reply has no result", async () => {
    const message = new AIMessage({
      content: "",
      tool_calls: [{ id: "c1", name: "search", args: { q: "ok" } }],
      invalid_tool_calls: [{ type: "invalid_tool_call", id: "c2", name: "search", args: "{bad" }],
    });
    const error = (await parser.invoke(message).catch((caught: unknown) => caught)) as InvalidToolArgumentsException;
    expect(InvalidToolArgumentsException.isInstance(error)).toBe(true);
    expect(error.observation).toMatch(/^Your call to tool "search" could not be read: .+\. Your reply was refused whole: none of its 2 tool calls has a result\. Call them all again/);
    // A reply of one call keeps the one-call sentence.
    const single = (await parser.invoke(new AIMessage({ content: "", invalid_tool_calls: [{ type: "invalid_tool_call", id: "c2", name: "search", args: "{bad" }] })).catch((caught: unknown) => caught)) as InvalidToolArgumentsException;
    expect(single.observation).toMatch(/\. Call the tool again with its arguments as one valid JSON object\.$/);
  });

  it("parses each tool call's argument text once", async () => {
    // Control characters to escape, and a trailing comma no escaping repairs.
    const args = `{"code": "${"\u0001\n".repeat(1_000)}",}`;
    const message = new AIMessage({ content: "", invalid_tool_calls: [{ type: "invalid_tool_call", id: "c1", name: "python", args }] });
    const parses = vi.spyOn(JSON, "parse");
    const error = await parser.invoke(message).catch((caught: unknown) => caught);
    const long = parses.mock.calls.filter(([text]) => typeof text === "string" && text.length >= args.length);
    parses.mockRestore();
    expect((error as InvalidToolArgumentsException).problem).toMatch(/^invalid JSON/);
    // One strict parse, then one of the escaped text: the arguments are not read a second time.
    expect(long).toHaveLength(2);
  });

  it("gives tool calls without an id a stable one", async () => {
    const message = new AIMessage({ content: "", id: "m1", tool_calls: [{ name: "a", args: {} }, { name: "b", args: {} }] });
    const actions = await parser.invoke(message);
    expect(actions).toMatchObject([{ toolCallId: "m1_0" }, { toolCallId: "m1_1" }]);
    // The message sent back carries the same ids, so each tool result answers its call.
    const logged = (actions as { messageLog: AIMessage[] }[])[0]?.messageLog[0];
    expect(logged?.tool_calls?.map((call) => call.id)).toEqual(["m1_0", "m1_1"]);
    const scratchpad = formatToToolMessages(
      (actions as ToolAgentAction[]).map((action) => ({ action, observation: `did ${action.tool}` })),
    );
    expect(scratchpad.map((m) => (m instanceof ToolMessage ? m.tool_call_id : m.getType()))).toEqual(["ai", "m1_0", "m1_1"]);
  });

  it("gives a tool call whose id repeats an earlier call's of the same message an id of its own", async () => {
    // Some compatible servers number every call of a turn "call_0"; the turn must still go back once.
    const message = new AIMessage({
      content: "",
      id: "m1",
      tool_calls: [
        { id: "call_0", name: "weather", args: { city: "Paris" } },
        { id: "call_0", name: "weather", args: { city: "Rome" } },
      ],
      additional_kwargs: { reasoning_content: "Two cities." },
    });
    const actions = (await parser.invoke(message)) as ToolAgentAction[];
    const ids = actions.map((action) => action.toolCallId);
    expect(ids[0]).toBe("call_0");
    expect(new Set(ids).size).toBe(2);
    const logged = actions[0]?.messageLog?.[0] as AIMessage;
    expect(logged.tool_calls?.map((call) => call.id)).toEqual(ids);
    expect(logged.additional_kwargs["reasoning_content"]).toBe("Two cities.");
    const scratchpad = formatToToolMessages(actions.map((action) => ({ action, observation: `did ${String(action.toolInput)}` })));
    expect(scratchpad.map((m) => (m instanceof ToolMessage ? m.tool_call_id : m.getType()))).toEqual(["ai", ...ids]);
  });

  it("raises OutputParserException for a tool call without a name", async () => {
    const message = new AIMessage({ content: "", invalid_tool_calls: [{ type: "invalid_tool_call", args: "{}", id: "x", error: "no name" }] });
    const error = await parser.invoke(message).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutputParserException);
    expect((error as OutputParserException).observation).toContain("no tool name");
  });

  it("only ever returns actions or a finish, or throws OutputParserException, for arbitrary messages", async () => {
    const toolCall = fc.record({ name: fc.string({ maxLength: 8 }), args: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue()) });
    const invalidCall = fc.record({ name: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), args: fc.string({ maxLength: 20 }) });
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.array(toolCall, { maxLength: 3 }), fc.array(invalidCall, { maxLength: 2 }), async (text, calls, invalid) => {
        const message = new AIMessage({
          content: text,
          tool_calls: calls.map((call, index) => ({ ...call, id: `c${index}`, type: "tool_call" as const })),
          invalid_tool_calls: invalid.map((call, index) => ({ ...call, id: `i${index}`, type: "invalid_tool_call" as const })),
        });
        try {
          const output = await parser.invoke(message);
          expect(isAgentOutput(output)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(OutputParserException);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("throws only OutputParserException for any generation: text that is not a string, content blocks of other kinds, throwing objects", async () => {
    await assertParserHandlesAnyGeneration(parser);
  });
});
