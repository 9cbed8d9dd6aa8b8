import { createReactAgent, createToolCallingAgent, formatToToolMessages } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { type AgentStreamEvent, AgentExecutor, OutputValidationError, type RunInfo, finalAnswerTool, restoreRunState } from "@agentrx/executors";
import { AIMessage, type ToolMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, PromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { lastValueFrom, tap } from "rxjs";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { collect, unhandledDuring } from "./test-helpers";

const Weather = z.object({ city: z.string(), celsius: z.number() });
const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
const lookup = tool(async ({ city }: { city: string }) => `${city}: 21 C`, { name: "lookup", description: "Weather.", schema: z.object({ city: z.string() }) });

function toolCalling(responses: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"], maxIterations = 5) {
  const llm = new ScriptedChatModel({ streaming: true, responses });
  const tools = [lookup, finalAnswerTool(Weather)];
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools: [lookup], outputSchema: Weather, maxIterations });
  return { executor, llm };
}

describe("outputSchema", () => {
  it("refuses a tool of the user's named final_answer (it would never run), and takes finalAnswerTool given to the executor too", () => {
    const llm = new ScriptedChatModel({ responses: ["{}"] });
    const mine = tool(async () => "sent", { name: "final_answer", description: "Sends the answer by mail.", schema: z.object({}) });
    const agent = createToolCallingAgent({ llm, tools: [lookup, mine], prompt });
    expect(() => new AgentExecutor({ agent, tools: [lookup, mine], outputSchema: Weather })).toThrow(
      'AgentExecutor: `tools[1]` is named "final_answer", the tool the model answers through with `outputSchema` (a call to final_answer is the run\'s answer, so your tool would never run). Rename it.',
    );
    // Without outputSchema it is an ordinary tool.
    expect(() => new AgentExecutor({ agent, tools: [lookup, mine] })).not.toThrow();
    const answer = finalAnswerTool(Weather);
    const typed = createToolCallingAgent({ llm, tools: [lookup, answer], prompt });
    expect(() => new AgentExecutor({ agent: typed, tools: [lookup, answer], outputSchema: Weather })).not.toThrow();
  });

  it("a tool-calling model answers through final_answer: the result carries the typed value next to the text", async () => {
    const { executor, llm } = toolCalling([
      { toolCalls: [{ name: "lookup", args: { city: "Paris" } }] },
      { toolCalls: [{ name: "final_answer", args: { city: "Paris", celsius: 21 } }] },
    ]);
    const result = await executor.invoke({ input: "Weather in Paris?" });
    expect(result.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    expect(result.output).toBe('{"city":"Paris","celsius":21}');
    expectTypeOf(result.structuredOutput).toEqualTypeOf<{ city: string; celsius: number } | undefined>();
    expect(llm.calls[0]?.toolNames).toEqual(["lookup", "final_answer"]);
  });

  it("an answer that does not fit goes back to the model, naming the problem; the output event carries the value", async () => {
    const { executor, llm } = toolCalling([
      { toolCalls: [{ name: "final_answer", args: { city: "Paris", celsius: "warm" } }] },
      { toolCalls: [{ name: "final_answer", args: { city: "Paris", celsius: 21 } }] },
    ]);
    const events = await collect(executor.stream({ input: "Weather in Paris?" }));
    const step = events.find((event) => event.type === "step");
    expect(step?.type === "step" && step.step.observation).toMatch(/does not fit the required format: celsius: .*number/i);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "finish", structuredOutput: { city: "Paris", celsius: 21 } });
    expect(llm.calls).toHaveLength(2);
  });

  it("an answer that does not fit goes back as the answer to the model's own final_answer call: its message (reasoning and all) then a tool message with the problem", async () => {
    const store = new InProcessRunStore();
    const thinking = { type: "thinking", thinking: "Paris is warm today.", signature: "sig-1" };
    const asked = new AIMessage({
      content: [thinking, { type: "text", text: "Answering." }],
      tool_calls: [
        { id: "look-1", name: "lookup", args: { city: "Paris" } },
        { id: "final-1", name: "final_answer", args: { city: "Paris", celsius: "hot" } },
      ],
    });
    const llm = new ScriptedChatModel({ responses: [asked, { toolCalls: [{ id: "final-2", name: "final_answer", args: { city: "Paris", celsius: 21 } }] }] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup, finalAnswerTool(Weather)], prompt }), tools: [lookup], outputSchema: Weather, store });
    const result = await executor.invoke({ input: "Weather in Paris?" }, { runId: "typed" });
    expect(result.structuredOutput).toEqual({ city: "Paris", celsius: 21 });
    const retry = llm.calls[1]?.messages ?? [];
    expect(retry.map((message) => message.getType())).toEqual(["human", "ai", "tool"]);
    const [, ai, answer] = retry as [unknown, AIMessage, ToolMessage];
    // The model's message as it sent it, with only the call that is answered (lookup never ran).
    expect(ai.content).toEqual([thinking, { type: "text", text: "Answering." }]);
    expect(ai.tool_calls?.map((call) => [call.id, call.name, call.args])).toEqual([["final-1", "final_answer", { city: "Paris", celsius: "hot" }]]);
    expect(answer.tool_call_id).toBe("final-1");
    expect(answer.content).toMatch(/^Your final answer does not fit the required format: celsius: .*number.*Answer again, in that format\.$/i);
    // The step is still the invalid answer's (a handled parsing error), and the record keeps the call: a restored run sends the same.
    const step = (await store.readEvents("typed")).find((event) => event.type === "step");
    expect(step?.data["index"]).toBeUndefined();
    const restoredSteps = restoreRunState((await store.getRun("typed")) as RunInfo, await store.readEvents("typed")).state.steps;
    expect(restoredSteps[0]?.action).toMatchObject({ tool: "_Exception", toolCallId: "final-1" });
    expect(formatToToolMessages(restoredSteps).map((message) => message.getType())).toEqual(["ai", "tool"]);
  });

  it("a text agent's answer that does not fit goes back as before: the answer, then the problem", async () => {
    const react = PromptTemplate.fromTemplate("Tools: {tools} ({tool_names})\nQuestion: {input}\n{agent_scratchpad}");
    const llm = new ScriptedChatModel({ responses: ['Final Answer: {"city": "Rome", "celsius": "hot"}', 'Final Answer: {"city": "Rome", "celsius": 26}'] });
    const executor = new AgentExecutor({ agent: createReactAgent({ llm, tools: [lookup], prompt: react }), tools: [lookup], outputSchema: Weather });
    expect((await executor.invoke({ input: "Rome?" })).structuredOutput).toEqual({ city: "Rome", celsius: 26 });
    const retry = llm.calls[1]?.messages.map((message) => message.text).join("\n") ?? "";
    expect(retry).toContain('Question: Rome?\n{"city":"Rome","celsius":"hot"}\nObservation: Your final answer does not fit the required format: celsius:');
  });

  it("fails with an OutputValidationError naming the problem when no iteration is left", async () => {
    const { executor } = toolCalling([{ toolCalls: [{ name: "final_answer", args: { city: 3 } }] }], 1);
    const error = await executor.invoke({ input: "Weather?" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(OutputValidationError.isInstance(error)).toBe(true);
    expect((error as OutputValidationError).issues).toMatch(/city/);
  });

  it("a text agent answers with JSON in its final answer (a fenced block is fine), tokens still stream", async () => {
    const react = PromptTemplate.fromTemplate("Tools: {tools} ({tool_names})\nQuestion: {input}\n{agent_scratchpad}");
    const llm = new ScriptedChatModel({
      streaming: true,
      responses: ['Thought: done\nFinal Answer: ```json\n{"city": "Rome", "celsius": 26}\n```'],
    });
    const executor = new AgentExecutor({ agent: createReactAgent({ llm, tools: [lookup], prompt: react }), tools: [lookup], outputSchema: Weather });
    const events = await collect(executor.stream({ input: "Rome?" }));
    expect(events.some((event) => event.type === "token")).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "output", structuredOutput: { city: "Rome", celsius: 26 } });
  });

  it.each([
    ["a JSON object in a block tagged JSON", 'Final Answer: ```JSON\n{"city": "Rome", "celsius": 26}\n```', Weather, { city: "Rome", celsius: 26 }],
    ["the json block after a block in another language", 'Final Answer: ```python\nprint(1)\n```\n```json\n{"city": "Rome", "celsius": 26}\n```', Weather, { city: "Rome", celsius: 26 }],
    ["plain text for a string schema", "Final Answer: hello there", z.string(), "hello there"],
    ["digits for a string schema, as text", "Final Answer: 123", z.string(), "123"],
    ["a JSON string for a string schema", 'Final Answer: "quoted"', z.string(), "quoted"],
    ["a value of an enum", "Final Answer: yes", z.enum(["yes", "no"]), "yes"],
    ["a number for a number schema", "Final Answer: 42", z.number(), 42],
  ] as [string, string, z.ZodType, unknown][])("a text agent's final answer: %s", async (_name, answer, schema, expected) => {
    const react = PromptTemplate.fromTemplate("Tools: {tools} ({tool_names})\nQuestion: {input}\n{agent_scratchpad}");
    const llm = new ScriptedChatModel({ responses: [`Thought: done\n${answer}`] });
    // Typed as an object schema (what finalAnswerTool needs); from JavaScript any zod schema comes through.
    const executor = new AgentExecutor({ agent: createReactAgent({ llm, tools: [lookup], prompt: react }), tools: [lookup], outputSchema: schema as z.ZodType<Record<string, unknown>>, maxIterations: 1 });
    expect((await executor.invoke({ input: "Rome?" })).structuredOutput).toEqual(expected);
  });

  it("a text answer that fits neither as JSON nor as text names what is wrong", async () => {
    const react = PromptTemplate.fromTemplate("Tools: {tools} ({tool_names})\nQuestion: {input}\n{agent_scratchpad}");
    for (const [answer, problem] of [
      ["maybe", /not JSON/],
      ["42", /expected object/i],
    ] as const) {
      const llm = new ScriptedChatModel({ responses: [`Final Answer: ${answer}`] });
      const executor = new AgentExecutor({ agent: createReactAgent({ llm, tools: [lookup], prompt: react }), tools: [lookup], outputSchema: Weather, maxIterations: 1 });
      const error = await executor.invoke({ input: "Rome?" }).then(() => undefined, (thrown: unknown) => thrown);
      expect(OutputValidationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(problem);
    }
  });

  it("works with the generate early-stopping call, and refuses a schema that is not one", async () => {
    const { agent } = { agent: createToolCallingAgent({ llm: new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "lookup", args: { city: "Oslo" } }] }, '{"city": "Oslo", "celsius": 4}'] }), tools: [lookup], prompt }) };
    const executor = new AgentExecutor({ agent, tools: [lookup], outputSchema: Weather, maxIterations: 1, earlyStoppingMethod: "generate" });
    const result = await executor.invoke({ input: "Oslo?" });
    expect(result).toMatchObject({ structuredOutput: { city: "Oslo", celsius: 4 } });
    expect(() => new AgentExecutor({ agent, tools: [lookup], outputSchema: {} as never })).toThrow(/outputSchema/);
  });

  it("the generate call offers a tool-calling model final_answer alone, forced, so a model that answers in prose otherwise still ends typed", async () => {
    // As a real model does: it calls final_answer only when made to.
    const answer = (_messages: unknown, call: { toolChoice?: unknown }) =>
      call.toolChoice === "final_answer" ? { toolCalls: [{ name: "final_answer", args: { city: "Oslo", celsius: 4 } }] } : "It is 4 degrees in Oslo.";
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "lookup", args: { city: "Oslo" } }] }, answer] });
    const agent = createToolCallingAgent({ llm, tools: [lookup, finalAnswerTool(Weather)], prompt });
    const executor = new AgentExecutor({ agent, tools: [lookup], outputSchema: Weather, maxIterations: 1, earlyStoppingMethod: "generate" });
    const result = await executor.invoke({ input: "Oslo?" });
    expect(result).toMatchObject({ stopReason: "max_iterations", output: '{"city":"Oslo","celsius":4}', structuredOutput: { city: "Oslo", celsius: 4 } });
    expectTypeOf(result.structuredOutput).toEqualTypeOf<{ city: string; celsius: number } | undefined>();
    expect(llm.calls.map((call) => [call.toolNames, call.toolChoice])).toEqual([
      [["lookup", "final_answer"], undefined],
      [["final_answer"], "final_answer"],
    ]);
  });

  it("validates the generate call's answer when the agent gives an action or its parser fails: typed when it fits, else an OutputValidationError", async () => {
    const react = PromptTemplate.fromTemplate("Tools: {tools} ({tool_names})\nQuestion: {input}\n{agent_scratchpad}");
    const search = 'Thought: look it up\nAction: lookup\nAction Input: {"city": "Oslo"}';
    // The generate answer is JSON without "Final Answer:": the ReAct parser throws, and its llmOutput is the answer.
    const parsed = (answer: string) => {
      const llm = new ScriptedChatModel({ responses: [search, answer] });
      return new AgentExecutor({ agent: createReactAgent({ llm, tools: [lookup], prompt: react }), tools: [lookup], outputSchema: Weather, maxIterations: 1, earlyStoppingMethod: "generate" });
    };
    const typed = await parsed('{"city": "Oslo", "celsius": 4}').invoke({ input: "Oslo?" });
    expect(typed).toMatchObject({ stopReason: "max_iterations", structuredOutput: { city: "Oslo", celsius: 4 } });
    const prose = await parsed("It is cold in Oslo.").invoke({ input: "Oslo?" }).then(() => undefined, (e: unknown) => e);
    expect(OutputValidationError.isInstance(prose)).toBe(true);
    expect((prose as OutputValidationError).output).toBe("It is cold in Oslo.");
    // An agent that ignores forceFinalAnswer and asks for a tool again: its log is not an answer that fits.
    const agent = RunnableLambda.from(() => ({ tool: "lookup", toolInput: { city: "Oslo" }, log: "I should look again." }));
    const stubborn = new AgentExecutor({ agent, tools: [lookup], outputSchema: Weather, maxIterations: 1, earlyStoppingMethod: "generate" });
    const events: AgentStreamEvent[] = [];
    const error = await lastValueFrom(stubborn.stream({ input: "Oslo?" }).pipe(tap((event) => events.push(event)))).then(() => undefined, (e: unknown) => e);
    expect(OutputValidationError.isInstance(error)).toBe(true);
    expect((error as OutputValidationError).output).toBe("I should look again.");
    expect(events.some((event) => event.type === "output")).toBe(false);
  });

  it("a returnDirect tool's answer that fits the schema is the typed value too; one that does not fit has none", async () => {
    const report = tool(async ({ city }: { city: string }) => JSON.stringify({ city, celsius: 18 }), {
      name: "report",
      description: "The weather report, as the answer.",
      schema: z.object({ city: z.string() }),
      returnDirect: true,
    });
    const make = (tools: StructuredToolInterface[]) => {
      const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: tools[0]?.name ?? "", args: { city: "Nice" } }] }] });
      return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [...tools, finalAnswerTool(Weather)], prompt }), tools, outputSchema: Weather });
    };
    const result = await make([report]).invoke({ input: "Nice?" });
    expect(result).toMatchObject({ stopReason: "return_direct", output: '{"city":"Nice","celsius":18}', structuredOutput: { city: "Nice", celsius: 18 } });
    const prose = tool(async ({ city }: { city: string }) => `${city}: 18 C`, { name: "prose", description: "Prose.", schema: z.object({ city: z.string() }), returnDirect: true });
    const untyped = await make([prose]).invoke({ input: "Nice?" });
    expect(untyped.stopReason).toBe("return_direct");
    expect(untyped.output).toBe("Nice: 18 C");
    expect(untyped.structuredOutput).toBeUndefined();
  });

  it("checks a schema with asynchronous refinements and transforms (safeParseAsync): a failing answer goes back to the model, a passing one ends typed", async () => {
    const known = new Set(["Paris"]);
    const Checked = z
      .object({ city: z.string().refine(async (city) => known.has(city), { message: "unknown city" }), celsius: z.number() })
      .transform(async (value) => ({ ...value, fahrenheit: value.celsius * 1.8 + 32 }));
    const llm = new ScriptedChatModel({
      responses: [{ toolCalls: [{ name: "final_answer", args: { city: "Atlantis", celsius: 30 } }] }, { toolCalls: [{ name: "final_answer", args: { city: "Paris", celsius: 20 } }] }],
    });
    const agent = createToolCallingAgent({ llm, tools: [lookup, finalAnswerTool(Weather)], prompt });
    const events = await collect(new AgentExecutor({ agent, tools: [lookup], outputSchema: Checked }).stream({ input: "Weather?" }));
    const step = events.find((event) => event.type === "step");
    expect(step?.type === "step" && step.step.observation).toMatch(/does not fit the required format: city: unknown city/);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "finish", structuredOutput: { city: "Paris", celsius: 20, fahrenheit: 68 } });
    // A returnDirect tool's answer is checked the same way.
    const report = tool(async ({ city }: { city: string }) => JSON.stringify({ city, celsius: 10 }), { name: "report", description: "Report.", schema: z.object({ city: z.string() }), returnDirect: true });
    const direct = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "report", args: { city: "Paris" } }] }] });
    const result = await new AgentExecutor({ agent: createToolCallingAgent({ llm: direct, tools: [report], prompt }), tools: [report], outputSchema: Checked }).invoke({ input: "Paris?" });
    expect(result).toMatchObject({ stopReason: "return_direct", structuredOutput: { city: "Paris", celsius: 10, fahrenheit: 50 } });
  });

  it("a refinement that throws fails the run with its own error", async () => {
    const Throwing = Weather.refine(() => {
      throw new Error("lookup service down");
    });
    const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "final_answer", args: { city: "Paris", celsius: 21 } }] }] });
    const agent = createToolCallingAgent({ llm, tools: [lookup, finalAnswerTool(Weather)], prompt });
    await expect(new AgentExecutor({ agent, tools: [lookup], outputSchema: Throwing }).invoke({ input: "Weather?" })).rejects.toThrow("lookup service down");
  });

  describe("with asynchronous refinements and transforms inside a field", () => {
    const answers = (output: string) => RunnableLambda.from(() => ({ returnValues: { output }, log: "" }));

    it("an async transform of a field is applied (the schema is checked with safeParseAsync alone)", async () => {
      const Upper = z.object({ city: z.string().transform(async (city) => city.toUpperCase()) });
      const result = await new AgentExecutor({ agent: answers('{"city":"Paris"}'), tools: [], outputSchema: Upper }).invoke({ input: "go" });
      expect(result.structuredOutput).toEqual({ city: "PARIS" });
    });

    it("an async refinement runs once per check", async () => {
      let calls = 0;
      const Known = z.object({ city: z.string().refine(async (city) => (calls++, city === "Paris")) });
      const result = await new AgentExecutor({ agent: answers('{"city":"Paris"}'), tools: [], outputSchema: Known }).invoke({ input: "go" });
      expect(result.structuredOutput).toEqual({ city: "Paris" });
      expect(calls).toBe(1);
    });

    it("an async refinement that rejects fails the run with its error, and leaves no unhandled rejection", async () => {
      const Down = z.object({ city: z.string().refine(async () => Promise.reject(new Error("lookup service down"))) });
      const { unhandled, error } = await unhandledDuring(() => new AgentExecutor({ agent: answers('{"city":"Paris"}'), tools: [], outputSchema: Down }).invoke({ input: "go" }));
      expect((error as Error).message).toBe("lookup service down");
      expect(unhandled).toEqual([]);
    });
  });

  it("maxExecutionTime bounds a check that never settles: the run stops as for any other work", async () => {
    const Stuck = z.object({ city: z.string().refine(() => new Promise<boolean>(() => undefined)) });
    const agent = RunnableLambda.from(() => ({ returnValues: { output: '{"city":"Paris"}' }, log: "" }));
    const result = await new AgentExecutor({ agent, tools: [], outputSchema: Stuck, maxExecutionTime: 50 }).invoke({ input: "go" });
    expect(result.stopReason).toBe("max_execution_time");
    expect(result.structuredOutput).toBeUndefined();
    // A returnDirect tool's answer is checked under it too.
    const report = tool(async () => '{"city":"Paris"}', { name: "report", description: "Report.", schema: z.object({}), returnDirect: true });
    const direct = RunnableLambda.from(() => ({ tool: "report", toolInput: {}, log: "" }));
    const directResult = await new AgentExecutor({ agent: direct, tools: [report], outputSchema: Stuck, maxExecutionTime: 50 }).invoke({ input: "go" });
    expect(directResult.stopReason).toBe("max_execution_time");
  });
});
