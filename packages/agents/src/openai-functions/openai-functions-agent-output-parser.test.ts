import { InvalidToolArgumentsException } from "@agentrx/core";
import { AIMessage } from "@langchain/core/messages";
import { OutputParserException } from "@langchain/core/output_parsers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isAgentOutput, megabyteOf } from "../test-utils/parser-properties";
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
});
