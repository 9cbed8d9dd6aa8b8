// More runs of @langchain/anthropic with extended thinking against the Anthropic loopback server:
// eagerTools, trimming, memory across runs (tool messages kept), and a sub-agent. The server
// refuses any call Anthropic would refuse; every run must leave it without a single rejection.
import { type AnthropicLoopbackTurn, type AnthropicMessagesServer, startAnthropicMessagesServer } from "@agentrx/core/testing";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { anthropicThinking } from "./models";
import { cleanupAfterEach, eagerToolsRun, expectEarlyStarts, subAgentRun, toolCallingExecutor, twoRunsWithMemory, weather } from "./support";

const llmFor = (server: AnthropicMessagesServer, streaming = false) => anthropicThinking(server.url, streaming);
const cities = (...names: string[]): AnthropicLoopbackTurn => ({ thinking: `Check ${names.join(" and ")}.`, toolCalls: names.map((city) => ({ name: "weather", input: { city } })) });

const { track } = cleanupAfterEach();

describe("@langchain/anthropic with extended thinking: more runs", () => {
  it("eagerTools starts the streamed tool calls before the model's answer is complete", async () => {
    const server = track(await startAnthropicMessagesServer({ responses: [cities("Paris", "Rome", "Oslo"), { thinking: "Done.", text: "All sunny." }], tokenDelayMs: 5 }));
    const { log, events } = await eagerToolsRun(llmFor(server));
    expect(server.rejections).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "All sunny." });
    expectEarlyStarts(log, 3);
  });

  it("trimming keeps every call valid: the current turn starts with its thinking", async () => {
    const server = track(await startAnthropicMessagesServer({ responses: [cities("Paris", "Rome"), cities("Oslo"), cities("Lima"), { thinking: "Done.", text: "Sunny everywhere." }] }));
    const executor = toolCallingExecutor(llmFor(server), [weather], { trimIntermediateSteps: 1 });
    const result = await lastValueFrom(executor.invoke({ input: "Weather?" }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("Sunny everywhere.");
  });

  it("memory across runs, tool messages and thinking kept, stays valid on the next run", async () => {
    const server = track(await startAnthropicMessagesServer({ responses: [cities("Paris"), { thinking: "Done.", text: "Sunny in Paris." }, cities("Rome"), { thinking: "Done.", text: "Sunny in Rome too." }] }));
    expect(await twoRunsWithMemory(llmFor(server))).toBe("Sunny in Rome too.");
    expect(server.rejections).toEqual([]);
    const last = server.messageRequests().at(-1);
    // The first run's turn came back from memory with its thinking block and signature.
    expect(last.messages[1].content[0]).toMatchObject({ type: "thinking", thinking: "Check Paris." });
  });

  it("a sub-agent on the same provider, called as a tool, keeps both agents valid", async () => {
    const server = track(
      await startAnthropicMessagesServer({
        responses: [
          { thinking: "Delegate.", toolCalls: [{ name: "researcher", input: { input: "Weather in Paris?" } }] },
          cities("Paris"),
          { thinking: "Done.", text: "Paris: sunny." },
          { thinking: "Relay.", text: "The researcher says Paris is sunny." },
        ],
      }),
    );
    expect(await subAgentRun(() => llmFor(server))).toBe("The researcher says Paris is sunny.");
    expect(server.rejections).toEqual([]);
  });
});
