import { OutputParserException } from "@langchain/core/output_parsers";
import { describe, expect, it } from "vitest";
import { assertParserHandlesAnyGeneration, assertParserIsTotal } from "../test-utils/parser-properties";
import { JSONAgentOutputParser } from "./json-agent-output-parser";
import { ChatConversationalAgentOutputParser } from "../conversational/chat-conversational-agent-output-parser";
import { expectInvalidArgument } from "../test-utils/expect-invalid-argument";

const parser = new JSONAgentOutputParser({ toolNames: ["search"] });

describe("JSONAgentOutputParser", () => {
  // LangChain's cases: a tool call in an indented fence, and a "Final Answer" blob.
  it("reads a fenced blob as a tool call, the whole text as its log", async () => {
    const text = '    ```\n{\n  "action": "search",\n  "action_input": "2+2"\n}\n```';
    expect(await parser.parse(text)).toEqual({ tool: "search", toolInput: "2+2", log: text });
  });

  it('reads a "Final Answer" blob as the finish', async () => {
    const text = '```\n{\n  "action": "Final Answer",\n  "action_input": "4"\n}\n```';
    expect(await parser.parse(text)).toEqual({ returnValues: { output: "4" }, log: text });
  });

  it('refuses a "Final Answer" blob without action_input (fixable) rather than finish with an empty answer', async () => {
    const error = (await parser.parse('```json\n{"action": "Final Answer"}\n```').catch((caught: unknown) => caught)) as OutputParserException;
    expect(error).toBeInstanceOf(OutputParserException);
    expect(error.sendToLLM).toBe(true);
    expect(error.observation).toMatch(/the final answer has no "action_input": put the answer there/);
  });

  it("acts on the first blob of a list, accepts a bare blob, and uses {} when action_input is absent", async () => {
    expect(await parser.parse('[{"action": "search", "action_input": "a"}, {"action": "other"}]')).toMatchObject({ tool: "search", toolInput: "a" });
    expect(await parser.parse('{"action": "search"}')).toMatchObject({ tool: "search", toolInput: {} });
  });

  it('refuses plain text, even "Final Answer:" (no blob), with a fixable OutputParserException', async () => {
    for (const text of ["Final Answer: 4", "It is 4.", '```json\n{"action": 1}\n```', '```json\n{"action": "search"\n```']) {
      const error = await parser.parse(text).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OutputParserException);
      expect((error as OutputParserException).sendToLLM).toBe(true);
      expect((error as OutputParserException).observation).toContain("Invalid Format");
    }
  });

  it("skips a fence tagged with another language, even one holding { or [, and reads the blob after it", async () => {
    const error = await parser.parse("Here is how:\n```python\n[1, 2, 3]\n```\nDone.").catch((caught: unknown) => caught);
    expect((error as OutputParserException).observation).toContain("there is no JSON blob");
    const text = 'Use:\n```js\n{ a: 1 }\n```\n```json\n{"action": "search", "action_input": "a"}\n```';
    expect(await parser.parse(text)).toEqual({ tool: "search", toolInput: "a", log: text });
  });

  it("refuses toolNames that is not an array of non-empty strings, naming the option", () => {
    for (const toolNames of ["search", [7], [""]]) {
      expectInvalidArgument(() => new JSONAgentOutputParser({ toolNames } as never), "toolNames", /^JSONAgentOutputParser: `toolNames` must be an array of non-empty strings/);
      expectInvalidArgument(
        () => new ChatConversationalAgentOutputParser({ toolNames } as never),
        "toolNames",
        /^ChatConversationalAgentOutputParser: `toolNames` must be an array of non-empty strings/,
      );
    }
  });

  it("only ever returns an action or a finish, or throws OutputParserException", async () => {
    await assertParserIsTotal(parser, ["```", "```json\n", '{"action": "Final Answer", "action_input": "x"}', "[", '"', "\n"]);
    await assertParserHandlesAnyGeneration(parser);
  });
});
