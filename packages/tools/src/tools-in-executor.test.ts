import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, type StepEvent } from "@agentrx/executors";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCalculatorTool } from "./calculator/calculator-tool";
import { RetryableToolError } from "./errors/retryable-tool-error";
import { createHttpRequestTool } from "./http/http-request-tool";
import { createKnowledgeBaseTool } from "./knowledge-base/knowledge-base-tool";
import { cachePolicy } from "./policies/cache-policy";
import { retryPolicy, withRetry } from "./policies/retry-policy";
import { timeoutPolicy } from "./policies/timeout-policy";
import { withPolicies } from "./policies/with-policies";

const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You are a careful assistant."],
  ["human", "{input}"],
  new MessagesPlaceholder("agent_scratchpad"),
]);

describe("built-in tools and policies in an AgentExecutor", () => {
  it("run as an agent's tools, with policy metadata in the step events and bad input as observations", async () => {
    let flakyCalls = 0;
    const flaky = tool(
      async () => {
        flakyCalls += 1;
        if (flakyCalls === 1) throw new RetryableToolError({ message: "exchange busy" });
        return "1 EUR = 1.08 USD";
      },
      { name: "exchange_rate", description: "Current EUR/USD rate.", schema: z.object({}) },
    );
    const tools = [
      withPolicies(createCalculatorTool(), [cachePolicy(), retryPolicy(), timeoutPolicy({ ms: 5000 })]),
      withRetry(flaky, { initialDelayMs: 1 }),
      createHttpRequestTool({ allowedHosts: ["api.example.com"], resolver: async () => ["10.0.0.7"] }),
      createKnowledgeBaseTool({ documents: [{ source: "leave.md", content: "Employees get 25 days of paid leave." }] }),
    ];
    const model = new ScriptedChatModel({
      responses: [
        {
          toolCalls: [
            { name: "calculator", args: { expression: "2 ^ 10" } },
            { name: "exchange_rate", args: {} },
            { name: "http_request", args: { url: "https://api.example.com/rates" } },
            { name: "calculator", args: { expression: "constructor.name" } },
            { name: "calculator", args: { expr: "1 + 1" } },
          ],
        },
        {
          toolCalls: [
            { name: "calculator", args: { expression: "2 ^ 10" } },
            { name: "knowledge_base", args: { query: "paid leave" } },
          ],
        },
        "1024, and 25 days of leave.",
      ],
    });
    const agent = createToolCallingAgent({ llm: model, tools, prompt });
    const executor = new AgentExecutor({ agent, tools });

    const events: AgentStreamEvent[] = await lastValueFrom(executor.stream({ input: "Compute and look up." }).pipe(toArray()));
    const steps = events.filter((event): event is StepEvent => event.type === "step");
    // Steps arrive in completion order: find them by tool, input and iteration.
    const stepFor = (tool: string, input: Record<string, unknown> = {}, iteration = 0) =>
      steps.find((s) => s.step.action.tool === tool && s.iteration === iteration && JSON.stringify(s.step.action.toolInput) === JSON.stringify(input))!;

    expect(events.at(-1)).toMatchObject({ type: "output", output: "1024, and 25 days of leave.", stopReason: "finish" });
    expect(stepFor("calculator", { expression: "2 ^ 10" }).step.observation).toBe("1024");
    expect(stepFor("calculator", { expression: "2 ^ 10" }).metadata).toMatchObject({ cached: false, attempts: 1, durationMs: expect.any(Number) });
    expect(stepFor("calculator", { expression: "2 ^ 10" }, 1).step.observation).toBe("1024");
    expect(stepFor("calculator", { expression: "2 ^ 10" }, 1).metadata).toMatchObject({ cached: true });
    expect(stepFor("exchange_rate").step.observation).toBe("1 EUR = 1.08 USD");
    expect(stepFor("exchange_rate").metadata).toMatchObject({ attempts: 2, attemptErrors: ["exchange busy"] });
    expect(stepFor("exchange_rate").metadata).not.toHaveProperty("error");
    expect(stepFor("http_request", { url: "https://api.example.com/rates" }).step.observation).toMatch(/http_request.*Request refused: the host "api\.example\.com" resolves to 10\.0\.0\.7/s);
    expect(stepFor("calculator", { expression: "constructor.name" }).step.observation).toMatch(/unknown name "constructor"|property and index access/);
    expect(stepFor("calculator", { expr: "1 + 1" }).step.observation).toMatch(/Invalid input for tool "calculator".*expression/s);
    expect(stepFor("knowledge_base", { query: "paid leave" }, 1).step.observation).toMatch(/^\[1\] source: leave\.md \(score: [\d.]+\)\nEmployees get 25 days of paid leave\.$/);
  });

  it("turn a tool that hangs into a timeout observation, and abort it through its signal", async () => {
    let signal: AbortSignal | undefined;
    const hanging = tool(
      (_input, config) => {
        signal = config?.signal;
        return new Promise<string>(() => undefined); // ignores its signal on purpose
      },
      { name: "hanging", description: "Never answers.", schema: z.object({}) },
    );
    const tools = [withPolicies(hanging, [timeoutPolicy({ ms: 20 })])];
    const model = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "hanging", args: {} }] }, "gave up"] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm: model, tools, prompt }), tools });
    const events = await lastValueFrom(executor.stream({ input: "go" }).pipe(toArray()));
    const step = events.find((event): event is StepEvent => event.type === "step")!;
    expect(step.step.observation).toMatch(/Tool "hanging" timed out after 20 ms/);
    expect(step.metadata).toMatchObject({ timedOut: true, error: expect.stringContaining("timed out") });
    expect(signal?.aborted).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "gave up" });
  });
});
