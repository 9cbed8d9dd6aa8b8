// The executor with a real createToolCallingAgent on a ScriptedChatModel.
import { createToolCallingAgent } from "@agentrx/agents";
import { FORCE_FINAL_ANSWER_INSTRUCTION } from "@agentrx/core";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type AgentExecutorOptions } from "@agentrx/executors";
import { ToolMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collect } from "./test-helpers";

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are helpful."],
  ["human", "{input}"],
  new MessagesPlaceholder("agent_scratchpad"),
]);

const search = tool(async ({ query }: { query: string }) => `Sunny in ${query}`, {
  name: "search",
  description: "Search the web.",
  schema: z.object({ query: z.string() }),
});

function setup(responses: ScriptedResponse[], options: Partial<AgentExecutorOptions> = {}) {
  const model = new ScriptedChatModel({ responses });
  const agent = createToolCallingAgent({ llm: model, tools: [search], prompt });
  return { model, executor: new AgentExecutor({ agent, tools: [search], ...options }) };
}

describe("AgentExecutor with createToolCallingAgent", () => {
  it("runs tool calls and sends their results back as tool messages", async () => {
    const { model, executor } = setup([
      { toolCalls: [{ name: "search", args: { query: "Paris" }, id: "c1" }, { name: "search", args: { query: "Lyon" }, id: "c2" }] },
      "Sunny in both.",
    ]);
    const [result] = await collect(executor.invoke({ input: "Weather?" }));
    expect(result?.output).toBe("Sunny in both.");
    const toolMessages = model.calls[1]?.messages.filter((message) => message instanceof ToolMessage) as ToolMessage[];
    expect(toolMessages.map((message) => [message.tool_call_id, message.content])).toEqual([
      ["c1", "Sunny in Paris"],
      ["c2", "Sunny in Lyon"],
    ]);
  });

  it("makes the generate call with no tools bound", async () => {
    const { model, executor } = setup(
      [{ toolCalls: [{ name: "search", args: { query: "Paris" } }] }, "Best guess: sunny."],
      { maxIterations: 1, earlyStoppingMethod: "generate" },
    );
    const events = await collect(executor.stream({ input: "Weather?" }));
    expect(model.calls).toHaveLength(2);
    expect(model.calls[0]?.toolNames).toEqual(["search"]);
    expect(model.calls[1]?.toolNames).toEqual([]);
    expect(model.calls[1]?.messages.at(-1)?.text).toContain(FORCE_FINAL_ANSWER_INSTRUCTION);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "Best guess: sunny.", stopReason: "max_iterations" });
  });

  it("turns tool-call arguments that are not valid JSON into an observation through handleParsingErrors", async () => {
    const { model, executor } = setup([{ toolCalls: [{ name: "search", args: '{"query": "Par' }] }, "Done."], {
      handleParsingErrors: true,
      returnIntermediateSteps: true,
    });
    const [result] = await collect(executor.invoke({ input: "Weather?" }));
    const step = result?.intermediateSteps?.[0];
    expect(step?.action.tool).toBe("_Exception");
    expect(step?.observation).toContain('"search"');
    expect(step?.observation).toContain("invalid JSON");
    expect(model.calls).toHaveLength(2);
    expect(result?.output).toBe("Done.");
  });

  it.each([
    ["a streaming model through stream()", true, "stream"],
    ["a streaming model through invoke()", true, "invoke"],
    ["a non-streaming model through stream()", false, "stream"],
  ] as const)("reports truncated tool-call JSON from %s instead of repairing it", async (_name, streaming, via) => {
    const model = new ScriptedChatModel({ streaming, responses: [{ toolCalls: [{ name: "search", args: '{"query": "Par' }] }, "Done."] });
    const agent = createToolCallingAgent({ llm: model, tools: [search], prompt });
    // The default handleParsingErrors (false): bad tool-call arguments still never fail the run.
    const executor = new AgentExecutor({ agent, tools: [search], returnIntermediateSteps: true });
    const output = via === "stream" ? (await collect(executor.stream({ input: "Weather?" }))).at(-1) : (await collect(executor.invoke({ input: "Weather?" })))[0];
    const steps = output && "intermediateSteps" in output ? output.intermediateSteps : undefined;
    expect(steps).toHaveLength(1);
    expect(steps?.[0]?.action.tool).toBe("_Exception");
    expect(steps?.[0]?.observation).toContain("invalid JSON");
    expect(model.calls).toHaveLength(2);
  });

  it("turns schema-invalid tool-call arguments into an observation naming the tool", async () => {
    const { model, executor } = setup([{ toolCalls: [{ name: "search", args: { q: 3 } }] }, "Done."]);
    const [result] = await collect(executor.invoke({ input: "Weather?" }));
    expect(result?.output).toBe("Done.");
    const observation = model.calls[1]?.messages.find((message) => message instanceof ToolMessage)?.text ?? "";
    expect(observation).toMatch(/^Invalid input for tool "search": /);
    expect(observation).toContain("query");
  });
});
