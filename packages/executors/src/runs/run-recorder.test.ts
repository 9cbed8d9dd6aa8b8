import type { ToolAgentAction } from "@agentrx/core";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it, vi } from "vitest";
import type { AgentStreamEvent } from "../executor/events";
import { RunRecorder } from "./run-recorder";
import type { JsonObject, RunStore, RunWrite } from "./run-store";
import { RunLeaseLostError, RunStoreError } from "./run-store-errors";

/** A recorder over a store whose first write fails with `error`, and keeps the writes that come after. */
function recorderFailingOnce(error: unknown): { recorder: RunRecorder; writes: RunWrite[]; failures: unknown[] } {
  const writes: RunWrite[] = [];
  const failures: unknown[] = [];
  let failed = false;
  const store = {
    write: async (_runId: string, write: RunWrite) => {
      if (!failed) {
        failed = true;
        throw error;
      }
      writes.push(write);
    },
  } as unknown as RunStore;
  const recorder = new RunRecorder(store, "run-1", "owner-1", 30_000, 0, { checkpoint: () => ({ schemaVersion: 1, iteration: 1, elapsedMs: 0, phase: "tools" }), onFailure: (failure) => void failures.push(failure) });
  recorder.epoch = 3;
  return { recorder, writes, failures };
}

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
  it("after a write the store failed, writes the run's end (failed, lease released, no events) when the store answers again, and still rejects with the failure", async () => {
    const lost = new RunStoreError({ operation: "write", runId: "run-1", message: "lost the connection" });
    const { recorder, writes, failures } = recorderFailingOnce(lost);
    recorder.recordIntent({ type: "note" }).catch(() => undefined);
    await expect(recorder.flush()).rejects.toBe(lost);
    expect(failures).toEqual([lost]);
    await expect(recorder.flush({ status: "failed", error: "lost the connection", release: true })).rejects.toBe(lost);
    expect(writes).toEqual([{ owner: "owner-1", leaseMs: 30_000, epoch: 3, events: [], update: { status: "failed", error: "lost the connection", release: true }, at: expect.any(Number) }]);
    // Only once, and nothing else after the failure.
    await expect(recorder.flush({ status: "failed", error: "again", release: true })).rejects.toBe(lost);
    await expect(recorder.flush()).rejects.toBe(lost);
    expect(writes).toHaveLength(1);
  });

  it("tries the run's end again in the background while the store still fails, until it lands", async () => {
    const lost = new RunStoreError({ operation: "write", runId: "run-1", message: "lost the connection" });
    const writes: RunWrite[] = [];
    let failing = 3; // the run's write, then the end write twice
    const store = {
      write: async (_runId: string, write: RunWrite) => {
        if (failing-- > 0) throw lost;
        writes.push(write);
      },
    } as unknown as RunStore;
    const recorder = new RunRecorder(store, "run-1", "owner-1", 30_000, Date.now(), { checkpoint: () => ({ schemaVersion: 1, iteration: 1, elapsedMs: 0, phase: "tools" }), onFailure: () => undefined });
    recorder.recordIntent({ type: "note" }).catch(() => undefined);
    await expect(recorder.flush()).rejects.toBe(lost);
    // The first try of the end write fails too: the run's error is not held back by the tries after it.
    await expect(recorder.flush({ status: "failed", error: "lost the connection", release: true })).rejects.toBe(lost);
    expect(writes).toEqual([]);
    await vi.waitFor(() => expect(writes).toHaveLength(1), { timeout: 2000, interval: 20 });
    expect(writes[0]).toMatchObject({ owner: "owner-1", events: [], update: { status: "failed", error: "lost the connection", release: true } });
  });

  it("writes nothing after a lost lease or a store that timed out", async () => {
    for (const error of [new RunLeaseLostError({ runId: "run-1", owner: "owner-1" }), new RunStoreError({ operation: "write", runId: "run-1", reason: "timeout", message: "slow" })]) {
      const { recorder, writes } = recorderFailingOnce(error);
      recorder.recordIntent({ type: "note" }).catch(() => undefined);
      await expect(recorder.flush()).rejects.toBe(error);
      await expect(recorder.flush({ status: "failed", error: "x", release: true })).rejects.toBe(error);
      expect(writes).toEqual([]);
    }
  });

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
