// @langchain/google-genai with thinking, through createToolCallingAgent and AgentExecutor, against
// the Gemini loopback server, which refuses (with Google's 400) a function call of the current
// turn sent back without its thought signature, function responses that do not answer the calls
// before them, and bad image parts. Every call must be valid, with the thought parts and
// signatures sent back as the model sent them, live and after a pause resumed from SQLite.
import { join } from "node:path";
import { type GeminiLoopbackTurn, startGoogleGenAIServer } from "@agentrx/core/testing";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { geminiThinking } from "./models";
import { approvalResumedFromSqlite, cleanupAfterEach, eagerToolsRun, multiply, subAgentRun, toolCallingExecutor, twoRunsWithMemory, weather } from "./support";

const SCRIPT: GeminiLoopbackTurn[] = [
  { thinking: "Two cities: both at once.", toolCalls: [{ name: "weather", args: { city: "Paris" } }, { name: "weather", args: { city: "Rome" } }] },
  { thinking: "21 × 2 with the tool.", toolCalls: [{ name: "multiply", args: { a: 21, b: 2 } }] },
  { thinking: "Done.", text: "Paris and Rome are sunny at 21°C; 21 × 2 = 42." },
];
const ANSWER = "Paris and Rome are sunny at 21°C; 21 × 2 = 42.";
const SIGNATURES = "__gemini_function_call_thought_signatures__";

/** The model turns of a request, each as its parts' kinds (`thought`, `text`, `call:<name>+signature`). */
function modelTurns(request: { contents: { role: string; parts: Record<string, any>[] }[] }) {
  return request.contents
    .filter((content) => content.role === "model")
    .map((content) =>
      content.parts.map((part) =>
        part["thought"] ? `thought:${part["text"]}` : part["functionCall"] ? `call:${part["functionCall"].name}${part["thoughtSignature"] ? "+signature" : ""}` : "text",
      ),
    );
}

const { track, tempDir } = cleanupAfterEach();

describe("@langchain/google-genai with thinking, through the executor", () => {
  for (const streaming of [false, true]) {
    it(`runs a multi-turn, parallel tool-calling run with every call valid (${streaming ? "streaming" : "not streaming"})`, async () => {
      const server = track(await startGoogleGenAIServer({ responses: SCRIPT }));
      const executor = toolCallingExecutor(geminiThinking(server.url, streaming), [weather, multiply]);
      const events = await lastValueFrom(executor.stream({ input: "Weather in Paris and Rome, and twice the temperature?" }).pipe(toArray()));
      expect(server.rejections).toEqual([]);
      expect(events.at(-1)).toMatchObject({ type: "output", output: ANSWER });
      const requests = server.contentRequests();
      expect(requests).toHaveLength(3);
      // Each step went back with its thought part and its signature on its first call.
      expect(modelTurns(requests[2])).toEqual([
        ["thought:Two cities: both at once.", "call:weather+signature", "call:weather"],
        ["thought:21 × 2 with the tool.", "call:multiply+signature"],
      ]);
      const signed = server.requests.length && requests[2].contents[1].parts[1].thoughtSignature;
      expect(signed).toEqual(expect.any(String));
      // The function responses answer the calls, by name, in one user turn each.
      expect(requests[1].contents.slice(2).map((content: { parts: { functionResponse?: { name: string; response: unknown } }[] }) => content.parts[0]?.functionResponse)).toEqual([
        { name: "weather", response: { result: "Sunny and 21°C in Paris." } },
        { name: "weather", response: { result: "Sunny and 21°C in Rome." } },
      ]);
    });
  }

  it("the server refuses a function call sent back without its thought signature (the check the runs pass)", async () => {
    const server = track(await startGoogleGenAIServer({ responses: SCRIPT }));
    const llm = geminiThinking(server.url).bindTools([weather]);
    const first = await llm.invoke("Weather in Paris and Rome?");
    const calls = first.tool_calls ?? [];
    const history = (kwargs: Record<string, unknown>) => [
      new HumanMessage("Weather in Paris and Rome?"),
      new AIMessage({ content: first.content as never, tool_calls: calls, additional_kwargs: kwargs }),
      ...calls.map((call) => new ToolMessage({ content: "Sunny.", tool_call_id: call.id as string, name: call.name })),
    ];
    await expect(llm.invoke(history({}))).rejects.toThrow(/Function call is missing a thought_signature in functionCall parts/);
    const forged = Object.fromEntries(Object.keys(first.additional_kwargs[SIGNATURES] as object).map((id) => [id, "Zm9yZ2Vk"]));
    await expect(llm.invoke(history({ [SIGNATURES]: forged }))).rejects.toThrow(/Corrupted thought signature/);
    expect(server.rejections).toHaveLength(2);
  });

  it("keeps cache hits per call and per run; the thinking is in the record's model messages", async () => {
    const long = "Answer briefly and use the tools. ".repeat(160);
    const server = track(await startGoogleGenAIServer({ responses: SCRIPT }));
    const { ChatPromptTemplate } = await import("@langchain/core/prompts");
    const { createToolCallingAgent } = await import("@agentrx/agents");
    const { AgentExecutor } = await import("@agentrx/executors");
    const { MemoryRunStore } = await import("@agentrx/runs");
    const prompt = ChatPromptTemplate.fromMessages([["system", long], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const store = new MemoryRunStore();
    const tools = [weather, multiply];
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm: geminiThinking(server.url), tools, prompt }), tools, store });
    const events = await lastValueFrom(executor.stream({ input: "Weather in Paris and Rome, and twice?" }, { runId: "gemini-usage" }).pipe(toArray()));
    expect(server.rejections).toEqual([]);
    const perCall = events.flatMap((event) => (event.type === "usage" ? [event.usage] : []));
    expect(perCall).toHaveLength(3);
    expect(perCall.map((usage) => usage.input_tokens)).toEqual(server.usages.map((usage) => usage.promptTokenCount));
    expect(perCall.map((usage) => usage.input_token_details?.cache_read ?? 0)).toEqual(server.usages.map((usage) => usage.cachedContentTokenCount ?? 0));
    expect(perCall[2]?.input_token_details?.cache_read).toBeGreaterThanOrEqual(1024);
    const run = await store.getRun("gemini-usage");
    expect(run?.usage?.input_token_details?.cache_read).toBe(perCall.reduce((sum, usage) => sum + (usage.input_token_details?.cache_read ?? 0), 0));
    // Gemini counts the thinking apart (thoughtsTokenCount); @langchain/google-genai 2.3 leaves it
    // out of usage_metadata, so output_tokens are the answer's only (see docs/models.md).
    expect(server.usages[0]?.thoughtsTokenCount).toBeGreaterThan(0);
    expect(perCall[0]?.output_tokens).toBe(server.usages[0]?.candidatesTokenCount);
    const action = (await store.readEvents("gemini-usage")).find((event) => event.type === "action");
    expect(JSON.stringify(action?.data)).toContain("Two cities: both at once.");
  });

  it("pauses for approval, and another executor resumes from SQLite with the signatures intact", async () => {
    const server = track(await startGoogleGenAIServer({ responses: SCRIPT }));
    const done = await approvalResumedFromSqlite(() => geminiThinking(server.url), join(tempDir("agentrx-gemini-"), "runs.db"), "Weather, and twice the temperature?");
    expect(server.rejections).toEqual([]);
    expect(done.output).toBe(ANSWER);
    expect(modelTurns(server.contentRequests()[2])[1]).toEqual(["thought:21 × 2 with the tool.", "call:multiply+signature"]);
  });

  it("trimming a turn's calls keeps every call valid", async () => {
    const server = track(await startGoogleGenAIServer({ responses: [...SCRIPT.slice(0, 2), { thinking: "More.", toolCalls: [{ name: "weather", args: { city: "Oslo" } }] }, SCRIPT[2] as GeminiLoopbackTurn] }));
    const result = await lastValueFrom(toolCallingExecutor(geminiThinking(server.url), [weather, multiply], { trimIntermediateSteps: 1 }).invoke({ input: "Weather?" }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe(ANSWER);
  });

  it("eagerTools: every call valid, the tools start when the answer ends (the package reports no tool-call chunks)", async () => {
    const server = track(await startGoogleGenAIServer({ responses: [{ thinking: "All three.", toolCalls: ["Paris", "Rome", "Oslo"].map((city) => ({ name: "weather", args: { city } })) }, { thinking: "Done.", text: "Sunny." }], tokenDelayMs: 5 }));
    const { log, events } = await eagerToolsRun(geminiThinking(server.url, true));
    expect(server.rejections).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "Sunny." });
    // @langchain/google-genai 2.3 calls handleLLMNewToken with the text only, not the chunk, so
    // the executor sees no tool call before the answer is complete (see docs/models.md).
    expect(log).toEqual(["agent returned", "start Paris", "start Rome", "start Oslo", "agent returned"]);
  });

  it("memory across runs, tool messages and thought signatures kept, stays valid on the next run", async () => {
    const server = track(
      await startGoogleGenAIServer({
        responses: [
          { thinking: "Paris first.", toolCalls: [{ name: "weather", args: { city: "Paris" } }] },
          { thinking: "Done.", text: "Sunny in Paris." },
          { thinking: "Now Rome.", toolCalls: [{ name: "weather", args: { city: "Rome" } }] },
          { thinking: "Done.", text: "Sunny in Rome too." },
        ],
      }),
    );
    expect(await twoRunsWithMemory(geminiThinking(server.url))).toBe("Sunny in Rome too.");
    expect(server.rejections).toEqual([]);
    // The first run's tool turn came back from memory with its thought and its signed call.
    expect(modelTurns(server.contentRequests()[3])[0]).toEqual(["thought:Paris first.", "call:weather+signature"]);
  });

  it("a sub-agent on the same provider, called as a tool, keeps both agents valid", async () => {
    const server = track(
      await startGoogleGenAIServer({
        responses: [
          { thinking: "Delegate.", toolCalls: [{ name: "researcher", args: { input: "Paris?" } }] },
          { thinking: "Look.", toolCalls: [{ name: "weather", args: { city: "Paris" } }] },
          { thinking: "Done.", text: "Paris: sunny." },
          { thinking: "Relay.", text: "The researcher says Paris is sunny." },
        ],
      }),
    );
    expect(await subAgentRun(() => geminiThinking(server.url))).toBe("The researcher says Paris is sunny.");
    expect(server.rejections).toEqual([]);
  });

  it("a tool's image goes back inside the function response (as @langchain/google-genai sends it), a valid call", async () => {
    const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    const chart = tool(async () => [{ type: "text", text: "Sales by month:" }, { type: "image", mimeType: "image/png", data: PNG }], { name: "chart", description: "Draws the sales chart.", schema: z.object({}) });
    const server = track(await startGoogleGenAIServer({ responses: [{ thinking: "Draw it.", toolCalls: [{ name: "chart" }] }, { thinking: "Seen.", text: "Sales grow." }] }));
    const result = await lastValueFrom(toolCallingExecutor(geminiThinking(server.url), [chart], { returnIntermediateSteps: true }).invoke({ input: "Show the sales." }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("Sales grow.");
    expect(result.intermediateSteps?.[0]?.observation).toEqual([{ type: "text", text: "Sales by month:" }, { type: "image", mimeType: "image/png", data: PNG }]);
    expect(server.contentRequests()[1].contents[2].parts[0].functionResponse).toEqual({
      name: "chart",
      response: { result: [{ text: "Sales by month:" }, { inlineData: { mimeType: "image/png", data: PNG } }] },
    });
  });
});
