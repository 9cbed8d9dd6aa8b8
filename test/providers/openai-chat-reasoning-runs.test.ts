// AgentRx's OpenAIChatModel on a reasoning model behind a Chat Completions API, against the
// OpenAI-compatible loopback server playing DeepSeek's thinking mode (`requireReasoningBack`): it
// refuses, with DeepSeek's 400, an assistant turn that made tool calls sent back without its
// `reasoning_content`. Every run (parallel calls over several turns, trimming, memory across runs,
// an approval resumed from SQLite, a sub-agent, eagerTools) must leave it without a rejection, with
// each turn's reasoning sent back exactly as the model sent it.
import { join } from "node:path";
import { type LoopbackCompletion, type OpenAICompatibleServer, startOpenAICompatibleServer } from "@agentrx/core/testing";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { chatReasoning } from "./models";
import { approvalResumedFromSqlite, cleanupAfterEach, eagerToolsRun, expectEarlyStarts, multiply, subAgentRun, toolCallingExecutor, twoRunsWithMemory, weather } from "./support";

const SCRIPT: LoopbackCompletion[] = [
  { reasoning: "Two cities: both at once.", toolCalls: [{ name: "weather", arguments: { city: "Paris" } }, { name: "weather", arguments: { city: "Rome" } }] },
  { reasoning: "21 × 2 with the tool.", toolCalls: [{ name: "multiply", arguments: { a: 21, b: 2 } }] },
  { reasoning: "Done.", content: "Paris and Rome are sunny at 21°C; 21 × 2 = 42." },
];
const ANSWER = "Paris and Rome are sunny at 21°C; 21 × 2 = 42.";

const deepseek = (responses: LoopbackCompletion[], options: { tokenDelayMs?: number } = {}) =>
  startOpenAICompatibleServer({ responses, requireReasoningBack: true, toolCallOrder: "sequential", ...options });

/** The assistant messages of a request, each as `<reasoning_content>: <tool names>` (or its text). */
function assistantTurns(request: { messages: { role: string; reasoning_content?: string; content?: string | null; tool_calls?: { function: { name: string } }[] }[] }) {
  return request.messages
    .filter((message) => message.role === "assistant")
    .map((message) => `${message.reasoning_content ?? "-"}: ${message.tool_calls ? message.tool_calls.map((call) => call.function.name).join(",") : message.content}`);
}

const { track, tempDir } = cleanupAfterEach();
const llmFor = (server: OpenAICompatibleServer, streaming = false) => chatReasoning(server.baseURL, streaming);

describe("OpenAIChatModel with a reasoning model (DeepSeek's thinking mode), through the executor", () => {
  for (const streaming of [false, true]) {
    it(`runs a multi-turn, parallel tool-calling run with every call valid, the reasoning sent back (${streaming ? "streaming" : "not streaming"})`, async () => {
      const server = track(await deepseek(SCRIPT));
      const executor = toolCallingExecutor(llmFor(server, streaming), [weather, multiply]);
      const events = await lastValueFrom(executor.stream({ input: "Weather in Paris and Rome, and twice the temperature?" }).pipe(toArray()));
      expect(server.rejections).toEqual([]);
      expect(events.at(-1)).toMatchObject({ type: "output", output: ANSWER });
      const requests = server.chatRequests();
      expect(requests).toHaveLength(3);
      expect(assistantTurns(requests[2])).toEqual(["Two cities: both at once.: weather,weather", "21 × 2 with the tool.: multiply"]);
      expect(requests[1].messages.slice(-2).map((message: { role: string; content: string }) => [message.role, message.content])).toEqual([
        ["tool", "Sunny and 21°C in Paris."],
        ["tool", "Sunny and 21°C in Rome."],
      ]);
    });
  }

  it("the server refuses a tool-call turn sent back without its reasoning (the check the runs pass)", async () => {
    const server = track(await deepseek(SCRIPT));
    const llm = llmFor(server).bindTools([weather]);
    const { AIMessage, HumanMessage, ToolMessage } = await import("@langchain/core/messages");
    const first = await llm.invoke("Weather in Paris and Rome?");
    const calls = first.tool_calls ?? [];
    const history = [new HumanMessage("Weather?"), new AIMessage({ content: "", tool_calls: calls }), ...calls.map((call) => new ToolMessage({ content: "Sunny.", tool_call_id: call.id as string }))];
    await expect(llm.invoke(history)).rejects.toThrow(/Missing `reasoning_content` field in the assistant message at message index 1/);
    expect(server.rejections).toHaveLength(1);
  });

  it("trimming a turn's calls keeps its reasoning on the calls that remain", async () => {
    const server = track(await deepseek([...SCRIPT.slice(0, 2), { reasoning: "More.", toolCalls: [{ name: "weather", arguments: { city: "Oslo" } }] }, SCRIPT[2] as LoopbackCompletion]));
    const result = await lastValueFrom(toolCallingExecutor(llmFor(server), [weather, multiply], { trimIntermediateSteps: 1 }).invoke({ input: "Weather?" }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe(ANSWER);
    // The first turn cut in two: one of its calls goes back, with the turn's reasoning.
    expect(assistantTurns(server.chatRequests()[1])).toEqual(["Two cities: both at once.: weather"]);
    expect(assistantTurns(server.chatRequests()[3])).toEqual(["More.: weather"]);
  });

  it("pauses for approval, and another executor resumes from SQLite with the reasoning intact", async () => {
    const server = track(await deepseek(SCRIPT));
    const done = await approvalResumedFromSqlite(() => llmFor(server), join(tempDir("agentrx-chat-reasoning-"), "runs.db"), "Weather, and twice the temperature?");
    expect(server.rejections).toEqual([]);
    expect(done.output).toBe(ANSWER);
    expect(assistantTurns(server.chatRequests()[2])).toEqual(["Two cities: both at once.: weather,weather", "21 × 2 with the tool.: multiply"]);
  });

  it("memory across runs, tool messages and reasoning kept, stays valid on the next run", async () => {
    const server = track(
      await deepseek([
        { reasoning: "Paris first.", toolCalls: [{ name: "weather", arguments: { city: "Paris" } }] },
        { reasoning: "Done.", content: "Sunny in Paris." },
        { reasoning: "Now Rome.", toolCalls: [{ name: "weather", arguments: { city: "Rome" } }] },
        { reasoning: "Done.", content: "Sunny in Rome too." },
      ]),
    );
    expect(await twoRunsWithMemory(llmFor(server))).toBe("Sunny in Rome too.");
    expect(server.rejections).toEqual([]);
    // The first run's tool turn came back from memory with its reasoning; its answer without.
    expect(assistantTurns(server.chatRequests()[3])).toEqual(["Paris first.: weather", "-: Sunny in Paris.", "Now Rome.: weather"]);
  });

  it("a sub-agent on the same provider, called as a tool, keeps both agents valid", async () => {
    const server = track(
      await deepseek([
        { reasoning: "Delegate.", toolCalls: [{ name: "researcher", arguments: { input: "Paris?" } }] },
        { reasoning: "Look.", toolCalls: [{ name: "weather", arguments: { city: "Paris" } }] },
        { reasoning: "Done.", content: "Paris: sunny." },
        { reasoning: "Relay.", content: "The researcher says Paris is sunny." },
      ]),
    );
    expect(await subAgentRun(() => llmFor(server))).toBe("The researcher says Paris is sunny.");
    expect(server.rejections).toEqual([]);
    expect(assistantTurns(server.chatRequests()[3])).toEqual(["Delegate.: researcher"]);
  });

  it("eagerTools starts the streamed calls before the model's answer is complete, every call valid", async () => {
    const server = track(await deepseek([{ reasoning: "All three.", toolCalls: ["Paris", "Rome", "Oslo"].map((city) => ({ name: "weather", arguments: { city } })) }, { reasoning: "Done.", content: "Sunny." }], { tokenDelayMs: 5 }));
    const { log, events } = await eagerToolsRun(llmFor(server, true));
    expect(server.rejections).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "Sunny." });
    expectEarlyStarts(log, 3);
    expect(assistantTurns(server.chatRequests()[1])).toEqual(["All three.: weather,weather,weather"]);
  });
});
