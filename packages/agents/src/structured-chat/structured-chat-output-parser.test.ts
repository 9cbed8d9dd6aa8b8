import { OutputParserException } from "@langchain/core/output_parsers";
import { describe, expect, it } from "vitest";
import { InvalidToolArgumentsException } from "@agentrx/core";
import { assertParserHandlesAnyGeneration, assertParserIsTotal, megabyteOf, nestedArgumentsText, parseTotally } from "../test-utils/parser-properties";
import { StructuredChatOutputParser } from "./structured-chat-output-parser";
import { expectInvalidArgument } from "../test-utils/expect-invalid-argument";

const parser = new StructuredChatOutputParser({ toolNames: ["add"] });
const fence = (body: string, tag = "json") => `Thought: go\nAction:\n\`\`\`${tag}\n${body}\n\`\`\``;

async function parseError(text: string): Promise<OutputParserException> {
  const error = await parser.parse(text).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(OutputParserException);
  return error as OutputParserException;
}

describe("StructuredChatOutputParser", () => {
  it("reads the fenced JSON blob as an action with multi-argument input", async () => {
    const text = fence('{"action": "add", "action_input": {"a": 1, "b": 2}}');
    expect(await parser.parse(text)).toEqual({ tool: "add", toolInput: { a: 1, b: 2 }, log: text });
  });

  it("accepts a fence without a language tag, and uses {} when action_input is absent", async () => {
    expect(await parser.parse(fence('{"action": "add"}', ""))).toMatchObject({ tool: "add", toolInput: {} });
  });

  it('treats "Final Answer" as the finish and serialises non-string answers', async () => {
    const text = fence('{"action": "Final Answer", "action_input": "It is 3."}');
    expect(await parser.parse(text)).toEqual({ returnValues: { output: "It is 3." }, log: text });
    expect(await parser.parse(fence('{"action": "Final Answer", "action_input": {"sum": 3}}'))).toMatchObject({
      returnValues: { output: '{"sum":3}' },
    });
  });

  it("refuses a bare blob that names an action but does not parse (fixable), instead of taking it as the answer", async () => {
    for (const text of ['{"action": "add", "action_input": {"a": 1},}', '{"action": "add", "action_input": {"a": 1', '{"action": 5, "action_input": 1}']) {
      const error = await parseError(text);
      expect(error.sendToLLM, text).toBe(true);
      expect(error.observation, text).toMatch(/^Invalid Format: the JSON blob is not valid/);
    }
    // A bare JSON answer that names no action stays the answer.
    expect(await parser.parse('{"city": "Paris"}')).toMatchObject({ returnValues: { output: '{"city": "Paris"}' } });
  });

  it("uses the first blob of a list and the first fenced block", async () => {
    const list = fence('[{"action": "add", "action_input": {"a": 1}}, {"action": "Final Answer", "action_input": "x"}]');
    expect(await parser.parse(list)).toMatchObject({ tool: "add" });
    const two = `${fence('{"action": "add", "action_input": {}}')}\n${fence('{"action": "Final Answer", "action_input": "x"}')}`;
    expect(await parser.parse(two)).toMatchObject({ tool: "add" });
  });

  it("accepts raw newlines inside JSON strings", async () => {
    const text = fence('{"action": "Final Answer", "action_input": "line 1\nline 2"}');
    expect(await parser.parse(text)).toMatchObject({ returnValues: { output: "line 1\nline 2" } });
  });

  it("treats text without a fence as the final answer, and accepts a bare blob", async () => {
    expect(await parser.parse("Hello there!")).toEqual({ returnValues: { output: "Hello there!" }, log: "Hello there!" });
    expect(await parser.parse('{"action": "add", "action_input": {"a": 1}}')).toMatchObject({ tool: "add" });
  });

  it("skips fenced blocks that are not a JSON blob: code in a final answer, or before the blob", async () => {
    const answer = "Here is the script:\n```python\nprint('hi')\n```\nRun it with python3.";
    expect(await parser.parse(answer)).toEqual({ returnValues: { output: answer }, log: answer });
    const untagged = "Run:\n```\nnpm test\n```";
    expect(await parser.parse(untagged)).toMatchObject({ returnValues: { output: untagged } });
    const codeThenBlob = `Thought: I will run\n\`\`\`python\nprint(1)\n\`\`\`\n${fence('{"action": "add", "action_input": {"a": 1}}')}`;
    expect(await parser.parse(codeThenBlob)).toMatchObject({ tool: "add", toolInput: { a: 1 } });
    expect(await parser.parse(fence('{"action": "add", "action_input": {}}', "JSON"))).toMatchObject({ tool: "add" });
    expect((await parseError(fence("not json at all"))).observation).toContain("not valid JSON");
  });

  it("skips a fence tagged with another language even when its code starts with { or [: the text is the final answer", async () => {
    const list = "Here is how:\n```python\n[1, 2, 3]\n```\nDone.";
    expect(await parser.parse(list)).toEqual({ returnValues: { output: list }, log: list });
    const object = "Use:\n```js\n{ a: 1 }\n```";
    expect(await parser.parse(object)).toEqual({ returnValues: { output: object }, log: object });
    const codeThenBlob = `\`\`\`ts\n{ const a = 1; }\n\`\`\`\n${fence('{"action": "add", "action_input": {"a": 1}}')}`;
    expect(await parser.parse(codeThenBlob)).toMatchObject({ tool: "add", toolInput: { a: 1 } });
  });

  it("does not end the blob at a fence written inside a JSON string (code in an action_input)", async () => {
    const code = "```python\nprint(1)\n```";
    const text = fence(JSON.stringify({ action: "add", action_input: { code } }));
    expect(await parser.parse(text)).toEqual({ tool: "add", toolInput: { code }, log: text });
    const answer = fence(JSON.stringify({ action: "Final Answer", action_input: `Run:\n${code}` }));
    expect(await parser.parse(answer)).toMatchObject({ returnValues: { output: `Run:\n${code}` } });
  });

  it("rejects invalid JSON, a blob without an action, and an unclosed fence, telling the model the format", async () => {
    const invalid = await parseError(fence('{"action": "add", '));
    expect(invalid.sendToLLM).toBe(true);
    expect(invalid.observation).toContain("not valid JSON");
    expect(invalid.llmOutput).toBe(fence('{"action": "add", '));
    expect((await parseError(fence('{"tool": "add"}'))).observation).toContain('string "action"');
    expect((await parseError('```json\n{"action": "add"}')).observation).toContain("not closed");
    expect((await parseError(fence('{"action": "Final Answer"}'))).observation).toContain("action_input");
  });

  it("refuses an action_input nested more than 100 levels deep: InvalidToolArgumentsException for a tool, a format error for the final answer", async () => {
    expect(await parser.parse(fence(`{"action": "add", "action_input": ${nestedArgumentsText(100)}}`))).toMatchObject({ tool: "add" });
    for (const levels of [101, 10_000]) {
      const error = await parser.parse(fence(`{"action": "add", "action_input": ${nestedArgumentsText(levels)}}`)).catch((caught: unknown) => caught);
      expect(InvalidToolArgumentsException.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ toolName: "add", problem: "the arguments are nested more than 100 levels deep", sendToLLM: true });
    }
    const answer = await parseError(fence(`{"action": "Final Answer", "action_input": ${nestedArgumentsText(10_000)}}`));
    expect(answer.observation).toContain("nested more than 100 levels deep");
  });

  it("refuses toolNames that is not an array of non-empty strings, naming the option", () => {
    for (const toolNames of ["add", [1], [""], null]) {
      expectInvalidArgument(() => new StructuredChatOutputParser({ toolNames } as never), "toolNames", /^StructuredChatOutputParser: `toolNames` must be an array of non-empty strings/);
    }
    expect(new StructuredChatOutputParser({ toolNames: [] }).toolNames).toEqual([]);
  });

  it("only ever returns an action or a finish, or throws OutputParserException", async () => {
    await assertParserIsTotal(parser, [
      "```",
      "```json\n",
      '{"action": "add", "action_input": {"a": 1}}',
      '{"action": "Final Answer", "action_input": "x"}',
      '"action"',
      '"action_input"',
      "[",
      "]",
    ]);
  });

  it("handles one-megabyte adversarial inputs", async () => {
    for (const text of [megabyteOf("```"), megabyteOf("```json\n{"), `\`\`\`json\n${megabyteOf("[")}\`\`\``, `{"action": ${megabyteOf("[")}`, `\`\`\`json\n${megabyteOf('{"a":')}`, megabyteOf('"\n'), megabyteOf("```python\n"), megabyteOf("```\n \n"), `\`\`\`${megabyteOf("a")}`]) {
      const result = await parseTotally(parser, text);
      expect(result.ok || result.error instanceof OutputParserException).toBe(true);
    }
  });

  it("throws only OutputParserException for any generation: text that is not a string, content blocks of other kinds, throwing objects", async () => {
    await assertParserHandlesAnyGeneration(parser);
  });
});

describe("an action blob written without a fence after a thought", () => {
  it("is the tool call it names, not the answer", async () => {
    const text = 'Thought: I must add.\nAction:\n{"action": "add", "action_input": {"a": 2, "b": 3}}';
    expect(await parser.parse(text)).toMatchObject({ tool: "add", toolInput: { a: 2, b: 3 } });
    expect(await parser.parse('I know it.\n{"action": "Final Answer", "action_input": "5"}')).toMatchObject({ returnValues: { output: "5" } });
  });

  it("that does not parse is a fixable error, never the answer", async () => {
    const error = await parseError('Thought: I must add.\nAction:\n{"action": "add", "action_input": {a: 2}');
    expect(error.sendToLLM).toBe(true);
    expect(error.observation).toContain("Invalid Format: the JSON blob is not valid (invalid JSON");
  });

  it("leaves prose that only mentions JSON mid-line as the answer", async () => {
    const text = 'The format is {"action": "x"} in the docs.';
    expect(await parser.parse(text)).toMatchObject({ returnValues: { output: text } });
  });
});
