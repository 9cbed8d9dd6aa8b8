import { OutputParserException } from "@langchain/core/output_parsers";
import { describe, expect, it } from "vitest";
import { assertParserHandlesAnyGeneration, assertParserIsTotal, megabyteOf, parseTotally } from "../test-utils/parser-properties";
import { SelfAskOutputParser } from "./self-ask-output-parser";
import { expectInvalidArgument } from "../test-utils/expect-invalid-argument";

const parser = new SelfAskOutputParser();

describe("SelfAskOutputParser", () => {
  it("turns the last line's follow-up question into an Intermediate Answer action", async () => {
    const text = " Yes.\nFollow up: Who composed the Brandenburg Concertos?\n";
    expect(await parser.parse(text)).toEqual({ tool: "Intermediate Answer", toolInput: "Who composed the Brandenburg Concertos?", log: text });
    expect(await parser.parse("Followup: When?")).toMatchObject({ toolInput: "When?" });
  });

  it("reads the final answer from the last line", async () => {
    const text = "Intermediate answer: Bach.\nSo the final answer is: Johann Ambrosius Bach";
    expect(await parser.parse(text)).toEqual({ returnValues: { output: "Johann Ambrosius Bach" }, log: text });
  });

  it("reads a final answer that starts on the next line or spans several lines", async () => {
    const nextLine = "Are follow up questions needed here: No.\nSo the final answer is:\nJohann Sebastian Bach";
    expect(await parser.parse(nextLine)).toEqual({ returnValues: { output: "Johann Sebastian Bach" }, log: nextLine });
    const multiLine = "So the final answer is: Bach wrote six concertos.\nThey were dedicated to a margrave.\n";
    expect(await parser.parse(multiLine)).toMatchObject({
      returnValues: { output: "Bach wrote six concertos.\nThey were dedicated to a margrave." },
    });
    expect(await parser.parse("So the final answer is: Rome\nFollow up: Who founded it?")).toMatchObject({
      tool: "Intermediate Answer",
      toolInput: "Who founded it?",
    });
  });

  it("rejects an empty final answer", async () => {
    const error = await parser.parse("So the final answer is:   \n").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutputParserException);
    expect((error as OutputParserException).observation).toContain("So the final answer is:");
  });

  it("only takes a follow-up question from the last line", async () => {
    const error = await parser.parse("Follow up: Who?\nI am not sure.").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutputParserException);
    expect((error as OutputParserException).sendToLLM).toBe(true);
    expect((error as OutputParserException).observation).toContain("So the final answer is:");
  });

  it("rejects an empty follow-up question", async () => {
    await expect(parser.parse("Follow up:   ")).rejects.toBeInstanceOf(OutputParserException);
    await expect(parser.parse("So the final answer is: Rome\nFollow up:")).rejects.toBeInstanceOf(OutputParserException);
  });

  it("refuses an empty finishString or follow-up marker, naming the option", async () => {
    for (const finishString of ["", " ", 3]) {
      expectInvalidArgument(() => new SelfAskOutputParser({ finishString } as never), "finishString", /^SelfAskOutputParser: `finishString` must be a non-empty string/);
    }
    for (const followUps of ["Follow up:", [], [""], ["Follow up:", " "], [1]]) {
      expectInvalidArgument(() => new SelfAskOutputParser({ followUps } as never), "followUps", /^SelfAskOutputParser: `followUps` must be a non-empty array of non-empty strings/);
    }
    expect(await new SelfAskOutputParser({ followUps: ["Next:"], finishString: "Answer:" }).parse("Next: Who?")).toMatchObject({ toolInput: "Who?" });
  });

  it("only ever returns an action or a finish, or throws OutputParserException", async () => {
    await assertParserIsTotal(parser, ["Follow up:", "Followup:", "So the final answer is:", "Intermediate answer:", "Yes."]);
  });

  it("handles one-megabyte adversarial inputs", async () => {
    for (const text of [megabyteOf("Follow up:"), megabyteOf("\n"), megabyteOf("So the final answer is:")]) {
      const result = await parseTotally(parser, text);
      expect(result.ok || result.error instanceof OutputParserException).toBe(true);
    }
  });

  it("throws only OutputParserException for any generation: text that is not a string, content blocks of other kinds, throwing objects", async () => {
    await assertParserHandlesAnyGeneration(parser);
  });
});
