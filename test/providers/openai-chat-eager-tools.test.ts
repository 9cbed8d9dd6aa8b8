// eagerTools with AgentRx's own OpenAIChatModel over the loopback server: the model reports its
// streamed tool-call chunks to callbacks, so the executor starts each tool call while the model is
// still streaming the next one.
import { OpenAIChatModel } from "@agentrx/core/openai";
import { startOpenAICompatibleServer } from "@agentrx/core/testing";
import { describe, expect, it } from "vitest";
import { cleanupAfterEach, eagerToolsRun, expectEarlyStarts } from "./support";

const { track } = cleanupAfterEach();

async function run(eagerTools: boolean) {
  const server = track(
    await startOpenAICompatibleServer({
      tokenDelayMs: 15,
      toolCallChunkSize: 4,
      toolCallOrder: "sequential", // as OpenAI streams them
      responses: [{ toolCalls: ["Paris", "Rome", "Oslo"].map((city) => ({ name: "weather", arguments: { city }, id: `call_${city}` })) }, "All done."],
    }),
  );
  const llm = new OpenAIChatModel({ model: "loopback-model", baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
  return eagerToolsRun(llm, eagerTools);
}

describe("eagerTools with OpenAIChatModel", () => {
  it("starts each streamed tool call before the model's answer is complete", async () => {
    const { log, events } = await run(true);
    expectEarlyStarts(log, 3);
    expect(log.indexOf("start Rome")).toBeLessThan(log.indexOf("agent returned"));
    expect(events.filter((event) => event.type === "action").every((event) => (event as { early?: boolean }).early === true)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "All done." });
  });

  it("without eagerTools, no tool starts before the model's answer", async () => {
    const { log } = await run(false);
    expect(log[0]).toBe("agent returned");
  });
});
