import { OutputParserException } from "@langchain/core/output_parsers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { ScriptedChatModel } from "./scripted-chat-model";

const Answer = z.object({ answer: z.number() });

describe("ScriptedChatModel.withStructuredOutput", () => {
  it("returns the scripted call's arguments, forcing the call by tool_choice (streamed or not)", async () => {
    for (const streaming of [false, true]) {
      const model = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "extract", args: { answer: 42 } }] }], streaming });
      expect(await model.withStructuredOutput(Answer).invoke("6 × 7?")).toEqual({ answer: 42 });
      expect(model.calls[0]).toMatchObject({ toolNames: ["extract"], toolChoice: "extract" });
    }
  });

  it("fails with an OutputParserException when the script answers without the call", async () => {
    const model = new ScriptedChatModel({ responses: ["Forty-two."] });
    await expect(model.withStructuredOutput(Answer).invoke("go")).rejects.toThrow(OutputParserException);
  });

  it("refuses a method it cannot play", () => {
    const model = new ScriptedChatModel({ responses: [] });
    expect(() => model.withStructuredOutput(Answer, { method: "jsonSchema" })).toThrow(InvalidArgumentError);
  });
});
