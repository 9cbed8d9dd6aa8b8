// The capacity scenario (bench/capacity.ts) gives every contestant the same load: the LangChain
// chat model (AgentRx, LangGraph) and the AI SDK model stream the same tokens and tool calls on the
// same timeline, and that timeline is the one the bench's ideal run is computed from. Fake timers:
// the timeline is checked in scripted milliseconds, not measured.
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { aiSdkModel, capacityLevels, checkCapacityFlags } from "../../bench/capacity";
import { IDEAL_RUN_MS, STEPS, TOKENS, TOOL_MS, TOOL_TURNS, TOOLS_PER_TURN, capacityModel, modelCallMs } from "../../bench/capacity-setup";

interface Timed {
  at: number;
  text?: string;
  toolCall?: { name: string; args: unknown };
}

/** The conversation after `turns` tool turns, as LangChain messages. */
function conversation(turns: number) {
  const messages = [new HumanMessage("go")];
  for (let turn = 0; turn < turns; turn++) {
    const calls = Array.from({ length: TOOLS_PER_TURN }, (_, index) => ({ id: `c${turn}${index}`, name: "sleep", args: { i: turn * TOOLS_PER_TURN + index } }));
    messages.push(new AIMessage({ content: "", tool_calls: calls }) as never);
    for (const call of calls) messages.push(new ToolMessage({ content: "value", tool_call_id: call.id }) as never);
  }
  return messages;
}

/** A reader busy for `ms` (on the fake clock) after the first chunk. */
const busy = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function langChainTurn(turns: number, lateMs = 0): Promise<Timed[]> {
  const start = Date.now();
  const timed: Timed[] = [];
  const stream = await capacityModel().stream(conversation(turns));
  let last: AIMessageChunk | undefined;
  for await (const chunk of stream) {
    if (typeof chunk.content === "string" && chunk.content) timed.push({ at: Date.now() - start, text: chunk.content });
    if (chunk.tool_call_chunks?.length) timed.push({ at: Date.now() - start });
    last = last ? last.concat(chunk) : chunk;
    if (timed.length === 1 && lateMs > 0) await busy(lateMs);
  }
  // Tool calls whole, at the time of their chunk.
  const callTimes = timed.filter((entry) => entry.text === undefined);
  (last?.tool_calls ?? []).forEach((call, index) => {
    const entry = callTimes[index];
    if (entry) entry.toolCall = { name: call.name, args: call.args };
  });
  return timed;
}

async function aiSdkTurn(turns: number, lateMs = 0): Promise<Timed[]> {
  const start = Date.now();
  const prompt = [
    { role: "user" as const, content: [{ type: "text" as const, text: "go" }] },
    ...Array.from({ length: turns * TOOLS_PER_TURN }, (_, index) => ({
      role: "tool" as const,
      content: [{ type: "tool-result" as const, toolCallId: `c${index}`, toolName: "sleep", output: { type: "text" as const, value: "value" } }],
    })),
  ];
  const { stream } = await aiSdkModel().doStream({ prompt });
  const timed: Timed[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = (await reader.read()) as { done: boolean; value: LanguageModelV3StreamPart };
    if (done) break;
    if (value.type === "text-delta") timed.push({ at: Date.now() - start, text: value.delta });
    if (value.type === "tool-call") timed.push({ at: Date.now() - start, toolCall: { name: value.toolName, args: JSON.parse(value.input) } });
    if (timed.length === 1 && lateMs > 0) await busy(lateMs);
  }
  return timed;
}

/** Runs `work` while advancing the fake clock. */
async function onFakeClock<T>(work: Promise<T>): Promise<T> {
  let settled = false;
  void work.finally(() => (settled = true));
  while (!settled) await vi.advanceTimersByTimeAsync(5);
  return work;
}

describe("the capacity load", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([0, 1, 2])("after %i tool turns, both models stream the same tokens and tool calls on the scripted timeline", async (turns) => {
    const langChain = await onFakeClock(langChainTurn(turns));
    const aiSdk = await onFakeClock(aiSdkTurn(turns));
    const toolCalls = turns < TOOL_TURNS ? TOOLS_PER_TURN : 0;
    expect(langChain.filter((entry) => entry.text !== undefined)).toHaveLength(TOKENS);
    expect(langChain.map((entry) => entry.text ?? entry.toolCall)).toEqual(aiSdk.map((entry) => entry.text ?? entry.toolCall));
    expect(aiSdk.filter((entry) => entry.toolCall)).toHaveLength(toolCalls);
    // The first token after 1 s, the last event when the ideal call ends; the same for both.
    for (const timeline of [langChain, aiSdk]) {
      expect(timeline[0]?.at).toBeGreaterThanOrEqual(1000);
      expect(timeline[0]?.at).toBeLessThan(1010);
      expect(timeline.at(-1)?.at).toBeGreaterThanOrEqual(modelCallMs(toolCalls));
      expect(timeline.at(-1)?.at).toBeLessThan(modelCallMs(toolCalls) + 10);
    }
    if (turns === TOOL_TURNS) expect(aiSdk.map((entry) => entry.text).join("")).toMatch(/The values are in\.$/);
  });

  it("a reader that falls behind gets the chunks already due: its lateness does not push the later ones back", async () => {
    // A busy event loop reads a provider's stream late, but the provider keeps streaming: the
    // chunks due meanwhile wait in the socket. Both models pace their chunks that way.
    for (const turn of [langChainTurn, aiSdkTurn]) {
      const timeline = await onFakeClock(turn(0, 300));
      expect(timeline[1]?.at).toBeGreaterThanOrEqual(1300); // read after the reader's 300 ms
      expect(timeline[2]?.at).toBeLessThan(1310); // due at 1040: at once
      expect(timeline.at(-1)?.at).toBeGreaterThanOrEqual(modelCallMs(TOOLS_PER_TURN));
      expect(timeline.at(-1)?.at).toBeLessThan(modelCallMs(TOOLS_PER_TURN) + 10);
    }
  });

  it("the ideal run is its model calls and tool turns end to end", () => {
    expect(STEPS).toBe(3);
    expect(IDEAL_RUN_MS).toBe(2 * (modelCallMs(2) + TOOL_MS) + modelCallMs(0));
  });

  it("reads its ramp from the flags and refuses a bad one", () => {
    expect(capacityLevels([])).toEqual([50, 100, 250, 500, 1000, 2000]);
    expect(capacityLevels(["--full"])).toEqual([50, 100, 250, 500, 1000, 2000, 5000]);
    expect(capacityLevels(["--levels=10,20"])).toEqual([10, 20]);
    expect(() => capacityLevels(["--levels=10,x"])).toThrow(/--levels takes positive whole numbers/);
    expect(() => checkCapacityFlags(["capacity", "--levels=10", "--in-process", "--workers=1", "--only=sqlite", "--full"])).not.toThrow();
    // A typo would otherwise run the whole default ramp.
    expect(() => checkCapacityFlags(["capacity", "--level=20"])).toThrow(/unknown flag --level=20; usage:\n.*--levels=a,b/s);
  });
});
