import { AbortError } from "@agentrx/core";
import type { AgentStreamEvent, RunStore } from "@agentrx/executors";
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { initialRunState, transition } from "../executor/run-state";
import { encodeMessages } from "../runs/json-value";
import { type JoinMessagesContext, joinMessages } from "./join-messages";
import { RunSteering } from "./run-steering";

/** A run at a turn boundary whose waits end as `wait` says (a halt rejects them). */
function runAt(steering: RunSteering, wait: JoinMessagesContext["wait"], interrupted: () => boolean) {
  const state = initialRunState(steering.runId, undefined, { input: "x" });
  const events: AgentStreamEvent[] = [];
  const run: JoinMessagesContext = {
    state,
    steering,
    get interrupted() {
      return interrupted();
    },
    dispatch: (event) => transition(state, event),
    emit: (event) => void events.push(event),
    wait,
    schedule: () => undefined,
    durable: () => true,
  };
  return { run, events };
}

const halted = () => Promise.reject(new AbortError({ message: "The run was stopped (max_execution_time)." }));

describe("joinMessages when the run is halted while it reads what was sent", () => {
  it("resolves (the run then stops gracefully) and keeps the messages waiting for the run's end (no store)", async () => {
    const steering = RunSteering.open("join-halted-1", undefined, 0, 1000);
    try {
      steering.push(new HumanMessage("Also Rome."));
      const { run, events } = runAt(steering, halted, () => true);
      expect(await joinMessages(run)).toBe(0);
      expect(events).toEqual([]);
      // As the run ends: the message is still there, so it joins (as unanswered) before the output.
      expect(await steering.closeInbox()).toBe(false);
      const ending = runAt(steering, (promise) => promise, () => true);
      expect(await joinMessages(ending.run, { unanswered: true, halts: false })).toBe(1);
      expect(ending.events).toMatchObject([{ type: "message", unanswered: true }]);
      expect(await steering.closeInbox()).toBe(true);
    } finally {
      steering.close();
    }
  });

  it("does not move past the inbox position of messages it read but did not take (with a store)", async () => {
    const rows = [{ seq: 1, message: encodeMessages([new HumanMessage("Also Rome.")])[0], tokens: 0, at: 0 }];
    const store = {
      appendThreadMessages: async () => [1],
      readThreadMessages: async (_threadId: string, options?: { after?: number }) => rows.filter((row) => row.seq > (options?.after ?? 0)),
    } as unknown as RunStore;
    const closedAfter: number[] = [];
    const steering = RunSteering.open("join-halted-2", store, 0, 1000, async (after) => {
      closedAfter.push(after);
      return { inboxSeq: 1, inboxClosed: after >= 1 } as never;
    });
    try {
      const { run } = runAt(steering, halted, () => true);
      expect(await joinMessages(run)).toBe(0);
      // The close as the run ends finds message 1 waiting; it joins, and the next close succeeds.
      expect(await steering.closeInbox()).toBe(false);
      const ending = runAt(steering, (promise) => promise, () => true);
      expect(await joinMessages(ending.run, { unanswered: true, halts: false })).toBe(1);
      expect(ending.events).toMatchObject([{ type: "message", inboxSeq: 1, unanswered: true }]);
      expect(await steering.closeInbox()).toBe(true);
      expect(closedAfter).toEqual([0, 1]);
    } finally {
      steering.close();
    }
  });

  it("still fails the run when reading the inbox fails and the run was not halted", async () => {
    const steering = RunSteering.open("join-failed", undefined, 0, 1000);
    try {
      steering.push(new HumanMessage("hi"));
      const { run } = runAt(steering, () => Promise.reject(new Error("store down")), () => false);
      await expect(joinMessages(run)).rejects.toThrow("store down");
    } finally {
      steering.close();
    }
  });
});
