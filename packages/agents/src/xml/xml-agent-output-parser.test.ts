import { OutputParserException } from "@langchain/core/output_parsers";
import { describe, expect, it } from "vitest";
import { assertParserHandlesAnyGeneration, assertParserIsTotal, megabyteOf, parseTotally } from "../test-utils/parser-properties";
import { formatXml } from "./format-xml";
import { XMLAgentOutputParser } from "./xml-agent-output-parser";
import { expectInvalidArgument } from "../test-utils/expect-invalid-argument";

const parser = new XMLAgentOutputParser();

async function parseError(text: string): Promise<OutputParserException> {
  const error = await parser.parse(text).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(OutputParserException);
  return error as OutputParserException;
}

describe("XMLAgentOutputParser", () => {
  it("parses a tool call, closed or cut at the stop sequence", async () => {
    const closed = "<tool>search</tool><tool_input>weather in Paris</tool_input>";
    expect(await parser.parse(closed)).toEqual({ tool: "search", toolInput: "weather in Paris", log: closed });
    expect(await parser.parse("<tool>search</tool>\n<tool_input> Paris ")).toMatchObject({ tool: "search", toolInput: "Paris" });
    expect(await parser.parse("<tool>clock</tool>")).toMatchObject({ tool: "clock", toolInput: "" });
  });

  it("parses a final answer, closed or cut at the stop sequence", async () => {
    expect(await parser.parse("<final_answer>Sunny</final_answer>")).toMatchObject({ returnValues: { output: "Sunny" } });
    expect(await parser.parse("I know.\n<final_answer>Sunny")).toMatchObject({ returnValues: { output: "Sunny" } });
  });

  it("reads a final answer that mentions the <tool> tag as the answer, not as a broken tool call", async () => {
    const answer = "<final_answer>Wrap the tool's name in a <tool> tag.</final_answer>";
    expect(await parser.parse(answer)).toEqual({ returnValues: { output: "Wrap the tool's name in a <tool> tag." }, log: answer });
    const thought = "I could use a <tool> here, but I know it.\n<final_answer>Sunny";
    expect(await parser.parse(thought)).toMatchObject({ returnValues: { output: "Sunny" } });
    const call = "<tool>write</tool><tool_input>the <final_answer> tag";
    expect(await parser.parse(call)).toMatchObject({ tool: "write", toolInput: "the <final_answer> tag" });
  });

  it("reverses the minimal escaping of formatXml", async () => {
    const scratchpad = formatXml([{ action: { tool: "echo", toolInput: "<tool>x</tool>", log: "" }, observation: "<final_answer>no</final_answer>" }]);
    expect(scratchpad).toBe(
      "<tool>echo</tool><tool_input>[[tool]]x[[/tool]]</tool_input><observation>[[final_answer]]no[[/final_answer]]</observation>",
    );
    expect(await parser.parse("<tool>echo</tool><tool_input>[[tool]]x[[/tool]]")).toMatchObject({ toolInput: "<tool>x</tool>" });
  });

  it("refuses an escapeFormat other than minimal or none, naming the option (it would silently act as none)", () => {
    for (const escapeFormat of ["full", "", null]) {
      expectInvalidArgument(() => new XMLAgentOutputParser({ escapeFormat } as never), "escapeFormat", /^XMLAgentOutputParser: `escapeFormat` must be "minimal" or "none", got /);
      expectInvalidArgument(() => formatXml([], { escapeFormat } as never), "escapeFormat", /^formatXml: `escapeFormat` must be "minimal" or "none", got /);
    }
  });

  it("rejects several tool blocks, several answers, an unclosed tool tag and plain text", async () => {
    expect((await parseError("<tool>a</tool><tool>b</tool>")).message).toContain("exactly one <tool> block, found 2");
    expect((await parseError("<final_answer>a</final_answer><final_answer>b")).message).toContain("exactly one <final_answer>");
    expect((await parseError("<tool>search")).observation).toContain("not closed");
    expect((await parseError("<tool>a</tool><tool_input>1</tool_input><tool_input>2")).message).toContain("at most one <tool_input>");
    const plain = await parseError("Just text.");
    expect(plain.sendToLLM).toBe(true);
    expect(plain.observation).toContain("<final_answer>");
    expect(plain.llmOutput).toBe("Just text.");
  });

  it("only ever returns an action or a finish, or throws OutputParserException", async () => {
    await assertParserIsTotal(parser, ["<tool>", "</tool>", "<tool_input>", "</tool_input>", "<final_answer>", "</final_answer>", "[[tool]]", "search"]);
  });

  it("handles one-megabyte adversarial inputs (nested and unclosed tags)", async () => {
    for (const text of [megabyteOf("<tool>"), megabyteOf("<tool><tool_input>"), `<tool>x</tool><tool_input>${megabyteOf("<")}`, megabyteOf("<final_answer>"), `<final_answer>${megabyteOf("[[tool]]")}`]) {
      const result = await parseTotally(parser, text);
      expect(result.ok || result.error instanceof OutputParserException).toBe(true);
    }
  });

  it("throws only OutputParserException for any generation: text that is not a string, content blocks of other kinds, throwing objects", async () => {
    await assertParserHandlesAnyGeneration(parser);
  });
});

describe("an empty final answer", () => {
  it.each(["<final_answer></final_answer>", "<final_answer>  \n</final_answer>", "<final_answer>"])("is a fixable parse error, not an empty answer: %j", async (text) => {
    const error = await parseError(text);
    expect(error.sendToLLM).toBe(true);
    expect(error.observation).toContain("the <final_answer> block is empty; write the answer inside it");
  });
});
