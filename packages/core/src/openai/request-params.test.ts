import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { isReasoningModel } from "./request-params";
import { failure, setup } from "./test-helpers";

const weather = tool(async ({ city }) => `Sunny in ${city}`, {
  name: "weather",
  description: "Current weather in a city.",
  schema: z.object({ city: z.string() }),
});

describe("OpenAIChatModel tool options", () => {
  it("sends strict tool schemas when bound with strict: true", async () => {
    const { server, model } = await setup({ responses: ["a", "b"] });
    await model.bindTools([weather], { strict: true }).invoke("x");
    await model.bindTools([weather]).invoke("x");
    const [strict, plain] = server.chatRequests();
    expect(strict.tools[0].function.strict).toBe(true);
    expect(plain.tools[0].function.strict).toBeUndefined();
  });

  it.each([["wether"], [{ type: "function", function: { name: "wether" } }]])(
    "fails clearly, sending nothing, when tool_choice names a tool that is not bound (%j)",
    async (toolChoice) => {
      const { server, model } = await setup({ responses: ["never"] });
      const error = await failure(model.bindTools([weather], { tool_choice: toolChoice as never }).invoke("x"));
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ argument: "tool_choice" });
      expect(error.message).toContain('"wether", which is not bound (the bound tools are "weather")');
      expect(server.requests).toHaveLength(0);
    },
  );

  it("leaves an OpenAI-format tool it binds with strict as it was, so a later call without strict is not strict", async () => {
    const { server, model } = await setup({ responses: ["a", "b"] });
    const definition = { type: "function", function: { name: "w", parameters: { type: "object", properties: {} } } };
    await model.bindTools([definition], { strict: true }).invoke("x");
    await model.bindTools([definition]).invoke("x");
    const [strict, plain] = server.chatRequests();
    expect(strict.tools[0].function.strict).toBe(true);
    expect(plain.tools[0].function.strict).toBeUndefined();
    expect(definition).toEqual({ type: "function", function: { name: "w", parameters: { type: "object", properties: {} } } });
  });

  it("fails clearly, sending nothing, when tool_choice names a tool and no tools are bound", async () => {
    const { server, model } = await setup({ responses: ["never"] });
    const error = await failure(model.bindTools([], { tool_choice: "weather" }).invoke("x"));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "tool_choice" });
    expect(error.message).toContain('"weather", which is not bound (no tools are bound)');
    expect(server.requests).toHaveLength(0);
  });

  it.each([["END"], [["END", 1]]])("refuses a stop call option that is not an array of strings (%j), sending nothing", async (stop) => {
    const { server, model } = await setup({ responses: ["never"] });
    const error = await failure(model.invoke("x", { stop: stop as never }));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: "stop" });
    expect(error.message).toContain("`stop` call option must be an array of strings");
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ["parallel_tool_calls", "false", "a boolean"],
    ["strict", 1, "a boolean"],
    ["seed", 1.5, "an integer"],
    ["seed", "42", "an integer"],
    ["response_format", "json_object", "an object with a `type`"],
    ["response_format", { json_schema: {} }, "an object with a `type`"],
  ])("refuses a %s call option of the wrong type (%j), sending nothing", async (name, value, wanted) => {
    const { server, model } = await setup({ responses: ["never"] });
    const error = await failure(model.bindTools([weather]).invoke("x", { [name]: value } as never));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ argument: name });
    expect(error.message).toContain(`the \`${name}\` call option must be ${wanted}`);
    expect(server.requests).toHaveLength(0);
  });

  it("sends call options of the right type as they are", async () => {
    const { server, model } = await setup({ responses: ["a"] });
    await model.bindTools([weather], { parallel_tool_calls: false, strict: true }).invoke("x", { seed: 7, response_format: { type: "json_object" } });
    expect(server.chatRequests()[0]).toMatchObject({ parallel_tool_calls: false, seed: 7, response_format: { type: "json_object" } });
  });

  it("tells reasoning models from chat models", () => {
    expect(["o1", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5.1"].filter(isReasoningModel)).toHaveLength(6);
    expect(["gpt-4o-mini", "gpt-4.1", "gpt-5-chat-latest", "gpt-5.1-chat-latest", "llama3.1", "omni"].filter(isReasoningModel)).toEqual([]);
  });

  it.each([
    ["toolChoice", "tool_choice"],
    ["parallelToolCalls", "parallel_tool_calls"],
    ["responseFormat", "response_format"],
  ])("refuses a camelCase %s (which would be ignored), naming its name %s, sending nothing", async (camel, snake) => {
    const { server, model } = await setup({ responses: ["never"] });
    const value = camel === "parallelToolCalls" ? false : camel === "responseFormat" ? { type: "json_object" } : "required";
    const bound = failure(Promise.resolve().then(() => model.bindTools([weather], { [camel]: value } as never)));
    const called = failure(model.bindTools([weather]).invoke("x", { [camel]: value } as never));
    for (const error of [await bound, await called]) {
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ argument: camel });
      expect(error.message).toContain(`\`${snake}\``);
    }
    expect(server.requests).toHaveLength(0);
  });

  it.each([[42], [""], [["weather"]], [{ type: "function" }], [{ function: { name: "weather" } }]])(
    "refuses a tool_choice of the wrong shape (%j), sending nothing",
    async (toolChoice) => {
      const { server, model } = await setup({ responses: ["never"] });
      const error = await failure(model.bindTools([weather]).invoke("x", { tool_choice: toolChoice as never }));
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ argument: "tool_choice" });
      expect(error.message).toContain("`tool_choice` must be");
      expect(server.requests).toHaveLength(0);
    },
  );

  it("sends the snake_case tool_choice, given to bindTools or to the call", async () => {
    const { server, model } = await setup({ responses: ["a", "b"] });
    await model.bindTools([weather], { tool_choice: "required" }).invoke("x");
    await model.bindTools([weather]).invoke("x", { tool_choice: "weather" });
    expect(server.chatRequests().map((request) => request.tool_choice)).toEqual(["required", { type: "function", function: { name: "weather" } }]);
  });
});
