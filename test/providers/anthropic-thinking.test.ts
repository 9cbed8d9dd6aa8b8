// @langchain/anthropic with extended thinking, through createToolCallingAgent and AgentExecutor,
// against the Anthropic Messages loopback server, which refuses (with Anthropic's 400) any call
// whose thinking blocks are missing, reordered, edited or re-signed, or whose tool results do not
// pair with the calls before them. Every call must be valid, with the thinking sent back exactly
// as the model sent it, live, after a pause resumed from SQLite by another executor and store.
import { join } from "node:path";
import { type AnthropicLoopbackTurn, type AnthropicMessagesServer, startAnthropicMessagesServer } from "@agentrx/core/testing";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { anthropicThinking } from "./models";
import { approvalResumedFromSqlite, cleanupAfterEach, multiply, toolCallingExecutor, weather } from "./support";

const SCRIPT: AnthropicLoopbackTurn[] = [
  {
    thinking: "The user wants the weather in two cities: I can ask for both at once.",
    text: "Let me check both cities.",
    toolCalls: [
      { name: "weather", input: { city: "Paris" } },
      { name: "weather", input: { city: "Rome" } },
    ],
  },
  { thinking: "Both are 21°C. Now 21 × 2, with the tool.", toolCalls: [{ name: "multiply", input: { a: 21, b: 2 } }] },
  { thinking: "I have everything.", text: "Paris and Rome are sunny at 21°C; 21 × 2 = 42." },
];

const anthropic = (server: AnthropicMessagesServer, streaming = false) => anthropicThinking(server.url, streaming);

/** The thinking blocks of the assistant messages the server received in `request`. */
function thinkingSent(request: { messages: { role: string; content: unknown }[] }) {
  return request.messages
    .filter((message) => message.role === "assistant" && Array.isArray(message.content))
    .map((message) => (message.content as { type: string }[]).filter((block) => block.type === "thinking"));
}

const { track, tempDir } = cleanupAfterEach();

describe("@langchain/anthropic with extended thinking, through the executor", () => {
  for (const mode of ["invoke", "stream"] as const) {
    it(`runs a multi-turn, parallel tool-calling run with every call valid (${mode})`, async () => {
      const server = track(await startAnthropicMessagesServer({ responses: SCRIPT }));
      const llm = anthropic(server);
      const executor = toolCallingExecutor(llm, [weather, multiply]);
      const input = { input: "Weather in Paris and Rome, and twice the temperature?" };
      const output =
        mode === "invoke"
          ? (await lastValueFrom(executor.invoke(input))).output
          : ((await lastValueFrom(executor.stream(input).pipe(toArray()))).at(-1) as { output: string }).output;
      expect(server.rejections).toEqual([]);
      expect(output).toBe("Paris and Rome are sunny at 21°C; 21 × 2 = 42.");
      const requests = server.messageRequests();
      expect(requests).toHaveLength(3);
      // The thinking blocks went back exactly as they came, signatures included, first in their message.
      const sent = thinkingSent(requests[2]);
      expect(sent.map((blocks) => blocks.map((block) => (block as { thinking?: string }).thinking))).toEqual([[SCRIPT[0]?.thinking], [SCRIPT[1]?.thinking]]);
      expect(requests[2].messages[3].content[0].type).toBe("thinking");
      expect(requests[2].messages[2].content.map((block: { type: string; tool_use_id?: string }) => block.type)).toEqual(["tool_result", "tool_result"]);
    });
  }

  it("a server that sees the thinking dropped answers Anthropic's 400 (the check the runs above pass)", async () => {
    const server = track(await startAnthropicMessagesServer({ responses: SCRIPT }));
    const llm = anthropic(server);
    const first = await llm.bindTools([weather]).invoke("Weather in Paris and Rome?");
    const withoutThinking = { ...first, content: (first.content as { type: string }[]).filter((block) => block.type !== "thinking") };
    const { AIMessage, ToolMessage, HumanMessage } = await import("@langchain/core/messages");
    const history = [
      new HumanMessage("Weather in Paris and Rome?"),
      new AIMessage({ content: withoutThinking.content as never, tool_calls: first.tool_calls ?? [] }),
      ...(first.tool_calls ?? []).map((call) => new ToolMessage({ content: "Sunny.", tool_call_id: call.id as string })),
    ];
    await expect(llm.bindTools([weather]).invoke(history)).rejects.toThrow(/Expected `thinking` or `redacted_thinking`, but found `text`/);
    expect(server.rejections).toHaveLength(1);
  });

  it("pauses for approval, and another executor resumes from SQLite with the thinking intact", async () => {
    const server = track(await startAnthropicMessagesServer({ responses: SCRIPT }));
    const done = await approvalResumedFromSqlite(() => anthropic(server), join(tempDir("agentrx-anthropic-"), "runs.db"), "Weather in Paris and Rome, and twice the temperature?");
    expect(server.rejections).toEqual([]);
    expect(done).toMatchObject({ output: "Paris and Rome are sunny at 21°C; 21 × 2 = 42." });
    const last = server.messageRequests()[2];
    expect(thinkingSent(last).map((blocks) => blocks.map((block) => (block as { thinking?: string }).thinking))).toEqual([[SCRIPT[0]?.thinking], [SCRIPT[1]?.thinking]]);
  });
});
