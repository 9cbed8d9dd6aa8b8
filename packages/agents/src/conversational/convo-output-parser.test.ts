import { InvalidArgumentError } from "@agentrx/core";
import { OutputParserException } from "@langchain/core/output_parsers";
import { describe, expect, it } from "vitest";
import { assertParserHandlesAnyGeneration, assertParserIsTotal, megabyteOf } from "../test-utils/parser-properties";
import { ConvoOutputParser } from "./convo-output-parser";
import { expectInvalidArgument } from "../test-utils/expect-invalid-argument";

const parser = new ConvoOutputParser();

async function action(text: string) {
  const output = await parser.parse(text);
  expect(output).toHaveProperty("tool");
  return output as { tool: string; toolInput: unknown; log: string };
}

describe("ConvoOutputParser", () => {
  // LangChain's cases: a plain action, a multi-line input with code, an observation the model wrote, a partial one.
  it("reads Action and Action Input as a tool call", async () => {
    const text = "Action: my_action\nAction Input: my action input";
    expect(await parser.parse(text)).toEqual({ tool: "my_action", toolInput: "my action input", log: text });
  });

  it("keeps a multi-line input with a code block", async () => {
    const input = 'Evaluate Code with the following Python content:\n```python\nprint("Hello"[::-1])\n```';
    const parsed = await action(`Thought: Do I need to use a tool? Yes\nAction: evaluate_code\nAction Input: ${input}`);
    expect([parsed.tool, parsed.toolInput]).toEqual(["evaluate_code", input]);
  });

  it("stops the input at an Observation the model wrote, whole or cut short", async () => {
    const head = "Thought: Do I need to use a tool? Yes\nAction: my_tool\nAction Input: the input to the action";
    expect((await action(`${head}\nObservation: the result of the action`)).toolInput).toBe("the input to the action");
    expect((await action(`${head}\nObs`)).toolInput).toBe("the input to the action");
    expect((await action(`${head}\nObserved facts`)).toolInput).toBe("the input to the action\nObserved facts");
  });

  it('strips surrounding quotes and reads "AI:" as the final answer (after the last one), with a custom prefix too', async () => {
    expect((await action('Action: search\nAction Input: "Paris"')).toolInput).toBe("Paris");
    const text = "Thought: Do I need to use a tool? No\nAI: It is sunny.";
    expect(await parser.parse(text)).toEqual({ returnValues: { output: "It is sunny." }, log: text });
    expect(await new ConvoOutputParser({ aiPrefix: "Bot" }).parse("Bot: Hi! AI: is a topic")).toMatchObject({ returnValues: { output: "Hi! AI: is a topic" } });
    expect(() => new ConvoOutputParser({ aiPrefix: "" })).toThrow(InvalidArgumentError);
  });

  it('reads "AI:" only at the start of a line or after a space, not inside a word such as "OpenAI:"', async () => {
    const text = "Thought: Do I need to use a tool? Yes\nAction: search\nAction Input: OpenAI: latest news";
    expect(await parser.parse(text)).toEqual({ tool: "search", toolInput: "OpenAI: latest news", log: text });
    expect(await new ConvoOutputParser({ aiPrefix: "Bot" }).parse("Action: search\nAction Input: RoBot: specs")).toMatchObject({ tool: "search", toolInput: "RoBot: specs" });
    expect(await parser.parse("Thought: Do I need to use a tool? No AI: Hi")).toMatchObject({ returnValues: { output: "Hi" } });
    expect(await parser.parse("AI: Hi, OpenAI: is a company")).toMatchObject({ returnValues: { output: "Hi, OpenAI: is a company" } });
  });

  it("refuses an aiPrefix that is not a non-empty string, naming the option", () => {
    for (const aiPrefix of ["", "  ", 7]) {
      expectInvalidArgument(() => new ConvoOutputParser({ aiPrefix } as never), "aiPrefix", /^ConvoOutputParser: `aiPrefix` must be a non-empty string such as "AI", got /);
    }
  });

  it("refuses text without an action, or an action without a tool, telling the model the format", async () => {
    for (const text of ["I am not sure.", "Action: search", "Action:\nAction Input: x"]) {
      const error = await parser.parse(text).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OutputParserException);
      expect((error as OutputParserException).sendToLLM).toBe(true);
      expect((error as OutputParserException).observation).toContain('"AI: <your reply>"');
    }
  });

  it("only ever returns an action or a finish, or throws OutputParserException", async () => {
    await assertParserIsTotal(parser, ["Action:", "Action Input:", "AI:", "\nObservation:", "\nObs", '"', "\n"]);
    await assertParserHandlesAnyGeneration(parser);
    await parser.parse(megabyteOf("Action: ")).catch((error: unknown) => expect(error).toBeInstanceOf(OutputParserException));
  });
});
