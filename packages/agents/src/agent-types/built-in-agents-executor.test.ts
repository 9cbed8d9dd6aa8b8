// Every built-in agent type, run end to end by the AgentExecutor with a ScriptedChatModel.
import { EXCEPTION_TOOL_NAME, FORCE_FINAL_ANSWER_INSTRUCTION } from "@agentrx/core";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE } from "../react/react-single-input-output-parser";
import { nestedArguments } from "../test-utils/parser-properties";
import { textOnlyModel } from "../test-utils/text-only-model";
import { builtInAgentTypes, type BuiltInAgentTypes } from "./built-in-agent-types";

const objectSearch = tool(async ({ query }: { query: string }) => `Results for ${query}`, {
  name: "search",
  description: "Search the web.",
  schema: z.object({ query: z.string() }),
});
const textSearch = (name = "search") =>
  tool(async (query: string) => `Results for ${query}`, { name, description: "Search the web.", schema: z.string() });

interface Scenario {
  tools: StructuredToolInterface[];
  toolCalling: boolean;
  /** A response that asks for `search` with "Paris". */
  action: ScriptedResponse;
  /** A response that finishes with "Sunny". */
  finish: ScriptedResponse;
  /** A malformed response, and what the observation sent back must contain. */
  malformed: ScriptedResponse;
  fix: string;
  /** The tool name the action uses. */
  toolName: string;
}

const toolCallingScenario: Scenario = {
  tools: [objectSearch],
  toolCalling: true,
  action: { content: "", toolCalls: [{ name: "search", args: { query: "Paris" } }] },
  finish: "Sunny",
  malformed: { toolCalls: [{ name: "search", args: "not json" }] },
  fix: 'tool "search"',
  toolName: "search",
};

const scenarios: { [Name in keyof BuiltInAgentTypes]: Scenario } = {
  "tool-calling": toolCallingScenario,
  "openai-tools": toolCallingScenario,
  "openai-functions": { ...toolCallingScenario, fix: 'function "search"' },
  react: {
    tools: [textSearch()],
    toolCalling: false,
    action: "Thought: look it up\nAction: search\nAction Input: Paris",
    finish: "Thought: done\nFinal Answer: Sunny",
    malformed: "Thought: I wonder.",
    fix: MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE,
    toolName: "search",
  },
  "structured-chat": {
    tools: [objectSearch],
    toolCalling: false,
    action: 'Action:\n```json\n{"action": "search", "action_input": {"query": "Paris"}}\n```',
    finish: '```json\n{"action": "Final Answer", "action_input": "Sunny"}\n```',
    malformed: '```json\n{"action": "search", \n```',
    fix: "not valid JSON",
    toolName: "search",
  },
  xml: {
    tools: [textSearch()],
    toolCalling: false,
    action: "<tool>search</tool><tool_input>Paris</tool_input>",
    finish: "<final_answer>Sunny</final_answer>",
    malformed: "I think it is sunny.",
    fix: "<final_answer>",
    toolName: "search",
  },
  "self-ask-with-search": {
    tools: [textSearch("Intermediate Answer")],
    toolCalling: false,
    action: " Yes.\nFollow up: Paris",
    finish: "So the final answer is: Sunny",
    malformed: " Maybe.",
    fix: "So the final answer is:",
    toolName: "Intermediate Answer",
  },
  "json-chat": {
    tools: [objectSearch],
    toolCalling: false,
    action: 'Thought: look it up\n```json\n{"action": "search", "action_input": {"query": "Paris"}}\n```',
    finish: "Thought: done\nFinal Answer: Sunny",
    malformed: "I think it is sunny.",
    fix: 'neither a JSON blob nor \"Final Answer:\"',
    toolName: "search",
  },
};

function setUp(name: keyof BuiltInAgentTypes, responses: ScriptedResponse[]) {
  const scenario = scenarios[name];
  const llm = scenario.toolCalling ? new ScriptedChatModel({ responses }) : textOnlyModel({ responses });
  const agentType = builtInAgentTypes.find((type) => type.name === name);
  if (!agentType) throw new Error(`no agent type ${name}`);
  const agent = agentType.create({ llm, tools: scenario.tools } as never);
  return { llm, agent, scenario };
}

describe.each(builtInAgentTypes.map((type) => type.name))("%s agent with the AgentExecutor", (name) => {
  it("runs a two-step run: one tool call, then the final answer", async () => {
    const scenario = scenarios[name];
    const { llm, agent } = setUp(name, [scenario.action, scenario.finish]);
    const executor = new AgentExecutor({ agent, tools: scenario.tools, returnIntermediateSteps: true });
    const result = await lastValueFrom(executor.invoke({ input: "Weather in Paris?" }));
    expect(result.output).toBe("Sunny");
    expect(result.intermediateSteps?.map((step) => [step.action.tool, step.observation])).toEqual([[scenario.toolName, "Results for Paris"]]);
    expect(llm.calls).toHaveLength(2);
    expect(llm.calls[1]?.messages.map((message) => message.text).join("\n")).toContain("Results for Paris");
  });

  it("recovers from a malformed output with handleParsingErrors: true", async () => {
    const scenario = scenarios[name];
    const { llm, agent } = setUp(name, [scenario.malformed, scenario.finish]);
    const executor = new AgentExecutor({ agent, tools: scenario.tools, handleParsingErrors: true, returnIntermediateSteps: true });
    const events = await lastValueFrom(executor.stream({ input: "Weather in Paris?" }).pipe(toArray()));
    const output = events.at(-1);
    expect(output?.type === "output" && output.output).toBe("Sunny");
    const step = events.find((event) => event.type === "step");
    expect(step?.type === "step" && step.step.action.tool).toBe(EXCEPTION_TOOL_NAME);
    expect(step?.type === "step" && step.step.observation).toContain(scenario.fix);
    expect(llm.calls[1]?.messages.map((message) => message.text).join("\n")).toContain(scenario.fix);
  });

  it('stops with "generate": one last call without tools whose scratchpad ends with the instruction', async () => {
    const scenario = scenarios[name];
    const { llm, agent } = setUp(name, [scenario.action, scenario.finish]);
    const executor = new AgentExecutor({ agent, tools: scenario.tools, maxIterations: 1, earlyStoppingMethod: "generate" });
    const events = await lastValueFrom(executor.stream({ input: "Weather in Paris?" }).pipe(toArray()));
    const output = events.at(-1);
    expect(output?.type === "output" && [output.output, output.stopReason]).toEqual(["Sunny", "max_iterations"]);
    expect(llm.calls).toHaveLength(2);
    // The ordinary turn had the tools bound (tool-calling agents); the forced turn has none.
    expect(llm.calls[0]?.toolNames).toEqual(scenario.toolCalling ? [scenario.toolName] : []);
    const last = llm.calls[1];
    expect(last?.tools).toEqual([]);
    expect(last?.toolChoice).toBeUndefined();
    expect(last?.messages.at(-1)?.text.trimEnd().endsWith(FORCE_FINAL_ANSWER_INSTRUCTION)).toBe(true);
  });

  it("streams the model's tokens as token events while the parser sees the whole message", async () => {
    const scenario = scenarios[name];
    const { agent } = setUp(name, [scenario.action, scenario.finish]);
    const executor = new AgentExecutor({ agent, tools: scenario.tools });
    const events = await lastValueFrom(executor.stream({ input: "Weather in Paris?" }).pipe(toArray()));
    const tokens = events.flatMap((event) => (event.type === "token" ? [event.text] : []));
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.join("")).toContain("Sunny");
    const output = events.at(-1);
    expect(output?.type === "output" && output.output).toBe("Sunny");
  });
});

describe.each(["tool-calling", "openai-functions"] as const)("%s agent with arguments nested 100,000 levels deep", (name) => {
  it("does not fail the run: the model is told, and answers", async () => {
    const llm = new ScriptedChatModel({
      responses: [{ toolCalls: [{ name: "search", args: { query: nestedArguments(100_000) } }] }, "Sunny"],
      streaming: true,
      toolCallChunkSize: 65_536,
    });
    const agent = builtInAgentTypes.find((type) => type.name === name)!.create({ llm, tools: [objectSearch] });
    const executor = new AgentExecutor({ agent, tools: [objectSearch], returnIntermediateSteps: true });
    const result = await lastValueFrom(executor.invoke({ input: "Weather in Paris?" }));
    expect(result.output).toBe("Sunny");
    expect(result.intermediateSteps?.[0]?.action.tool).toBe(EXCEPTION_TOOL_NAME);
    expect(result.intermediateSteps?.[0]?.observation).toContain("nested more than 100 levels deep");
  });
});
