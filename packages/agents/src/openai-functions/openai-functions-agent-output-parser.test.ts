import { InvalidToolArgumentsException } from "@agentrx/core";
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { OutputParserException } from "@langchain/core/output_parsers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assertParserHandlesAnyGeneration, isAgentOutput, megabyteOf, nestedArguments, nestedArgumentsText } from "../test-utils/parser-properties";
import { ToolCallingAgentOutputParser } from "../tool-calling/tool-calling-agent-output-parser";
import { formatToOpenAIFunctionMessages } from "./format-to-openai-function-messages";
import { OpenAIFunctionsAgentOutputParser, type FunctionsAgentAction } from "./openai-functions-agent-output-parser";

const parser = new OpenAIFunctionsAgentOutputParser();
const functionCall = (name: string, args: string) =>
  new AIMessage({ content: "", additional_kwargs: { function_call: { name, arguments: args } } });

describe("OpenAIFunctionsAgentOutputParser", () => {
  it("parses a legacy function call, unwrapping __arg1", async () => {
    expect(await parser.invoke(functionCall("search", '{"query":"Paris"}'))).toMatchObject({
      tool: "search",
      toolInput: { query: "Paris" },
      log: 'Invoking "search" with {"query":"Paris"}',
    });
    expect(await parser.invoke(functionCall("search", '{"__arg1":"Paris"}'))).toMatchObject({ toolInput: "Paris" });
  });

  it("reads empty legacy arguments as {} and accepts raw newlines inside strings, as LangChain Python does", async () => {
    expect(await parser.invoke(functionCall("now", "  "))).toMatchObject({ tool: "now", toolInput: {} });
    expect(await parser.invoke(functionCall("python", '{"code": "a = 1\nprint(a)"}'))).toMatchObject({
      toolInput: { code: "a = 1\nprint(a)" },
    });
    const message = new AIMessage({
      content: "",
      invalid_tool_calls: [{ type: "invalid_tool_call", id: "c1", name: "python", args: '{"code": "a\tb"}', error: "Bad control character" }],
    });
    const action = (await parser.invoke(message)) as FunctionsAgentAction;
    expect(action).toMatchObject({ tool: "python", toolInput: { code: "a\tb" }, toolCallId: "c1" });
    expect((action.messageLog[0] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["c1"]);
  });

  it("reads a tool call whose args are missing (a function without parameters) as {}, sending {} back", async () => {
    const message = new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "now", args: undefined as never }] });
    const action = (await parser.invoke(message)) as FunctionsAgentAction;
    expect(action).toMatchObject({ tool: "now", toolInput: {}, toolCallId: "call_1" });
    expect((action.messageLog[0] as AIMessage).tool_calls).toEqual([{ id: "call_1", name: "now", args: {}, type: "tool_call" }]);
  });

  it("handles one-megabyte adversarial arguments", async () => {
    for (const args of [megabyteOf("["), megabyteOf('{"a":'), `{"a": "${megabyteOf("\n")}"}`, megabyteOf('"\n')]) {
      const invalid = new AIMessage({ content: "", invalid_tool_calls: [{ type: "invalid_tool_call", id: "c1", name: "search", args }] });
      for (const input of [functionCall("search", args), invalid]) {
        const result = await parser.invoke(input).then(
          (output) => isAgentOutput(output),
          (error: unknown) => error instanceof OutputParserException,
        );
        expect(result).toBe(true);
      }
    }
  });

  it("refuses a tool call without a name as the tool-calling parser does, instead of an action for tool undefined", async () => {
    const toolCalling = new ToolCallingAgentOutputParser();
    const nameless = [
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: undefined as unknown as string, args: { query: "x" } }] }),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "", args: {} }] }),
      new AIMessage({ content: "", invalid_tool_calls: [{ type: "invalid_tool_call", id: "c1", args: "{}", error: "no name" }] }),
      new AIMessage({ content: "", additional_kwargs: { tool_calls: [{ id: "c1", type: "function", function: { arguments: "{}" } as never }] } }),
    ];
    for (const message of nameless) {
      const [functions, tools] = await Promise.all([
        parser.invoke(message).catch((caught: unknown) => caught),
        toolCalling.invoke(message).catch((caught: unknown) => caught),
      ]);
      for (const error of [functions, tools]) {
        expect(InvalidToolArgumentsException.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ toolName: undefined, toolCallId: "c1", sendToLLM: true });
      }
      expect((functions as InvalidToolArgumentsException).problem).toBe("the function call has no function name");
      expect((tools as InvalidToolArgumentsException).problem).toBe("the tool call has no tool name");
    }
    const legacy = await parser.invoke(functionCall("", '{"query": "x"}')).catch((caught: unknown) => caught);
    expect((legacy as InvalidToolArgumentsException).problem).toBe("the function call has no function name");
    // An empty legacy function call is no call: the text is the answer.
    expect(await parser.invoke(new AIMessage({ content: "Done.", additional_kwargs: { function_call: { name: "", arguments: "" } } }))).toMatchObject({
      returnValues: { output: "Done." },
    });
  });

  it("refuses arguments nested more than 100 levels deep with InvalidToolArgumentsException", async () => {
    expect(await parser.invoke(new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: nestedArguments(100) }] }))).toMatchObject({ tool: "search" });
    const messages = [
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: nestedArguments(10_000) }] }),
      functionCall("search", nestedArgumentsText(10_000)),
      functionCall("search", nestedArgumentsText(101)),
    ];
    for (const message of messages) {
      const error = await parser.invoke(message).catch((caught: unknown) => caught);
      expect(InvalidToolArgumentsException.isInstance(error)).toBe(true);
      expect((error as InvalidToolArgumentsException).problem).toBe("the arguments are nested more than 100 levels deep");
      expect((error as InvalidToolArgumentsException).observation).toContain('function "search"');
    }
  });

  it("acts on the first of several tool calls, keeping only that call in its message log", async () => {
    const message = new AIMessage({
      content: "",
      tool_calls: [
        { id: "a", name: "search", args: { query: "x" } },
        { id: "b", name: "calc", args: { expression: "1" } },
      ],
    });
    const action = (await parser.invoke(message)) as FunctionsAgentAction;
    expect(action).toMatchObject({ tool: "search", toolCallId: "a" });
    const logged = action.messageLog[0] as AIMessage;
    expect(logged.tool_calls?.map((call) => call.id)).toEqual(["a"]);
    const messages = formatToOpenAIFunctionMessages([{ action, observation: "found" }]);
    expect(messages.map((m) => m.getType())).toEqual(["ai", "tool"]);
  });

  it("keeps the reasoning and thinking of a message whose other calls it leaves out", async () => {
    const thinking = { type: "thinking", thinking: "Search first.", signature: "sig==" };
    const message = new AIMessage({
      content: [thinking, { type: "tool_use", id: "a", name: "search", input: { query: "x" } }, { type: "tool_use", id: "b", name: "calc", input: { expression: "1" } }],
      tool_calls: [
        { id: "a", name: "search", args: { query: "x" } },
        { id: "b", name: "calc", args: { expression: "1" } },
      ],
      additional_kwargs: { reasoning_content: "Search first." },
    });
    const action = (await parser.invoke(message)) as FunctionsAgentAction;
    const logged = action.messageLog[0] as AIMessage;
    expect(logged.additional_kwargs).toEqual({ reasoning_content: "Search first." });
    // The thinking block goes back unchanged; the call left out leaves the content too.
    expect(logged.content).toEqual([thinking, { type: "tool_use", id: "a", name: "search", input: { query: "x" } }]);
  });

  it("formats legacy function calls with a FunctionMessage", async () => {
    const action = (await parser.invoke(functionCall("search", "{}"))) as FunctionsAgentAction;
    const messages = formatToOpenAIFunctionMessages([{ action, observation: { ok: true } as unknown as string }]);
    expect(messages.map((m) => m.getType())).toEqual(["ai", "function"]);
    expect(messages[1]?.text).toBe('{"ok":true}');
  });

  it("finishes with the text when there is no call, and rejects arguments that are not JSON", async () => {
    expect(await parser.invoke(new AIMessage("Done."))).toEqual({ returnValues: { output: "Done." }, log: "Done." });
    const error = await parser.invoke(functionCall("search", "{bad")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutputParserException);
    expect(InvalidToolArgumentsException.isInstance(error)).toBe(true);
    expect((error as OutputParserException).message).toContain('"search"');
    expect((error as OutputParserException).observation).toContain('function "search"');
    expect((error as OutputParserException).sendToLLM).toBe(true);
  });

  it("only ever returns an action or a finish, or throws OutputParserException", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), fc.string({ maxLength: 6 }), fc.oneof(fc.string(), fc.json()), async (text, name, args) => {
        const message = new AIMessage({ content: text, additional_kwargs: { function_call: { name, arguments: args } } });
        try {
          expect(isAgentOutput(await parser.invoke(message))).toBe(true);
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

  it("refuses a message that is not an AI message with OutputParserException, never a final answer (LangChain: not an AI message)", async () => {
    for (const message of [new SystemMessage("x"), new HumanMessage("x"), new ToolMessage({ content: "x", tool_call_id: "c1" })]) {
      const error = await parser.invoke(message).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OutputParserException);
      expect((error as OutputParserException).message).toMatch(/expected an AI message from the model, got a (system|human|tool) message/);
      expect((error as OutputParserException).llmOutput).toBe("x");
    }
    // A streamed reply (a chunk) is an AI message; plain text stays a final answer.
    expect(await parser.invoke(new AIMessageChunk("Done."))).toEqual({ returnValues: { output: "Done." }, log: "Done." });
    expect(await parser.parse("Done.")).toEqual({ returnValues: { output: "Done." }, log: "Done." });
  });

  it("LangChain's cases: a reply without a call, a call with arguments, with none, old-style __arg1, invalid JSON", async () => {
    const reply = new AIMessage("Model response.");
    expect(await parser.invoke(reply)).toEqual({ returnValues: { output: "Model response." }, log: "Model response." });
    const withThoughts = (args: string) =>
      new AIMessage({ content: "LLM thoughts.", additional_kwargs: { function_call: { name: "foo", arguments: args } } });
    const call = withThoughts('{"param": 42}');
    const action = (await parser.invoke(call)) as FunctionsAgentAction;
    expect(action).toMatchObject({ tool: "foo", toolInput: { param: 42 }, resultMessageType: "function" });
    expect(action.messageLog).toEqual([call]);
    expect(action.log).toBe('Invoking "foo" with {"param": 42}\nLLM thoughts.');
    expect(await parser.invoke(withThoughts(""))).toMatchObject({ tool: "foo", toolInput: {}, log: 'Invoking "foo" with {}\nLLM thoughts.' });
    expect(await parser.invoke(withThoughts('{"__arg1": "42"}'))).toMatchObject({ tool: "foo", toolInput: "42" });
    await expect(parser.invoke(withThoughts("{42]"))).rejects.toBeInstanceOf(OutputParserException);
  });

  it("marks only legacy function calls for a FunctionMessage result; tool calls keep their id", async () => {
    const toolCall = (await parser.invoke(new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: {} }] }))) as FunctionsAgentAction;
    expect(toolCall.toolCallId).toBe("c1");
    expect(toolCall.resultMessageType).toBeUndefined();
    expect(((await parser.invoke(functionCall("search", "{}"))) as FunctionsAgentAction).resultMessageType).toBe("function");
  });
});
