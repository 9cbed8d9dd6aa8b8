import { OutputParserException } from "@langchain/core/output_parsers";
import { describe, expect, it } from "vitest";
import { assertParserIsTotal, megabyteOf, parseTotally } from "../test-utils/parser-properties";
import { SelfAskOutputParser } from "./self-ask-output-parser";

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

  it("only looks at the last line", async () => {
    const error = await parser.parse("Follow up: Who?\nI am not sure.").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutputParserException);
    expect((error as OutputParserException).sendToLLM).toBe(true);
    expect((error as OutputParserException).observation).toContain("So the final answer is:");
  });

  it("rejects an empty follow-up question", async () => {
    await expect(parser.parse("Follow up:   ")).rejects.toBeInstanceOf(OutputParserException);
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
});
