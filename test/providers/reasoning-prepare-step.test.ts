// Middleware whose `prepareStep` (docs/middleware.md) hands the agent changed steps, on a
// reasoning model, for each of the four reasoning wire formats (./reasoning-providers.ts): results
// redacted and a note added as the user's, a naive cut that splits a turn of parallel calls, a turn
// left out. Every call stays valid for the provider (its loopback server says so), and the turns the
// agent sees go back with their reasoning as the model sent it.
import { type AgentStep, messageStep, observationText } from "@agentrx/core";
import type { AgentMiddleware } from "@agentrx/executors";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { type ReasoningProvider, type ReasoningTurn, reasoningModel, startReasoningServer } from "./reasoning-providers";
import { conversationOf, expectTurnRepeated, sentOf, shapeOf } from "./reasoning-requests";
import { cleanupAfterEach, multiply, toolCallingExecutor, weather } from "./support";

const TURNS: ReasoningTurn[] = [
  { reasoning: "Two cities: both at once.", calls: [{ name: "weather", args: { city: "Paris" } }, { name: "weather", args: { city: "Rome" } }] },
  { reasoning: "21 × 2 with the tool.", calls: [{ name: "multiply", args: { a: 21, b: 2 } }] },
  { reasoning: "Oslo too.", calls: [{ name: "weather", args: { city: "Oslo" } }] },
  { reasoning: "Done.", text: "Sunny; 42." },
];
const providers: ReasoningProvider[] = ["anthropic", "responses", "gemini", "chat"];
const NOTE = "Answer in one line.";

const { track } = cleanupAfterEach();

/** Runs {@link TURNS} with `middleware`; returns the server's requests once every call was valid. */
async function runWith(provider: ReasoningProvider, middleware: AgentMiddleware) {
  const server = track(await startReasoningServer(provider, TURNS));
  const executor = toolCallingExecutor(reasoningModel(provider, server.url), [weather, multiply], { middleware: [middleware] });
  const result = await lastValueFrom(executor.invoke({ input: "Weather in Paris, Rome and Oslo, and twice 21?" }));
  expect(server.rejections).toEqual([]);
  expect(result.output).toBe("Sunny; 42.");
  return { server, requests: server.requests() };
}

describe.each(providers)("%s: prepareStep changing the steps, with reasoning", (provider) => {
  it("redacted results and a note after them: every turn's reasoning sent back as it came", async () => {
    const redact: AgentMiddleware = {
      name: "redact",
      prepareStep: ({ steps }) =>
        steps.length === 0 ? undefined : { steps: [...steps.map((step): AgentStep => ({ ...step, observation: observationText(step.observation).replace("21°C", "[temperature]") })), messageStep(NOTE)] },
    };
    const { server, requests } = await runWith(provider, redact);
    const last = requests[3];
    expect(server.reasoningSent(last)).toEqual(sentOf(provider, ["Two cities: both at once.", "21 × 2 with the tool.", "Oslo too."]));
    const sent = JSON.stringify(conversationOf(provider, last));
    expect(sent).toContain("Sunny and [temperature] in Paris.");
    expect(sent).not.toContain("21°C");
    expect(JSON.stringify(conversationOf(provider, last).at(-1))).toContain(NOTE);
    expect(shapeOf(provider, last).at(-1)).toMatch(/^(user|message\(user\))/);
  });

  it("a naive cut to the last step, which splits the turn of parallel calls", async () => {
    const lastStep: AgentMiddleware = { name: "lastStep", prepareStep: ({ steps }) => ({ steps: steps.slice(-1) }) };
    const { server, requests } = await runWith(provider, lastStep);
    const [, split, second, third] = requests;
    // Rome's call alone goes back with its turn's reasoning; a Responses API reasoning item cannot
    // come back without every item it led to, so the call goes back without it, as a new item.
    expect(server.reasoningSent(split)).toEqual(provider === "responses" ? [] : sentOf(provider, ["Two cities: both at once."]));
    expect(JSON.stringify(conversationOf(provider, split))).toContain("Sunny and 21°C in Rome.");
    expect(JSON.stringify(conversationOf(provider, split))).not.toContain("Sunny and 21°C in Paris.");
    expect(server.reasoningSent(second)).toEqual(sentOf(provider, ["21 × 2 with the tool."]));
    expect(server.reasoningSent(third)).toEqual(sentOf(provider, ["Oslo too."]));
  });

  it("a turn left out: the turns around it go back as they came", async () => {
    const noMultiply: AgentMiddleware = { name: "noMultiply", prepareStep: ({ steps }) => ({ steps: steps.filter((step) => step.action.tool !== "multiply") }) };
    const { server, requests } = await runWith(provider, noMultiply);
    const [, first, , last] = requests;
    expect(server.reasoningSent(last)).toEqual(sentOf(provider, ["Two cities: both at once.", "Oslo too."]));
    expectTurnRepeated(provider, last, first, "Two cities: both at once.");
    expect(JSON.stringify(conversationOf(provider, last))).not.toContain("21 × 2");
  });
});
