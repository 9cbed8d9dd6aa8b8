// finalAnswerTokens against a real AgentExecutor (tool-calling and ReAct agents on a ScriptedChatModel).
import { createReactAgent, createReactPrompt, createToolCallingAgent } from "@agentrx/agents";
import { EARLY_STOP_OUTPUT } from "@agentrx/core";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type AgentExecutorOptions, type AgentStreamEvent } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { tap } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { all, prompt, searchCall, setup } from "./executor-fixtures";
import { finalAnswerTokens } from "./final-answer-tokens";
import { timeBudget } from "./time-budget";
import { toolCallBudget } from "./tool-call-budget";

afterEach(() => {
  vi.useRealTimers();
});

describe("finalAnswerTokens with the executor", () => {
  it("keeps only the tokens of the final answer of a streaming model", async () => {
    const { executor } = setup([
      { content: "Let me look that up.", toolCalls: [{ name: "search", args: { query: "Paris" } }] },
      "It is sunny in Paris.",
    ]);
    const tokens = await all(executor.stream({ input: "Weather?" }).pipe(finalAnswerTokens()));
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join("")).toBe("It is sunny in Paris.");
  });

  it("keeps only the generate call's tokens when a time budget cut a streaming call short", async () => {
    vi.useFakeTimers();
    const { executor } = setup(
      [searchCall("Paris"), "A long answer that streams far too slowly to finish in time.", "Sunny."],
      { earlyStoppingMethod: "generate" },
      { tokenDelayMs: 30 },
    );
    const tokens: string[] = [];
    const events: AgentStreamEvent[] = [];
    const run = executor.stream({ input: "Weather?" }, { stopWhen: timeBudget(200) }).pipe(
      tap((event) => events.push(event)),
      finalAnswerTokens(),
    );
    run.subscribe((text) => tokens.push(text));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(events.filter((event) => event.type === "token").length).toBeGreaterThan(1);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "Sunny.", stopReason: "budget" });
    expect(tokens.join("")).toBe("Sunny.");
    vi.useRealTimers();
  });

  it("streams a ReAct agent's answer live after its Final Answer: prefix", async () => {
    const search = tool(async ({ query }: { query: string }) => `Sunny in ${query}`, {
      name: "search",
      description: "Search the web.",
      schema: z.object({ query: z.string() }),
    });
    const model = new ScriptedChatModel({
      streaming: true,
      responses: [
        "Thought: I should search.\nAction: search\nAction Input: Paris",
        "Thought: I know it now.\nFinal Answer: It is sunny in Paris.",
      ],
    });
    const agent = createReactAgent({ llm: model, tools: [search], prompt: createReactPrompt() });
    const executor = new AgentExecutor({ agent, tools: [search] });
    const seen: string[] = [];
    const tokens = await all(
      executor.stream({ input: "Weather in Paris?" }).pipe(
        tap((event) => seen.push(event.type === "output" ? "output" : event.type === "token" ? "token" : "")),
        finalAnswerTokens({ answerPrefix: "Final Answer:" }),
        tap(() => seen.push("answer")),
      ),
    );
    expect(tokens.join("")).toBe("It is sunny in Paris.");
    // Live: the answer's tokens come before the output event.
    expect(seen.indexOf("answer")).toBeLessThan(seen.indexOf("output"));
    expect(seen.filter((entry) => entry === "answer")).toHaveLength(tokens.length);
  });

  it("with answerPrefix, a budget that cuts the answer short still delivers the forced output", async () => {
    vi.useFakeTimers();
    const model = new ScriptedChatModel({
      streaming: true,
      tokenDelayMs: 30,
      responses: ["Thought: I know it.\nFinal Answer: A long answer that streams far too slowly to finish in time."],
    });
    const agent = createReactAgent({ llm: model, tools: [], prompt: createReactPrompt() });
    const executor = new AgentExecutor({ agent, tools: [] });
    const tokens: string[] = [];
    let output: AgentStreamEvent | undefined;
    executor
      .stream({ input: "Weather?" }, { stopWhen: timeBudget(400) })
      .pipe(
        tap((event) => (output = event)),
        finalAnswerTokens({ answerPrefix: "Final Answer:" }),
      )
      .subscribe((text) => tokens.push(text));
    await vi.advanceTimersByTimeAsync(1_000);
    const forcedOutput = "Agent stopped because its time budget was spent (400 used of 400).";
    expect(output).toMatchObject({ type: "output", output: forcedOutput, stopReason: "budget" });
    // Part of the answer streamed live before the cut; the forced output follows it, whole.
    expect(tokens.length).toBeGreaterThan(2);
    expect(tokens.at(-1)).toBe(forcedOutput);
    expect("A long answer that streams far too slowly").toContain(tokens.slice(0, -1).join(""));
    expect(tokens.slice(0, -1).join("")).toMatch(/^A long/);
    vi.useRealTimers();
  });

  it("emits the forced output when a budget stops the run", async () => {
    const { executor } = setup([{ content: "Checking.", toolCalls: [{ name: "search", args: { query: "x" } }] }]);
    const tokens = await all(
      executor.stream({ input: "Weather?" }, { stopWhen: toolCallBudget(0) }).pipe(finalAnswerTokens()),
    );
    expect(tokens).toEqual(["Agent stopped because its tool-call budget was spent (1 used of 0)."]);
  });
});

describe("finalAnswerTokens joins to the output exactly", () => {
  const lookup = tool(async ({ query }: { query: string }) => `Looked up ${query}`, {
    name: "lookup",
    description: "Looks a thing up and returns it as the answer.",
    schema: z.object({ query: z.string() }),
    returnDirect: true,
  });
  const react = (responses: ScriptedResponse[], options: Partial<AgentExecutorOptions> = {}) => {
    const search = tool(async ({ query }: { query: string }) => `Sunny in ${query}`, {
      name: "search",
      description: "Search the web.",
      schema: z.object({ query: z.string() }),
    });
    const model = new ScriptedChatModel({ streaming: true, chunkSize: 3, responses });
    const agent = createReactAgent({ llm: model, tools: [search], prompt: createReactPrompt() });
    return new AgentExecutor({ agent, tools: [search], ...options });
  };
  const toolCalling = (responses: ScriptedResponse[], options: Partial<AgentExecutorOptions> = {}) => {
    const search = tool(async ({ query }: { query: string }) => `Sunny in ${query}`, {
      name: "search",
      description: "Search the web.",
      schema: z.object({ query: z.string() }),
    });
    const model = new ScriptedChatModel({ streaming: true, responses });
    const agent = createToolCallingAgent({ llm: model, tools: [lookup, search], prompt });
    return new AgentExecutor({ agent, tools: [lookup, search], ...options });
  };
  const call = (name: string, content: string): ScriptedResponse => ({ content, toolCalls: [{ name, args: { query: "x" } }] });
  const lookupCall = (content: string) => call("lookup", content);
  const reactSearch = "Thought: look.\nAction: search\nAction Input: Paris";

  const cases: [string, () => AgentExecutor, string[] | "live"][] = [
    ["tool calling, text before each tool call", () => toolCalling([call("search", "Hmm."), call("search", "Still looking."), "It is sunny."]), ["It ", "is ", "sunny."]],
    ["returnDirect", () => toolCalling([lookupCall("Let me look it up.")]), ["Looked up x"]],
    ["max_iterations with force", () => toolCalling([lookupCall("Checking.")], { maxIterations: 0 }), [EARLY_STOP_OUTPUT]],
    ["ReAct, prefix split across tokens, leading whitespace", () => react([reactSearch, "Thought: ok.\nFinal Answer:\n\n  Sunny in Paris.\n"]), "live"],
    ["ReAct, generate after max_iterations", () => react([reactSearch, "Final Answer: From the search: sunny."], { maxIterations: 1, earlyStoppingMethod: "generate" }), "live"],
  ];

  for (const [name, executor, expected] of cases) {
    it(name, async () => {
      for (const options of [{}, { answerPrefix: "Final Answer:" }]) {
        const order: string[] = [];
        const tokens = await all(
          executor()
            .stream({ input: "Weather?" })
            .pipe(
              tap((event) => event.type === "output" && order.push(`output:${event.output}`)),
              finalAnswerTokens(options),
              tap((text) => order.push(text)),
            ),
        );
        const output = order.find((entry) => entry.startsWith("output:"))?.slice("output:".length);
        expect(tokens.join("")).toBe(output);
        if (expected !== "live") {
          if (!("answerPrefix" in options)) expect(tokens).toEqual(expected);
        } else if ("answerPrefix" in options) {
          expect(tokens.length).toBeGreaterThan(2);
          expect(order.at(-1)?.startsWith("output:")).toBe(true); // every token came before the output event
        }
      }
    });
  }
});
