import { OutputParserException } from "@langchain/core/output_parsers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { failure, setup } from "../openai/test-helpers";
import { ScriptedChatModel } from "../testing/scripted-chat-model";

/** Every value `runnable.stream(input)` yields. */
async function streamed(runnable: { stream(input: string): Promise<AsyncIterable<unknown>> }, input: string): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const value of await runnable.stream(input)) values.push(value);
  return values;
}

const City = z.object({ city: z.string() });

describe("withStructuredOutput with truncated tool-call arguments", () => {
  it("fails with an OutputParserException from OpenAIChatModel, streamed or not", async () => {
    const cut = { toolCalls: [{ name: "extract", arguments: '{"city": "Par' }], finishReason: "length" as const };
    const { model } = await setup({ responses: [cut, cut] });
    const { model: streamingModel } = await setup({ responses: [cut] }, { streaming: true });
    for (const run of [
      () => streamed(model.withStructuredOutput(City), "x"),
      () => model.withStructuredOutput(City).invoke("x"),
      () => streamingModel.withStructuredOutput(City).invoke("x"),
    ]) {
      const error = await failure(run());
      expect(error).toBeInstanceOf(OutputParserException);
      expect(error.message).toContain('called "extract" with arguments that are not valid JSON');
      expect(error.message).toContain('{"city": "Par');
    }
  });

  it("fails with an OutputParserException from ScriptedChatModel, streamed or not", async () => {
    const cut = { toolCalls: [{ name: "extract", args: '{"city": "Par' }] };
    const model = new ScriptedChatModel({ responses: [cut, cut] });
    for (const run of [() => streamed(model.withStructuredOutput(City), "x"), () => model.withStructuredOutput(City).invoke("x")]) {
      const error = await failure(run());
      expect(error).toBeInstanceOf(OutputParserException);
      expect(error.message).toContain("not valid JSON");
    }
  });

  it("still streams complete arguments to the parsed value", async () => {
    const { model } = await setup({ responses: [{ toolCalls: [{ name: "extract", arguments: { city: "Paris" } }] }] });
    expect(await streamed(model.withStructuredOutput(City), "x")).toEqual([{ city: "Paris" }]);
  });
});

describe("withStructuredOutput names a JSON Schema after its title", () => {
  it("makes a title that is not a valid name into one", async () => {
    const long = `A ${"very ".repeat(20)}long title`;
    const { model, server } = await setup({
      responses: [{ toolCalls: [{ name: "City_info_", arguments: { city: "Oslo" } }] }, '{"city": "Rome"}', { toolCalls: [{ name: "extract", arguments: { city: "Nice" } }] }],
    });
    const schema = (title: string) => ({ title, type: "object", properties: { city: { type: "string" } }, required: ["city"] });
    expect(await model.withStructuredOutput(schema("City info?")).invoke("x")).toEqual({ city: "Oslo" });
    expect(server.chatRequests()[0].tool_choice).toEqual({ type: "function", function: { name: "City_info_" } });
    expect(await model.withStructuredOutput(schema(long), { method: "jsonSchema" }).invoke("x")).toEqual({ city: "Rome" });
    const sent: string = server.chatRequests()[1].response_format.json_schema.name;
    expect(sent).toBe(long.replace(/ /g, "_").slice(0, 64));
    expect(sent).toHaveLength(64);
    expect(await model.withStructuredOutput(schema("")).invoke("x")).toEqual({ city: "Nice" });
  });

  it("still refuses an explicit name that is not valid", async () => {
    const { model } = await setup({ responses: [] });
    const schema = { title: "City", type: "object", properties: {} };
    expect(() => model.withStructuredOutput(schema, { name: "City info" })).toThrow(InvalidArgumentError);
  });
});

describe("withStructuredOutput on a refusal", () => {
  it.each(["functionCalling", "jsonSchema"] as const)("says the model refused, and quotes it, with method %s, streamed or not", async (method) => {
    const refusal = { refusal: "I can't help with that." };
    const { model } = await setup({ responses: [refusal, refusal] });
    const { model: streamingModel } = await setup({ responses: [refusal] }, { streaming: true });
    for (const run of [() => model.withStructuredOutput(City, { method }).invoke("x"), () => streamingModel.withStructuredOutput(City, { method }).invoke("x")]) {
      const error = await failure(run());
      expect(error).toBeInstanceOf(OutputParserException);
      expect(error.message.split("\n")[0]).toBe("OpenAIChatModel: the model refused to answer: I can't help with that.");
      expect((error as OutputParserException).llmOutput).toBe("I can't help with that.");
    }
    const { model: rawModel } = await setup({ responses: [refusal] });
    const { parsed, raw } = await rawModel.withStructuredOutput(City, { method, includeRaw: true }).invoke("x");
    expect(parsed).toBeNull();
    expect(raw.additional_kwargs.refusal).toBe("I can't help with that.");
  });
});
