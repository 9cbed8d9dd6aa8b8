// End to end: the AgentExecutor running createToolCallingAgent against the loopback
// OpenAI-compatible server, over real HTTP and SSE, through AgentRx's OpenAIChatModel and through
// @langchain/openai's ChatOpenAI (which proves that any @langchain/core chat model works).
// ChatOpenAI is used without `streaming: true`: with it, ChatOpenAI's `invoke` estimates token
// counts with tiktoken, which downloads its encodings from the internet (and hangs offline). The
// executor's `stream()` still streams it token by token, through a streaming callback handler.
import { OpenAIChatModel } from "@agentrx/core/openai";
import { startOpenAICompatibleServer } from "@agentrx/core/testing";
import type { LoopbackReply } from "@agentrx/core/testing";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOpenAI } from "@langchain/openai";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { cleanupAfterEach, multiply, toolCallingExecutor, weather } from "../providers/support";

const PARALLEL_CALLS: LoopbackReply = {
  content: "",
  toolCalls: [
    { name: "weather", arguments: { city: "Paris" }, id: "call_weather" },
    { name: "multiply", arguments: { a: 6, b: 7 }, id: "call_multiply" },
  ],
};
const ANSWER = "Paris is sunny at 21°C, and 6 × 7 = 42.";

type ModelFactory = (baseURL: string) => BaseChatModel;

const models: [string, ModelFactory][] = [
  ["OpenAIChatModel", (baseURL) => new OpenAIChatModel({ model: "loopback-model", baseURL, apiKey: "test", maxRetries: 0 })],
  [
    "OpenAIChatModel (streaming)",
    (baseURL) => new OpenAIChatModel({ model: "loopback-model", baseURL, apiKey: "test", maxRetries: 0, streaming: true }),
  ],
  [
    "ChatOpenAI",
    (baseURL) => new ChatOpenAI({ model: "loopback-model", apiKey: "test", configuration: { baseURL }, maxRetries: 0 }),
  ],
];

const { track } = cleanupAfterEach();

async function executorFor(makeModel: ModelFactory, responses: LoopbackReply[], tokenDelayMs = 0) {
  const server = track(await startOpenAICompatibleServer({ responses, tokenDelayMs, toolCallChunkSize: 4 }));
  return { server, executor: toolCallingExecutor(makeModel(server.baseURL), [weather, multiply], { returnIntermediateSteps: true }) };
}

describe.each(models)("AgentExecutor with %s against the loopback server", (_name, makeModel) => {
  it("runs parallel tool calls and answers, sending the tool results back", async () => {
    const { server, executor } = await executorFor(makeModel, [PARALLEL_CALLS, ANSWER]);
    const result = await lastValueFrom(executor.invoke({ input: "Weather in Paris, and 6 times 7?" }));
    expect(result.output).toBe(ANSWER);
    expect(result.intermediateSteps?.map((step) => [step.action.tool, step.action.toolInput, step.observation])).toEqual([
      ["weather", { city: "Paris" }, "Sunny and 21°C in Paris."],
      ["multiply", { a: 6, b: 7 }, "42"],
    ]);

    const [first, second] = server.chatRequests();
    expect(first.tools.map((entry: { function: { name: string } }) => entry.function.name)).toEqual(["weather", "multiply"]);
    expect(first.tools[1].function.parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
    });
    const followUp = second.messages.slice(2);
    expect(followUp[0]).toMatchObject({
      role: "assistant",
      tool_calls: [
        { id: "call_weather", type: "function", function: { name: "weather" } },
        { id: "call_multiply", type: "function", function: { name: "multiply" } },
      ],
    });
    expect(JSON.parse(followUp[0].tool_calls[1].function.arguments)).toEqual({ a: 6, b: 7 });
    expect(followUp.slice(1)).toMatchObject([
      { role: "tool", tool_call_id: "call_weather", content: "Sunny and 21°C in Paris." },
      { role: "tool", tool_call_id: "call_multiply", content: "42" },
    ]);
  });

  it("streams the run: actions, steps, the answer's tokens as sent, then the output", async () => {
    const { executor } = await executorFor(makeModel, [PARALLEL_CALLS, ANSWER]);
    const events = await lastValueFrom(executor.stream({ input: "Weather in Paris, and 6 times 7?" }).pipe(toArray()));
    const types = events.map((event) => event.type).filter((type) => type !== "usage");
    expect(types.filter((type) => type === "action")).toHaveLength(2);
    expect(types.filter((type) => type === "step")).toHaveLength(2);
    expect(types.at(-1)).toBe("output");
    const tokens = events.flatMap((event) => (event.type === "token" ? [event.text] : []));
    expect(tokens).toEqual(ANSWER.match(/\s*\S+\s*/g));
    const output = events.at(-1);
    expect(output?.type === "output" && output.output).toBe(ANSWER);
  });

  it("cancels the model call when the subscriber unsubscribes: the server sees the connection close", async () => {
    const { server, executor } = await executorFor(makeModel, ["one two three four five six seven eight nine ten"], 100);
    await new Promise<void>((resolve, reject) => {
      const subscription = executor.stream({ input: "Count." }).subscribe({
        next: (event) => {
          if (event.type === "token") {
            subscription.unsubscribe();
            resolve();
          }
        },
        error: reject,
      });
    });
    await server.requests[0]?.done;
    expect(server.requests[0]?.clientDisconnected).toBe(true);
  });

  it("aborting config.signal mid-answer errors the run with an AbortError and closes the connection", async () => {
    const { server, executor } = await executorFor(makeModel, ["one two three four five six seven eight nine ten"], 100);
    const controller = new AbortController();
    const error = await new Promise<unknown>((resolve) => {
      executor.stream({ input: "Count." }, { signal: controller.signal }).subscribe({
        next: (event) => {
          if (event.type === "token") controller.abort();
        },
        error: resolve,
        complete: () => resolve(new Error("the run completed")),
      });
    });
    expect((error as Error).name).toBe("AbortError");
    await server.requests[0]?.done;
    expect(server.requests[0]?.clientDisconnected).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("fails the run with the server's error message on a bad request", async () => {
    const { executor } = await executorFor(makeModel, [{ status: 400, message: "Invalid 'tools[0].function.name'." }]);
    await expect(lastValueFrom(executor.invoke({ input: "Hi" }))).rejects.toThrow("Invalid 'tools[0].function.name'.");
  });
});
