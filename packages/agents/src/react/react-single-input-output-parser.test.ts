import { OutputParserException } from "@langchain/core/output_parsers";
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { assertParserHandlesAnyGeneration, assertParserIsTotal, megabyteOf, parseTotally } from "../test-utils/parser-properties";
import {
  MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE,
  MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE,
  ReActSingleInputOutputParser,
} from "./react-single-input-output-parser";
import { expectInvalidArgument } from "../test-utils/expect-invalid-argument";

const parser = new ReActSingleInputOutputParser({ toolNames: ["search", "calc"] });

async function parseError(text: string): Promise<OutputParserException> {
  const error = await parser.parse(text).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(OutputParserException);
  return error as OutputParserException;
}

describe("ReActSingleInputOutputParser", () => {
  it("parses an action and its input", async () => {
    const text = "Thought: I should search.\nAction: search\nAction Input: weather in Paris";
    expect(await parser.parse(text)).toEqual({ tool: "search", toolInput: "weather in Paris", log: text });
  });

  it("strips quotes around the input and whitespace around both", async () => {
    const text = 'Action:   search  \nAction Input:  "weather in Paris"  ';
    expect(await parser.parse(text)).toMatchObject({ tool: "search", toolInput: "weather in Paris" });
  });

  it("accepts numbered markers and the tool name on the next line", async () => {
    expect(await parser.parse("Action 1:\nsearch\nAction 1 Input 1: x")).toMatchObject({ tool: "search", toolInput: "x" });
  });

  it('takes the tool from the "Action:" that starts a line, not one written inside the thought', async () => {
    const text = "Thought: the next Action: is a search.\nAction: search\nAction Input: Paris";
    expect(await parser.parse(text)).toEqual({ tool: "search", toolInput: "Paris", log: text });
    expect(await parser.parse("Action: search\n  Action 2: calc\nAction Input: 1+1")).toMatchObject({ tool: "calc", toolInput: "1+1" });
    // Without an "Action:" at a line start, one inside the text still counts, as in LangChain.
    expect(await parser.parse("I will search. Action: search Action Input: Paris")).toMatchObject({ tool: "search", toolInput: "Paris" });
  });

  it("keeps a multi-line input", async () => {
    expect(await parser.parse("Action: calc\nAction Input: 1 +\n2")).toMatchObject({ toolInput: "1 +\n2" });
  });

  it("parses a final answer (after the last marker)", async () => {
    const text = "Thought: I know it.\nFinal Answer: Paris is sunny.\n";
    expect(await parser.parse(text)).toEqual({ returnValues: { output: "Paris is sunny." }, log: text });
  });

  it("rejects an action together with a final answer", async () => {
    const error = await parseError("Action: search\nAction Input: x\nFinal Answer: y");
    expect(error.message).toContain("both a final answer and a parse-able action");
    expect(error.llmOutput).toBe("Action: search\nAction Input: x\nFinal Answer: y");
  });

  it("tells the model that Action: is missing", async () => {
    const error = await parseError("Thought: I am thinking very hard.");
    expect(error.sendToLLM).toBe(true);
    expect(error.observation).toBe(MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE);
    expect(error.observation).toBe("Invalid Format: Missing 'Action:' after 'Thought:'");
    expect(error.llmOutput).toBe("Thought: I am thinking very hard.");
  });

  it("tells the model that Action Input: is missing", async () => {
    const error = await parseError("Thought: search it\nAction: search");
    expect(error.sendToLLM).toBe(true);
    expect(error.observation).toBe(MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE);
    expect(error.observation).toBe("Invalid Format: Missing 'Action Input:' after 'Action:'");
  });

  it("rejects an input before its action (telling the model the fix) and an empty tool name", async () => {
    const reversed = await parseError("Action Input: x\nAction: search");
    expect(reversed.message).toContain("Could not parse LLM output");
    expect(reversed.sendToLLM).toBe(true);
    expect(reversed.observation).toBe(MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE);
    expect((await parseError("Action:\nAction Input: x")).observation).toContain("Missing tool name");
  });

  it("refuses toolNames that is not an array of non-empty strings, naming the option", () => {
    for (const toolNames of ["search", [1], [""], {}]) {
      expectInvalidArgument(
        () => new ReActSingleInputOutputParser({ toolNames } as never),
        "toolNames",
        /^ReActSingleInputOutputParser: `toolNames` must be an array of non-empty strings/,
      );
    }
  });

  it("reads a chat message's text through message.text (content blocks)", async () => {
    const message = new AIMessage({
      content: [
        { type: "text", text: "Action: search\n" },
        { type: "text", text: "Action Input: Paris" },
      ],
    });
    expect(await parser.invoke(message)).toMatchObject({ tool: "search", toolInput: "Paris" });
  });

  it("only ever returns an action or a finish, or throws OutputParserException", async () => {
    await assertParserIsTotal(parser, ["Action:", "Action 2:", "Action Input:", "Action 1 Input 1:", "Final Answer:", "Thought:", "Observation:", "search"]);
  });

  it("handles one-megabyte adversarial inputs", async () => {
    for (const text of [
      megabyteOf("Action:"),
      megabyteOf("Action "),
      megabyteOf("Action 1 "),
      megabyteOf("Action Input "),
      `Action:${megabyteOf(" ")}x`,
      `Action: a${megabyteOf("\t\n ")}Action Input${megabyteOf(" 1")}`,
      megabyteOf("Final Answer:"),
    ]) {
      const result = await parseTotally(parser, text);
      expect(result.ok || result.error instanceof OutputParserException).toBe(true);
    }
  });

  it("throws only OutputParserException for any generation: text that is not a string, content blocks of other kinds, throwing objects", async () => {
    await assertParserHandlesAnyGeneration(parser);
  });
});

describe("an empty final answer", () => {
  it.each(["Final Answer:", "Thought: done\nFinal Answer:   \n", "Final Answer: x\nFinal Answer:"])("is a fixable parse error, not an empty answer: %j", async (text) => {
    const error = await parseError(text);
    expect(error.sendToLLM).toBe(true);
    expect(error.observation).toBe('Invalid Format: the final answer is empty. Write the answer after "Final Answer:".');
  });
});
