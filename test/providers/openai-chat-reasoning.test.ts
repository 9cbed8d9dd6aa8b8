// A reasoning model behind a Chat Completions API (DeepSeek, vLLM, OpenRouter...), through
// OpenAIChatModel and the executor: the reasoning the server streams beside the content
// (`reasoning_content`, or `reasoning`) and the usage details (cached and reasoning tokens) reach
// the run's events and its record, and goes back with the turn that called the tool, in the field
// it came in.
import { OpenAIChatModel } from "@agentrx/core/openai";
import { startOpenAICompatibleServer } from "@agentrx/core/testing";
import { MemoryRunStore } from "@agentrx/runs";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { cleanupAfterEach, multiply, toolCallingExecutor, weather } from "./support";

const { track } = cleanupAfterEach();
const THOUGHT = "The user wants Paris: one call to the weather tool.";
// OpenRouter's reasoning details (a Gemini thought signature among them), sent back unchanged.
const DETAILS = [
  { type: "reasoning.text", text: THOUGHT, format: "google-gemini-v1", index: 0 },
  { type: "reasoning.encrypted", data: "c2lnbmF0dXJl", id: "call_weather", format: "google-gemini-v1", index: 1 },
];

describe("OpenAIChatModel with a reasoning model behind a Chat Completions API", () => {
  for (const [reasoningField, streaming] of [
    ["reasoning_content", true],
    ["reasoning_content", false],
    ["reasoning", true],
    ["reasoning", false],
  ] as const) {
    it(`keeps the ${reasoningField} and the usage details in the run's events and record (${streaming ? "streaming" : "not streaming"})`, async () => {
      const server = track(
        await startOpenAICompatibleServer({
          reasoningField,
          requireReasoningBack: true,
          responses: [
            {
              reasoning: THOUGHT,
              ...(reasoningField === "reasoning" ? { reasoningDetails: DETAILS } : {}),
              toolCalls: [{ name: "weather", arguments: { city: "Paris" } }],
              usage: { promptTokens: 200, completionTokens: 60, cachedTokens: 0, reasoningTokens: 45 },
            },
            { reasoning: "Answer now.", content: "Sunny in Paris.", usage: { promptTokens: 240, completionTokens: 12, cachedTokens: 192, reasoningTokens: 3 } },
          ],
        }),
      );
      const llm = new OpenAIChatModel({ model: "deepseek-reasoner", baseURL: server.baseURL, apiKey: "test", maxRetries: 0, streaming });
      const store = new MemoryRunStore();
      const events = await lastValueFrom(toolCallingExecutor(llm, [weather, multiply], { store }).stream({ input: "Weather in Paris?" }, { runId: "r" }).pipe(toArray()));
      expect(events.at(-1)).toMatchObject({ type: "output", output: "Sunny in Paris." });

      const action = events.find((event) => event.type === "action");
      expect(action?.type === "action" && action.messages[0]?.additional_kwargs["reasoning_content"]).toBe(THOUGHT);
      const usages = events.flatMap((event) => (event.type === "usage" ? [event.usage] : []));
      expect(usages).toEqual([
        { input_tokens: 200, output_tokens: 60, total_tokens: 260, input_token_details: { cache_read: 0 }, output_token_details: { reasoning: 45 } },
        { input_tokens: 240, output_tokens: 12, total_tokens: 252, input_token_details: { cache_read: 192 }, output_token_details: { reasoning: 3 } },
      ]);
      expect(events.at(-1)).toMatchObject({ usage: { input_token_details: { cache_read: 192 }, output_token_details: { reasoning: 48 } } });

      // The record keeps the reasoning with the model's message.
      const recorded = (await store.readEvents("r")).find((event) => event.type === "action");
      expect(JSON.stringify(recorded?.data)).toContain(THOUGHT);
      // The turn that called the tool goes back with its reasoning, in the field it came in, as
      // DeepSeek's thinking mode requires (and OpenRouter's field for OpenRouter).
      const sentBack = server.chatRequests()[1].messages.find((message: { role: string }) => message.role === "assistant");
      expect(sentBack[reasoningField]).toBe(THOUGHT);
      expect(sentBack).not.toHaveProperty(reasoningField === "reasoning" ? "reasoning_content" : "reasoning");
      if (reasoningField === "reasoning") expect(sentBack.reasoning_details).toEqual(DETAILS);
      else expect(sentBack).not.toHaveProperty("reasoning_details");
      expect(server.rejections).toEqual([]);
    });
  }

  it("the server streams the reasoning as deltas before the content", async () => {
    const server = track(await startOpenAICompatibleServer({ responses: [{ reasoning: "Think first.", content: "Then answer." }] }));
    const llm = new OpenAIChatModel({ model: "deepseek-reasoner", baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
    const deltas: string[] = [];
    for await (const chunk of await llm.stream("Hi")) {
      const reasoning = chunk.additional_kwargs["reasoning_content"];
      deltas.push(typeof reasoning === "string" ? `r:${reasoning}` : `c:${chunk.text}`);
    }
    expect(deltas.filter((delta) => delta !== "c:")).toEqual(["r:Think ", "r:first.", "c:Then ", "c:answer."]);
  });
});
