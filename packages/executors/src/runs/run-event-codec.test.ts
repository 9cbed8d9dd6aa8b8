import { AIMessage, AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { AgentStreamEvent } from "../executor/events";
import { RunEventDecoder, encodeRunEvent } from "./run-event-codec";
import { RunRecorder } from "./run-recorder";
import type { RunStore, RunWrite, StoredRunEvent } from "./run-store";

/** What a recorder writes, without a store behind it. */
function capture(): { store: RunStore; events: StoredRunEvent[] } {
  const events: StoredRunEvent[] = [];
  const store = {
    write: async (_runId: string, write: RunWrite) => {
      events.push(...write.events);
    },
  } as unknown as RunStore;
  return { store, events };
}

describe("the codec of sub-run events", () => {
  it("round-trips a sub-run's event with its path and its call ids", () => {
    const event: AgentStreamEvent = {
      type: "action",
      iteration: 1,
      at: 5,
      action: { tool: "lookup", toolInput: { q: "tides" }, log: "" },
      messages: [],
      subRun: ["researcher", "checker"],
      subRunCallIds: ["call_a", "0:1"],
    };
    const json = JSON.parse(JSON.stringify(encodeRunEvent(event)));
    expect(json).toMatchObject({ type: "action", subRun: ["researcher", "checker"], subRunCallIds: ["call_a", "0:1"] });
    const decoded = new RunEventDecoder("r").decode({ seq: 2, type: "action", at: 5, data: json });
    expect(decoded).toMatchObject({ type: "action", iteration: 1, subRun: ["researcher", "checker"], subRunCallIds: ["call_a", "0:1"], action: { tool: "lookup", toolInput: { q: "tides" } } });
    // A record written before call ids were (or with ids that do not match the path) decodes without them.
    const { subRunCallIds: _, ...old } = json;
    expect(new RunEventDecoder("r").decode({ seq: 2, type: "action", at: 5, data: old })).not.toHaveProperty("subRunCallIds");
    expect(new RunEventDecoder("r").decode({ seq: 2, type: "action", at: 5, data: { ...json, subRunCallIds: ["x"] } })).not.toHaveProperty("subRunCallIds");
  });

  it("round-trips a sub-run's model call as the recorder writes it: marked, and numbered apart from the run's own", async () => {
    const { store, events } = capture();
    const recorder = new RunRecorder(store, "r", "owner", 60_000, 1, { checkpoint: () => ({ schemaVersion: 1, iteration: 1, elapsedMs: 0, phase: "tools" }), onFailure: () => {} });
    recorder.recordModelCall([new HumanMessage("hi")], new AIMessage("own"), Date.now() - 3, 0);
    recorder.recordSubRunModelCall({ subRun: ["researcher"], subRunCallIds: ["call_a"], call: 0, iteration: 2, input: [new HumanMessage("q"), new AIMessage("x")], message: new AIMessage("sub"), startedAt: Date.now() - 7 });
    recorder.recordModelCall([new HumanMessage("hi")], new AIMessage("own 2"), Date.now(), 1);
    await recorder.flush();
    const data = JSON.parse(JSON.stringify(events.map((event) => event.data)));
    expect(data.map((entry: Record<string, unknown>) => [entry["call"], entry["subRun"]])).toEqual([
      [0, undefined],
      [0, ["researcher"]],
      [1, undefined],
    ]);
    const decoder = new RunEventDecoder("r");
    const sub = decoder.decode({ ...(events[1] as StoredRunEvent), data: data[1] });
    expect(sub).toMatchObject({ type: "model_call", call: 0, iteration: 2, inputCount: 2, subRun: ["researcher"], subRunCallIds: ["call_a"] });
    expect(sub.type === "model_call" && sub.message.text).toBe("sub");
    expect(sub.type === "model_call" && sub.durationMs).toBeGreaterThanOrEqual(7);
  });
});

describe("the idempotency key of a recorded action", () => {
  const action = { tool: "charge", toolInput: { cents: 5 }, log: "", toolCallId: "call_0" };
  it("round-trips it; an action recorded without one (an older record) decodes without one", () => {
    const json = encodeRunEvent({ type: "action", iteration: 1, at: 5, action, messages: [], idempotencyKey: "r:1:call_0" }, 0);
    expect(json["idempotencyKey"]).toBe("r:1:call_0");
    expect(new RunEventDecoder("r").decode({ seq: 2, type: "action", at: 5, data: json })).toMatchObject({ type: "action", idempotencyKey: "r:1:call_0" });
    const { idempotencyKey: _key, ...old } = json;
    expect(new RunEventDecoder("r").decode({ seq: 2, type: "action", at: 5, data: old })).not.toHaveProperty("idempotencyKey");
  });

  it("records whether the call started early (eagerTools), so a replay says so as the live run did", () => {
    const early = encodeRunEvent({ type: "action", iteration: 1, at: 5, action, messages: [], early: true }, 0);
    expect(early["early"]).toBe(true);
    expect(new RunEventDecoder("r").decode({ seq: 2, type: "action", at: 5, data: early })).toMatchObject({ type: "action", early: true });
    const plain = encodeRunEvent({ type: "action", iteration: 1, at: 5, action, messages: [] }, 0);
    expect(plain).not.toHaveProperty("early");
    expect(new RunEventDecoder("r").decode({ seq: 2, type: "action", at: 5, data: plain })).not.toHaveProperty("early");
  });

  it("refuses a damaged one, naming the event", () => {
    const json = encodeRunEvent({ type: "action", iteration: 1, at: 5, action, messages: [] }, 0);
    expect(() => new RunEventDecoder("r").decode({ seq: 7, type: "action", at: 5, data: { ...json, idempotencyKey: 3 } })).toThrow(/event 7 \(action\) has an idempotencyKey that is not a non-empty string: 3/);
  });
});

describe("a value nested more than 100 levels deep", () => {
  const nested = (depth: number): unknown => {
    let value: unknown = "x";
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };

  it("is recorded up to 100 levels, the rest as a text naming its path and the limit, in values and in messages (a streamed chunk too)", () => {
    const event = encodeRunEvent({ type: "action", iteration: 0, index: 0, action: { tool: "t", toolInput: { q: nested(50_000) }, log: "" }, messages: [], at: 0 });
    const text = JSON.stringify(event);
    expect(text).toContain('"[action.toolInput.q.a.a.');
    expect(text).toContain("is nested more than 100 levels deep: left out of the run record]");
    const args = JSON.stringify({ q: nested(3000) }).replace(/"x"/, '"y"');
    const deepArgs = "[".repeat(50_000) + "]".repeat(50_000);
    for (const message of [
      new AIMessage({ content: "", tool_calls: [{ name: "t", args: { q: nested(50_000) }, id: "c1" }] }),
      new AIMessageChunk({ content: "", tool_call_chunks: [{ name: "t", args: `{"q":${deepArgs}}`, id: "c1", index: 0, type: "tool_call_chunk" }] }),
      new AIMessageChunk({ content: "", tool_call_chunks: [{ name: "t", args, id: "c1", index: 0, type: "tool_call_chunk" }] }),
    ]) {
      const stored = encodeRunEvent({ type: "message", iteration: 0, message, at: 0 });
      expect(JSON.stringify(stored)).toContain("levels deep: left out of the run record]");
      const decoded = new RunEventDecoder("r").decode({ seq: 1, type: "message", at: 0, data: JSON.parse(JSON.stringify(stored)) });
      expect(decoded.type === "message" && (decoded.message as AIMessage).tool_calls?.[0]?.name).toBe("t");
    }
  });
});
