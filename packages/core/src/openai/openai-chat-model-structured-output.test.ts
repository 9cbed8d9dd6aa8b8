import { OutputParserException } from "@langchain/core/output_parsers";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { failure, setup } from "./test-helpers";

const City = z.object({ city: z.string(), population: z.number() });

describe("OpenAIChatModel.withStructuredOutput", () => {
  it("forces a call of the schema's tool and returns its arguments, validated (streamed or not)", async () => {
    for (const streaming of [false, true]) {
      const { model, server } = await setup({ responses: [{ toolCalls: [{ name: "extract", arguments: { city: "Paris", population: 2 } }] }] }, { streaming });
      const extractor = model.withStructuredOutput(City);
      const result = await extractor.invoke("Paris?");
      expectTypeOf(result).toEqualTypeOf<{ city: string; population: number }>();
      expect(result).toEqual({ city: "Paris", population: 2 });
      const request = server.chatRequests()[0];
      expect(request.tool_choice).toEqual({ type: "function", function: { name: "extract" } });
      expect(request.tools[0].function).toMatchObject({ name: "extract", parameters: { type: "object", required: ["city", "population"] } });
    }
  });

  it("sends the schema as response_format with method jsonSchema, and parses the answer", async () => {
    const { model, server } = await setup({ responses: ['{"city": "Rome", "population": 3}'] });
    const result = await model.withStructuredOutput(City, { method: "jsonSchema", name: "city_info", strict: true }).invoke("Rome?");
    expect(result).toEqual({ city: "Rome", population: 3 });
    const request = server.chatRequests()[0];
    expect(request.tools).toBeUndefined();
    expect(request.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "city_info", strict: true, schema: { type: "object" } } });
  });

  it("asks for a JSON object with method jsonMode", async () => {
    const { model, server } = await setup({ responses: ['```json\n{"city": "Oslo", "population": 1}\n```'] });
    expect(await model.withStructuredOutput(City, { method: "jsonMode" }).invoke("Oslo?")).toEqual({ city: "Oslo", population: 1 });
    expect(server.chatRequests()[0].response_format).toEqual({ type: "json_object" });
  });

  it("fails with an OutputParserException that says why: no call, a schema mismatch, a refusal", async () => {
    const { model } = await setup({
      responses: [
        "I would rather chat.",
        { toolCalls: [{ name: "extract", arguments: { city: "Paris", population: "many" } }] },
        { refusal: "I can't help with that." },
      ],
    });
    const noCall = await failure(model.withStructuredOutput(City).invoke("go"));
    expect(noCall).toBeInstanceOf(OutputParserException);
    expect(noCall.message).toContain('answered without calling "extract": "I would rather chat."');
    const mismatch = await failure(model.withStructuredOutput(City).invoke("go"));
    expect(mismatch).toBeInstanceOf(OutputParserException);
    expect(mismatch.message).toContain('does not match the schema "extract"');
    const refusal = await failure(model.withStructuredOutput(City, { method: "jsonSchema" }).invoke("go"));
    expect(refusal.message).toContain("refused to answer: I can't help with that.");
  });

  it("returns the raw message beside the parsed value with includeRaw (parsed is null when it does not parse)", async () => {
    const { model } = await setup({ responses: [{ toolCalls: [{ name: "extract", arguments: { city: "Nice", population: 1 } }] }, "no call"] });
    const extractor = model.withStructuredOutput(City, { includeRaw: true });
    const good = await extractor.invoke("go");
    expect(good.parsed).toEqual({ city: "Nice", population: 1 });
    expect(good.raw.getType()).toBe("ai");
    const bad = await extractor.invoke("go");
    expect(bad.parsed).toBeNull();
    expect(bad.raw.text).toBe("no call");
  });

  it("takes a JSON Schema, naming the tool after its title", async () => {
    const { model, server } = await setup({ responses: [{ toolCalls: [{ name: "Person", arguments: { name: "Ada" } }] }] });
    const schema = { title: "Person", type: "object", properties: { name: { type: "string" } }, required: ["name"] };
    expect(await model.withStructuredOutput(schema).invoke("go")).toEqual({ name: "Ada" });
    expect(server.chatRequests()[0].tool_choice).toEqual({ type: "function", function: { name: "Person" } });
  });

  it.each([
    [{ method: "xml" }, "method", '`method` must be "functionCalling" or "jsonSchema" or "jsonMode"'],
    [{ method: "jsonMode", strict: true }, "strict", "not to \"jsonMode\""],
    [{ includeRaws: true }, "includeRaws", "unknown option `includeRaws`"],
    [{ name: "city info" }, "name", "letters, digits"],
  ])("refuses bad options %j at once", async (config, argument, fragment) => {
    const { model } = await setup({ responses: [] });
    let error: unknown;
    try {
      model.withStructuredOutput(City, config as never);
    } catch (thrown) {
      error = thrown;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: expect.stringContaining(argument) });
    expect((error as Error).message).toContain(fragment);
  });
});
