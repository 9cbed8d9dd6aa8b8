// The operators against a real AgentExecutor running createToolCallingAgent on a ScriptedChatModel.
import { createReactAgent, createReactPrompt, createToolCallingAgent } from "@agentrx/agents";
import { EARLY_STOP_OUTPUT } from "@agentrx/core";
import { ScriptedChatModel, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, type AgentExecutorOptions } from "@agentrx/executors";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, tap, toArray, type Observable } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { finalAnswerTokens } from "./final-answer-tokens";
import { printTrace } from "./print-trace";
import { timeBudget } from "./time-budget";
import { tokenBudget } from "./token-budget";
import { toolCallBudget } from "./tool-call-budget";

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a helpful assistant."],
  ["human", "{input}"],
  new MessagesPlaceholder("agent_scratchpad"),
]);

function setup(
  responses: ScriptedResponse[],
  options: Partial<AgentExecutorOptions> = {},
  timing: { latencyMs?: number; tokenDelayMs?: number } = {},
) {
  const searched: string[] = [];
  const search = tool(
    async ({ query }: { query: string }) => {
      searched.push(query);
      return `Sunny in ${query}`;
    },
    { name: "search", description: "Search the web.", schema: z.object({ query: z.string() }) },
  );
  const model = new ScriptedChatModel({ responses, streaming: true, ...timing });
  const agent = createToolCallingAgent({ llm: model, tools: [search], prompt });
  const executor = new AgentExecutor({ agent, tools: [search], ...options });
  return { executor, model, searched };
}

const searchCall = (query: string, usage = { inputTokens: 10, outputTokens: 10 }): ScriptedResponse => ({
  toolCalls: [{ name: "search", args: { query } }],
  usage,
});

const all = <T>(observable: Observable<T>) => lastValueFrom(observable.pipe(toArray()));

const lastOutput = async (events: Observable<AgentStreamEvent>) => {
  const list = await all(events);
  const output = list.at(-1);
  if (output?.type !== "output") throw new Error("no output event");
  return { output, events: list };
};

describe("budgets with the executor", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("toolCallBudget lets at most N tool calls run, then forces a stop", async () => {
    const { executor, searched } = setup([searchCall("Paris"), searchCall("Lyon"), "Never reached."]);
    const { output, events } = await lastOutput(executor.stream({ input: "Weather?" }, { stopWhen: toolCallBudget(1) }));
    expect(searched).toEqual(["Paris"]);
    expect(output.stopReason).toBe("budget");
    expect(output.output).toBe(EARLY_STOP_OUTPUT);
    expect(events.filter((event) => event.type === "step")).toHaveLength(1);
  });

  it("toolCallBudget runs none of a turn that asks for more calls than remain", async () => {
    const { executor, searched } = setup([
      searchCall("Paris"),
      { toolCalls: [{ name: "search", args: { query: "Lyon" } }, { name: "search", args: { query: "Nice" } }] },
      "Never reached.",
    ]);
    const { output, events } = await lastOutput(executor.stream({ input: "Weather?" }, { stopWhen: toolCallBudget(2) }));
    expect(searched).toEqual(["Paris"]);
    expect(output.stopReason).toBe("budget");
    expect(events.filter((event) => event.type === "action")).toHaveLength(3);
    expect(events.filter((event) => event.type === "step")).toHaveLength(1);
  });

  it("toolCallBudget lets the agent answer after using its whole budget", async () => {
    const { executor } = setup([searchCall("Paris"), "Sunny."]);
    const [result] = await all(executor.invoke({ input: "Weather?" }, { stopWhen: toolCallBudget(1) }));
    expect(result?.output).toBe("Sunny.");
  });

  it("with earlyStoppingMethod generate, the agent answers from the steps without tools", async () => {
    const { executor, model } = setup([searchCall("Paris"), searchCall("Lyon"), "Paris is sunny."], {
      earlyStoppingMethod: "generate",
      stopWhen: toolCallBudget(1),
    });
    const { output } = await lastOutput(executor.stream({ input: "Weather?" }));
    expect(output).toMatchObject({
      output: "Paris is sunny.",
      stopReason: "budget",
      stoppedBy: { budget: "tool_calls", limit: 1, used: 2 },
    });
    expect(model.calls.map((call) => call.toolNames)).toEqual([["search"], ["search"], []]);
  });

  it("tokenBudget stops before the tools of the call that spent it run", async () => {
    const { executor, searched, model } = setup([
      searchCall("Paris", { inputTokens: 15, outputTokens: 5 }),
      searchCall("Lyon", { inputTokens: 25, outputTokens: 5 }),
      "Never reached.",
    ]);
    const { output } = await lastOutput(executor.stream({ input: "Weather?" }, { stopWhen: tokenBudget(50) }));
    expect(output.stopReason).toBe("budget");
    expect(searched).toEqual(["Paris"]);
    expect(model.calls).toHaveLength(2);
  });

  it("tokenBudget keeps a final answer that spends the budget", async () => {
    const { executor } = setup([
      searchCall("Paris", { inputTokens: 15, outputTokens: 5 }),
      { content: "Sunny.", usage: { inputTokens: 40, outputTokens: 2 } },
    ]);
    const { output } = await lastOutput(executor.stream({ input: "Weather?" }, { stopWhen: tokenBudget(50) }));
    expect(output).toMatchObject({ output: "Sunny.", stopReason: "finish" });
  });

  it("timeBudget cancels the model call in flight and stops the run (fake timers)", async () => {
    vi.useFakeTimers();
    const { executor, searched } = setup([searchCall("Paris"), searchCall("Lyon"), "Never reached."], {}, { latencyMs: 1_000 });
    const events: AgentStreamEvent[] = [];
    let completed = false;
    executor.stream({ input: "Weather?" }, { stopWhen: [timeBudget(1_500), toolCallBudget(10)] }).subscribe({
      next: (event) => events.push(event),
      complete: () => (completed = true),
    });
    await vi.advanceTimersByTimeAsync(1_499);
    expect(completed).toBe(false);
    expect(searched).toEqual(["Paris"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(completed).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "output", output: EARLY_STOP_OUTPUT, stopReason: "budget" });
    expect(searched).toEqual(["Paris"]);
    expect(vi.getTimerCount()).toBe(0);
  });
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

  it("emits the forced output when a budget stops the run", async () => {
    const { executor } = setup([{ content: "Checking.", toolCalls: [{ name: "search", args: { query: "x" } }] }]);
    const tokens = await all(
      executor.stream({ input: "Weather?" }, { stopWhen: toolCallBudget(0) }).pipe(finalAnswerTokens()),
    );
    expect(tokens).toEqual([EARLY_STOP_OUTPUT]);
  });
});

describe("printTrace with the executor", () => {
  it("prints the run and resolves with its output", async () => {
    const { executor } = setup([searchCall("Paris"), "It is sunny in Paris."]);
    let text = "";
    const output = await printTrace(executor.stream({ input: "Weather?" }), { write: (chunk) => (text += chunk) });
    expect(output.output).toBe("It is sunny in Paris.");
    expect(text.replace(/\(\d+ ms\)/g, "(n ms)")).toMatchInlineSnapshot(`
      "action  search {"query":"Paris"}
      step    search (n ms) Sunny in Paris
      model   It is sunny in Paris.
      answer  It is sunny in Paris. (finish)
      "
    `);
  });
});
