import { InvalidArgumentError } from "@agentrx/core";
import { AgentExecutor, type AgentExecutorResult, type SendMessageResult, SteeringInboxFullError, guardrail, sendRunMessage } from "@agentrx/executors";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { act, finish, scriptedAgent } from "../executor/test-helpers";
import { RunSteering } from "./run-steering";

/** A `wait` tool whose call runs `during` (a send, while the run goes on) before it returns. */
function waitTool(during: () => Promise<unknown>) {
  return tool(async () => (await during(), "waited"), { name: "wait", description: "Waits.", schema: z.object({}) });
}

const noSecrets = guardrail({ name: "no-secrets", on: "input", check: ({ text }) => text.includes("SECRET") && "a secret" });

describe("guardrail({ on: 'input' }) and messages sent to a run", () => {
  it("checks a sent message as the run's input, before the model sees it: a trip ends the run with stopReason guardrail", async () => {
    const { agent, inputs } = scriptedAgent([act("wait"), finish("never")]);
    const seen: { text: string; sent?: boolean }[] = [];
    const watched = guardrail({ name: "no-secrets", on: "input", check: ({ text, sent }) => (seen.push(sent === undefined ? { text } : { text, sent }), text.includes("SECRET") && "a secret") });
    const executor: AgentExecutor = new AgentExecutor({ agent, tools: [waitTool(() => executor.send("sent-secret", "the SECRET is 42"))], middleware: [watched] });
    const result = await executor.invoke({ input: "go" }, { runId: "sent-secret" });
    expect(result).toMatchObject({ stopReason: "guardrail", output: 'Agent stopped: guardrail "no-secrets" tripped on a message sent to the run: a secret.' });
    expect(result.stoppedBy).toMatchObject({ middleware: "no-secrets", guardrail: "no-secrets", on: "input", reason: "a secret" });
    expect(seen).toEqual([{ text: "go" }, { text: "the SECRET is 42", sent: true }]);
    expect(inputs).toHaveLength(1); // the model never saw the message
  });

  it("lets a message that passes join, checking each message once", async () => {
    const { agent, inputs } = scriptedAgent([act("wait"), act("wait"), finish("done")]);
    const seen: string[] = [];
    const watched = guardrail({ on: "input", check: ({ text }) => (seen.push(text), false) });
    let sends = 0;
    const executor: AgentExecutor = new AgentExecutor({ agent, tools: [waitTool(() => executor.send("sent-fine", `note ${++sends}`))], middleware: [watched] });
    const result = await executor.invoke({ input: "go" }, { runId: "sent-fine" });
    expect(result).toMatchObject({ output: "done", stopReason: "finish" });
    expect(seen).toEqual(["go", "note 1", "note 2"]);
    expect(inputs).toHaveLength(3);
  });

  it("checks a message sent to a paused run when it joins on resume (recorded in a store)", async () => {
    const store = new InProcessRunStore();
    const { agent } = scriptedAgent([act("wait"), finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [waitTool(async () => undefined)], store, middleware: [noSecrets], needsApproval: () => true });
    await executor.invoke({ input: "go" }, { runId: "paused-secret" });
    await executor.send("paused-secret", new HumanMessage("a SECRET for you"));
    const result: AgentExecutorResult = await executor.resume("paused-secret", { decisions: { "call-0-0": "approve" } });
    expect(result.stopReason).toBe("guardrail");
    const recorded = (await store.readEvents("paused-secret")).map((event) => event.data);
    expect(recorded.at(-1)).toMatchObject({ type: "output", stopReason: "guardrail", stoppedBy: { guardrail: "no-secrets", on: "input" } });
  });
});

describe("limits on messages sent to a run", () => {
  it("refuses a message longer than maxMessageChars (default 100,000), naming the limit", async () => {
    const steering = RunSteering.open("long-message", undefined, 0, 1000);
    try {
      await expect(sendRunMessage("long-message", "x".repeat(100_001), { store: undefined, operation: "send" })).rejects.toThrow(
        "send: the message has 100001 characters of text; at most 100000 are accepted (`maxMessageChars`).",
      );
      await expect(sendRunMessage("long-message", "x".repeat(11), { store: undefined, operation: "send", maxMessageChars: 10 })).rejects.toSatisfy(InvalidArgumentError.isInstance);
      await expect(sendRunMessage("long-message", new HumanMessage({ content: [{ type: "text", text: "x".repeat(6) }, { type: "text", text: "y".repeat(6) }] }), { store: undefined, operation: "send", maxMessageChars: 10 })).rejects.toThrow(/12 characters of text; at most 10/);
      await expect(sendRunMessage("long-message", "x".repeat(10), { store: undefined, operation: "send", maxMessageChars: 10 })).resolves.toMatchObject({ status: "running" });
    } finally {
      steering.close();
    }
  });

  it("refuses a message when maxPendingMessages (default 100) wait for the run, without a store", async () => {
    const steering = RunSteering.open("full-queue", undefined, 0, 1000);
    try {
      for (let i = 0; i < 100; i++) await sendRunMessage("full-queue", `m${i}`, { store: undefined, operation: "send" });
      await expect(sendRunMessage("full-queue", "one more", { store: undefined, operation: "send" })).rejects.toThrow(
        'send: run "full-queue" has 100 messages sent to it waiting to join; at most 100 may wait (`maxPendingMessages`). Send again once it has taken some.',
      );
      const taken = (await steering.take()) ?? [];
      steering.taken(taken.slice(0, 1));
      await expect(sendRunMessage("full-queue", "now it fits", { store: undefined, operation: "send" })).resolves.toMatchObject({ status: "running" });
    } finally {
      steering.close();
    }
  });

  it("counts only the messages the run has not taken, through a store", async () => {
    const store = new InProcessRunStore();
    const { agent } = scriptedAgent([act("wait"), act("wait"), finish("done")]);
    const outcomes: unknown[] = [];
    const attempt = (text: string) => executor.send("store-queue", text, { maxPendingMessages: 2 }).then((sent) => sent.inboxSeq, (error: unknown) => String(error));
    let calls = 0;
    const executor: AgentExecutor = new AgentExecutor({
      agent,
      tools: [waitTool(async () => outcomes.push(...(++calls === 1 ? [await attempt("a"), await attempt("b"), await attempt("c")] : [await attempt("d")])))],
      store,
    });
    await executor.invoke({ input: "go" }, { runId: "store-queue" });
    // "a" and "b" joined before the second agent call: "d" fits again.
    expect(outcomes).toEqual([1, 2, expect.stringMatching(/run "store-queue" has 2 messages sent to it waiting to join; at most 2 may wait/), 3]);
    // A sender with only the store (another process) counts from the run's record.
    const paused = new AgentExecutor({ agent: scriptedAgent([act("wait"), finish("x")]).agent, tools: [waitTool(async () => undefined)], store, needsApproval: () => true });
    await paused.invoke({ input: "go" }, { runId: "store-queue-2" });
    await sendRunMessage("store-queue-2", "a", { store, operation: "send", maxPendingMessages: 1 });
    await expect(sendRunMessage("store-queue-2", "b", { store, operation: "send", maxPendingMessages: 1 })).rejects.toThrow(/at most 1 may wait/);
  });

  it("refuses a store that is not a RunStore, which counted no message waiting", async () => {
    const store = new InProcessRunStore();
    const outcomes: unknown[] = [];
    const attempt = (text: string, with_: unknown) =>
      sendRunMessage("own-inbox", text, { store: with_ as InProcessRunStore, operation: "send", maxPendingMessages: 2 }).then((sent) => sent.inboxSeq, (error: unknown) => (error as Error).message);
    const { agent } = scriptedAgent([act("wait"), finish("done")]);
    const executor = new AgentExecutor({
      agent,
      tools: [waitTool(async () => outcomes.push(await attempt("a", store), await attempt("b", store), await attempt("c", store), await attempt("d", {}), await attempt("e", "runs.db")))],
      store,
    });
    await executor.invoke({ input: "go" }, { runId: "own-inbox" });
    expect(outcomes).toEqual([
      1,
      2,
      expect.stringMatching(/has 2 messages sent to it waiting to join; at most 2 may wait/),
      "send: `options.store` must be a RunStore (e.g. new SqliteRunStore() from @agentrx/runs); it has no createRun, claimRun, write, getRun, readEvents method.",
      "send: `options.store` must be a RunStore (e.g. new SqliteRunStore() from @agentrx/runs); it is string.",
    ]);
  });

  it("refuses a full inbox with SteeringInboxFullError (a condition of the run, not a bad message), naming the run and the limit", async () => {
    const steering = RunSteering.open("full-inbox-error", undefined, 0, 1000);
    try {
      await sendRunMessage("full-inbox-error", "first", { store: undefined, operation: "send", maxPendingMessages: 1 });
      const refused = await sendRunMessage("full-inbox-error", "second", { store: undefined, operation: "send", maxPendingMessages: 1 }).catch((error: unknown) => error);
      expect(SteeringInboxFullError.isInstance(refused)).toBe(true);
      expect(InvalidArgumentError.isInstance(refused)).toBe(false);
      expect(refused).toMatchObject({ name: "SteeringInboxFullError", runId: "full-inbox-error", limit: 1 });
      // A message too long is still bad input.
      const long = await sendRunMessage("full-inbox-error", "xx", { store: undefined, operation: "send", maxMessageChars: 1 }).catch((error: unknown) => error);
      expect(InvalidArgumentError.isInstance(long)).toBe(true);
      expect(SteeringInboxFullError.isInstance(long)).toBe(false);
    } finally {
      steering.close();
    }
  });

  it("never lets racing senders past maxPendingMessages: concurrent sends to a run recorded in a store", async () => {
    const store = new InProcessRunStore();
    const { agent } = scriptedAgent([act("wait"), finish("done")]);
    let outcomes: (SendMessageResult | unknown)[] = [];
    const burst = () => Promise.all(Array.from({ length: 10 }, (_, i) => executor.send("racing", `m${i}`, { maxPendingMessages: 3 }).catch((error: unknown) => error)));
    const executor: AgentExecutor = new AgentExecutor({ agent, tools: [waitTool(async () => (outcomes = await burst()))], store });
    await executor.invoke({ input: "go" }, { runId: "racing" });
    const accepted = outcomes.filter((outcome) => !(outcome instanceof Error));
    const refused = outcomes.filter((outcome) => outcome instanceof Error);
    expect({ accepted: accepted.length, refused: refused.length }).toEqual({ accepted: 3, refused: 7 });
    expect(refused.every((error) => SteeringInboxFullError.isInstance(error))).toBe(true);
    // The run took exactly the accepted messages.
    const taken = (await store.readEvents("racing")).filter((event) => event.type === "message");
    expect(taken.map((event) => event.data["inboxSeq"])).toEqual((accepted as SendMessageResult[]).map((sent) => sent.inboxSeq));
  });

  it("counts a refused or failed send's reserved slot free again", async () => {
    const store = new InProcessRunStore();
    const paused = new AgentExecutor({ agent: scriptedAgent([act("wait"), finish("x")]).agent, tools: [waitTool(async () => undefined)], store, needsApproval: () => true });
    await paused.invoke({ input: "go" }, { runId: "reserve-release" });
    const append = store.appendRunMessage.bind(store);
    let failNext = true;
    store.appendRunMessage = (runId, message) => (failNext ? ((failNext = false), Promise.reject(new Error("disk full"))) : append(runId, message));
    await expect(sendRunMessage("reserve-release", "lost", { store, operation: "send", maxPendingMessages: 1 })).rejects.toThrow("disk full");
    await expect(sendRunMessage("reserve-release", "kept", { store, operation: "send", maxPendingMessages: 1 })).resolves.toMatchObject({ inboxSeq: 1 });
    await expect(sendRunMessage("reserve-release", "one more", { store, operation: "send", maxPendingMessages: 1 })).rejects.toSatisfy(SteeringInboxFullError.isInstance);
  });

  it("takes the limits as send options, and refuses bad ones", async () => {
    const executor = new AgentExecutor({ agent: scriptedAgent([finish("done")]).agent, tools: [] });
    await expect(executor.send("nowhere", "hi", { maxMessageChars: 0 })).rejects.toThrow(/`maxMessageChars` must be a positive integer/);
    await expect(executor.send("nowhere", "hi", { maxPendingMessages: 1.5 })).rejects.toThrow(/`maxPendingMessages` must be a positive integer/);
  });
});
