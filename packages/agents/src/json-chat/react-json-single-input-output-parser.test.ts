import { InvalidToolArgumentsException } from "@agentrx/core";
import { OutputParserException } from "@langchain/core/output_parsers";
import { describe, expect, it } from "vitest";
import { assertParserHandlesAnyGeneration, assertParserIsTotal, megabyteOf, nestedArgumentsText } from "../test-utils/parser-properties";
import { ReActJsonSingleInputOutputParser } from "./react-json-single-input-output-parser";
import { expectInvalidArgument } from "../test-utils/expect-invalid-argument";

const parser = new ReActJsonSingleInputOutputParser({ toolNames: ["search"] });

async function parseError(text: string): Promise<OutputParserException> {
  const error = await parser.parse(text).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(OutputParserException);
  expect((error as OutputParserException).sendToLLM).toBe(true);
  return error as OutputParserException;
}

describe("ReActJsonSingleInputOutputParser", () => {
  // LangChain's cases: a thought followed by a fenced blob, and a plain-text final answer.
  it("reads a fenced blob after a thought as the action, with the whole text as its log", async () => {
    const text = 'Thought: I should look it up\n```\n{\n    "action": "search",\n    "action_input": "temperature in SF"\n}\n```\n';
    expect(await parser.parse(text)).toEqual({ tool: "search", toolInput: "temperature in SF", log: text });
  });

  it('reads "Final Answer:" in plain text as the finish, keeping the text after the last one', async () => {
    const text = "Thought: I know it\nFinal Answer: It is 100 degrees";
    expect(await parser.parse(text)).toEqual({ returnValues: { output: "It is 100 degrees" }, log: text });
    expect(await parser.parse("Final Answer: draft\nFinal Answer:  the real one ")).toMatchObject({ returnValues: { output: "the real one" } });
  });

  it("accepts a json tag, a bare blob, a list of blobs and object inputs; {} when action_input is absent", async () => {
    expect(await parser.parse('```json\n{"action": "search", "action_input": {"query": "x"}}\n```')).toMatchObject({ toolInput: { query: "x" } });
    expect(await parser.parse('{"action": "search", "action_input": "x"}')).toMatchObject({ tool: "search", toolInput: "x" });
    expect(await parser.parse('```json\n[{"action": "search", "action_input": "a"}, {"action": "search", "action_input": "b"}]\n```')).toMatchObject({
      toolInput: "a",
    });
    expect(await parser.parse('```json\n{"action": "search"}\n```')).toMatchObject({ toolInput: {} });
  });

  it('treats a blob whose action is "Final Answer" as the finish (the JSON chat prompt asks for it)', async () => {
    const text = '```json\n{"action": "Final Answer", "action_input": "4"}\n```';
    expect(await parser.parse(text)).toEqual({ returnValues: { output: "4" }, log: text });
    expect(await parser.parse(`Final Answer:\n${text}`)).toMatchObject({ returnValues: { output: "4" } });
    expect(await parser.parse('```json\n{"action": "Final Answer", "action_input": {"t": 4}}\n```')).toMatchObject({ returnValues: { output: '{"t":4}' } });
  });

  it("refuses a final answer together with a tool call, as LangChain does", async () => {
    const error = await parseError('Final Answer: 4\n```json\n{"action": "search", "action_input": "x"}\n```');
    expect(error.message).toContain('both a final answer and a tool call to "search"');
  });

  it('reads "Final Answer:" only outside the blob: inside its action_input it is part of the tool input', async () => {
    const text = '```json\n{"action": "search", "action_input": "What does Final Answer: mean"}\n```';
    expect(await parser.parse(text)).toEqual({ tool: "search", toolInput: "What does Final Answer: mean", log: text });
    const bare = '{"action": "search", "action_input": "Final Answer: 4"}';
    expect(await parser.parse(bare)).toMatchObject({ tool: "search", toolInput: "Final Answer: 4" });
    const after = '```json\n{"action": "search", "action_input": "x"}\n```\nFinal Answer: 4';
    expect((await parseError(after)).message).toContain("both a final answer and a tool call");
  });

  it("skips a fence tagged with another language and reads the final answer around it", async () => {
    const text = "Final Answer: run\n```python\n[1, 2, 3]\n```";
    expect(await parser.parse(text)).toEqual({ returnValues: { output: "run\n```python\n[1, 2, 3]\n```" }, log: text });
    expect((await parseError("Use:\n```js\n{ a: 1 }\n```")).observation).toContain('there is neither a JSON blob nor "Final Answer:"');
  });

  it('falls back on "Final Answer:" when the blob is not valid or has no action, and tells the model otherwise', async () => {
    expect(await parser.parse('```json\n{"action": \n```\nFinal Answer: 4')).toMatchObject({ returnValues: { output: "4" } });
    expect(await parser.parse('Final Answer: use ```json\n{"a": 1}\n```')).toMatchObject({ returnValues: { output: 'use ```json\n{"a": 1}\n```' } });
    expect((await parseError("I think it is sunny.")).observation).toContain('there is neither a JSON blob nor "Final Answer:"');
    expect((await parseError('```json\n{"action": \n```')).observation).toContain("not valid JSON");
    expect((await parseError('```json\n{"action": "search"')).observation).toContain("the code fence is not closed");
    expect((await parseError('```json\n{"tool": "search"}\n```')).observation).toContain('no string "action"');
  });

  it("skips code blocks that are not JSON, and does not end the blob at a fence inside a string", async () => {
    const text = 'Here is code:\n```sql\nSELECT 1\n```\n```json\n{"action": "search", "action_input": "```sql\\nSELECT 1\\n```"}\n```';
    expect(await parser.parse(text)).toMatchObject({ tool: "search", toolInput: "```sql\nSELECT 1\n```" });
  });

  it("refuses inputs nested more than 100 levels deep with InvalidToolArgumentsException", async () => {
    const error = await parser.parse(`{"action": "search", "action_input": ${nestedArgumentsText(101)}}`).catch((caught: unknown) => caught);
    expect(InvalidToolArgumentsException.isInstance(error)).toBe(true);
  });

  it("only ever returns an action or a finish, or throws OutputParserException, even on a megabyte of fences", async () => {
    await assertParserIsTotal(parser, ["```", "```json\n", '{"action": "search", "action_input": "x"}', "Final Answer:", '"', "{", "\n"]);
    for (const text of [megabyteOf("```"), megabyteOf('```json\n{"action": "'), megabyteOf("Final Answer:")]) {
      await parser.parse(text).catch((error: unknown) => expect(error).toBeInstanceOf(OutputParserException));
    }
  });

  it("throws only OutputParserException for any generation", async () => {
    await assertParserHandlesAnyGeneration(parser);
  });

  it("refuses toolNames that is not an array of non-empty strings, naming the option", () => {
    for (const toolNames of ["search", [null], [""]]) {
      expectInvalidArgument(
        () => new ReActJsonSingleInputOutputParser({ toolNames } as never),
        "toolNames",
        /^ReActJsonSingleInputOutputParser: `toolNames` must be an array of non-empty strings/,
      );
    }
  });

  it("describes the format, naming the tools", () => {
    expect(parser.getFormatInstructions()).toContain('"search"');
    expect(parser.getFormatInstructions()).toContain("Final Answer:");
  });
});

describe("an empty final answer", () => {
  it.each(["Final Answer:", "Thought: done\nFinal Answer:  "])("is a fixable parse error, not an empty answer: %j", async (text) => {
    const error = await parseError(text);
    expect(error.sendToLLM).toBe(true);
    expect(error.observation).toContain('Invalid Format: the final answer is empty. Write the answer after "Final Answer:".');
  });
});

describe("an action blob written without a fence after a thought", () => {
  it("is the tool call it names", async () => {
    expect(await parser.parse('Thought: look it up.\nAction:\n{"action": "search", "action_input": "Paris"}')).toMatchObject({ tool: "search", toolInput: "Paris" });
  });

  it("that does not parse is named as invalid JSON, not as missing", async () => {
    const error = await parseError('Thought: look it up.\n{"action": "search", "action_input": ');
    expect(error.observation).toContain("the JSON blob is not valid JSON");
  });
});
