import type { ToolAgentAction } from "@agentrx/core";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { AgentStreamEvent } from "../executor/events";
import { RunRecorder } from "./run-recorder";
import type { JsonObject, RunStore, RunWrite } from "./run-store";

/** A recorder over a store that keeps what is written. */
function recorderWithWrites(): { recorder: RunRecorder; writes: RunWrite[] } {
  const writes: RunWrite[] = [];
  const store = { write: async (_runId: string, write: RunWrite) => void writes.push(write) } as unknown as RunStore;
  const recorder = new RunRecorder(store, "run-1", "owner-1", 30_000, 0, { checkpoint: () => ({ schemaVersion: 1, iteration: 1, elapsedMs: 0, phase: "tools" }), onFailure: () => undefined });
  return { recorder, writes };
}

function reply(): AIMessage {
  return new AIMessage({ content: "", id: "reply-1", tool_calls: [{ name: "search", args: { q: "Paris" }, id: "call-1", type: "tool_call" }] });
}

function actionOf(message: AIMessage): AgentStreamEvent {
  const action: ToolAgentAction = { tool: "search", toolInput: { q: "Paris" }, toolCallId: "call-1", log: "", messageLog: [message] };
  return { type: "action", iteration: 0, at: Date.now(), action, messages: [message] };
}

const dataOf = (write: RunWrite, type: string) => write.events.find((event) => event.type === type)!.data;

describe("RunRecorder", () => {
  it("serialises a model reply once: its actions' message log reuses the stored form its model_call entry has", async () => {
    const { recorder, writes } = recorderWithWrites();
    const message = reply();
    recorder.recordModelCall([new HumanMessage("weather?")], message, Date.now(), 0);
    recorder.record(actionOf(message), 0);
    await recorder.flush();
    const stored = dataOf(writes[0]!, "model_call")["message"];
    const logged = ((dataOf(writes[0]!, "action")["action"] as JsonObject)["messageLog"] as unknown[])[0];
    expect(logged).toBe(stored);
    expect(JSON.parse(JSON.stringify(logged))).toEqual(JSON.parse(JSON.stringify(message.toDict())));
  });

  it("serialises the reply again when one of its fields was replaced after the call, or for another message", async () => {
    const { recorder, writes } = recorderWithWrites();
    const message = reply();
    recorder.recordModelCall([new HumanMessage("weather?")], message, Date.now(), 0);
    message.content = "changed after the call";
    const other = reply();
    recorder.record(actionOf(message), 0);
    recorder.record(actionOf(other), 1);
    await recorder.flush();
    const actions = writes[0]!.events.filter((event) => event.type === "action");
    const logged = ((actions[0]!.data["action"] as JsonObject)["messageLog"] as JsonObject[])[0]!;
    expect((dataOf(writes[0]!, "model_call")["message"] as JsonObject)["data"]).toMatchObject({ content: "" });
    expect(logged["data"]).toMatchObject({ content: "changed after the call" });
    const otherLogged = ((actions[1]!.data["action"] as JsonObject)["messageLog"] as JsonObject[])[0]!;
    expect(otherLogged).not.toBe(dataOf(writes[0]!, "model_call")["message"]);
    expect(otherLogged).toEqual(JSON.parse(JSON.stringify(other.toDict())));
  });

  it("keeps the reply's stored form only until the next write (a run waiting on its model holds none)", async () => {
    const { recorder, writes } = recorderWithWrites();
    const message = reply();
    recorder.recordModelCall([new HumanMessage("weather?")], message, Date.now(), 0);
    await recorder.flush();
    recorder.record(actionOf(message), 0);
    await recorder.flush();
    const logged = ((dataOf(writes[1]!, "action")["action"] as JsonObject)["messageLog"] as unknown[])[0];
    expect(logged).not.toBe(dataOf(writes[0]!, "model_call")["message"]);
    expect(logged).toEqual(dataOf(writes[0]!, "model_call")["message"]);
  });
});
