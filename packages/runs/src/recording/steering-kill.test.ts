// Steering under SIGKILL: a message sent to a recorded run from another process (its inbox) joins
// the run exactly once and in inbox order, whichever moment the process running it dies at; the
// model call a message asks for starts only once the message is in the record (write-ahead).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentExecutor, type RunStore, runInboxId } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { expect, it } from "vitest";
import { type ChildArgs, type KillSetup, describeKillTests, effects, fileWritten, modelCalls, run, start } from "./durable-kill-harness";

const id = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

/** The run's `message` events: their text, inbox position and iteration, in record order. */
async function messageEvents(store: RunStore, runId: string): Promise<{ text: unknown; inboxSeq: unknown; iteration: unknown }[]> {
  return (await store.readEvents(runId))
    .filter((event) => event.type === "message")
    .map(({ data }) => ({ text: (data["message"] as { data: { content: unknown } }).data.content, inboxSeq: data["inboxSeq"], iteration: data["iteration"] }));
}

/** The run's inbox: each message's position and text. */
async function inbox(store: RunStore, runId: string): Promise<{ inboxSeq: number; text: unknown }[]> {
  return (await store.readThreadMessages(runInboxId(runId))).map((row) => ({ inboxSeq: row.seq, text: (row.message as { data: { content: unknown } }).data.content }));
}

/**
 * Every message of the inbox is in the record once, with its position, in inbox order; the run's
 * last model call was sent each of them once, in that order.
 */
async function joinedOnceInOrder(store: RunStore, runId: string, lastCall: { told: string[] } | undefined, texts: string[]): Promise<void> {
  const sent = await inbox(store, runId);
  expect(sent.map((message) => message.text)).toEqual(texts);
  expect((await messageEvents(store, runId)).map(({ text, inboxSeq }) => ({ text, inboxSeq }))).toEqual(sent);
  expect(lastCall?.told).toEqual(texts);
}

/** The jobs whose tool call the child labelled `label` started. */
const started = (dir: string, label: string) => effects(dir, label).filter((line) => line.startsWith("start ")).map((line) => line.split(" ")[1]);

/** An executor of this process, only to send from. */
function sender(store: RunStore): AgentExecutor {
  return new AgentExecutor({ agent: RunnableLambda.from(() => ({ returnValues: { output: "" }, log: "" })), tools: [], store });
}

function killedAtTheModelCall(setup: () => KillSetup): void {
  it("killed at the model call a message asked for: the message was recorded before it; it joins once, and one sent while the run was dead joins at the resume", async () => {
    const { store, target, dir } = setup();
    const runId = id("steer-model");
    const base: Omit<ChildArgs, "mode" | "label"> = { store: target, runId, dir };
    const a = `${runId}-a`;
    const running = start({ ...base, mode: "run", label: a, blocks: ["tool-wait:j0", "model-with-message"] });
    try {
      await running.reached("tool-wait:j0");
      expect(await sender(store).send(runId, "Also check Rome.")).toEqual({ runId, inboxSeq: 1, status: "running" });
      running.release();
      expect(await running.reached("model-with-message")).toEqual({ model: 1, results: ["j0 ok"], told: ["Also check Rome."] });
      // Write-ahead: the model call was made only once the message that asked for it was in the store.
      expect(await messageEvents(store, runId)).toEqual([{ text: "Also check Rome.", inboxSeq: 1, iteration: 1 }]);
    } finally {
      await running.kill();
    }
    expect(await sender(store).send(runId, "And Oslo.")).toMatchObject({ runId, inboxSeq: 2 });

    const b = `${runId}-b`;
    expect(await run({ ...base, mode: "resume", label: b })).toMatchObject({ output: "j0 ok, j1 ok; told: Also check Rome. | And Oslo.", stopReason: "finish" });
    await joinedOnceInOrder(store, runId, modelCalls(dir, b).at(-1), ["Also check Rome.", "And Oslo."]);
    expect(modelCalls(dir, b)).toEqual([
      { results: ["j0 ok"], told: ["Also check Rome.", "And Oslo."] },
      { results: ["j0 ok", "j1 ok"], told: ["Also check Rome.", "And Oslo."] },
    ]);
    expect([started(dir, a), started(dir, b)]).toEqual([["j0"], ["j1"]]);
    expect((await store.getRun(runId))?.status).toBe("finished");
  }, 60_000);
}

function killedAsTheInboxIsRead(setup: () => KillSetup): void {
  it("killed as the run reads its inbox, the message not taken yet: it joins at the resume, once, before the next model call", async () => {
    const { store, target, dir } = setup();
    const runId = id("steer-read");
    const base: Omit<ChildArgs, "mode" | "label"> = { store: target, runId, dir };
    const a = `${runId}-a`;
    const running = start({ ...base, mode: "run", label: a, blocks: ["tool-wait:j0", "inbox-read"] });
    try {
      await running.reached("tool-wait:j0");
      expect(await sender(store).send(runId, "Also check Rome.")).toEqual({ runId, inboxSeq: 1, status: "running" });
      running.release();
      await running.reached("inbox-read");
      expect(await messageEvents(store, runId)).toEqual([]);
      expect((await store.readEvents(runId)).filter((event) => event.type === "step")).toHaveLength(1);
    } finally {
      await running.kill();
    }
    expect(await sender(store).send(runId, "And Oslo.")).toMatchObject({ runId, inboxSeq: 2 });

    const b = `${runId}-b`;
    expect(await run({ ...base, mode: "resume", label: b })).toMatchObject({ output: "j0 ok, j1 ok; told: Also check Rome. | And Oslo.", stopReason: "finish" });
    await joinedOnceInOrder(store, runId, modelCalls(dir, b).at(-1), ["Also check Rome.", "And Oslo."]);
    expect(modelCalls(dir, a)).toEqual([{ results: [], told: [] }]);
    expect(modelCalls(dir, b)[0]).toEqual({ results: ["j0 ok"], told: ["Also check Rome.", "And Oslo."] });
    expect([started(dir, a), started(dir, b)]).toEqual([["j0"], ["j1"]]);
  }, 60_000);
}

function twoSendersAtOnce(setup: () => KillSetup): void {
  it("two processes that send at once: both messages join, once each, in inbox order", async () => {
    const { store, target, dir } = setup();
    const runId = id("steer-two");
    const base: Omit<ChildArgs, "mode" | "label"> = { store: target, runId, dir };
    const a = `${runId}-a`;
    const running = start({ ...base, mode: "run", label: a, blocks: ["tool-wait:j0"] });
    try {
      await running.reached("tool-wait:j0");
      const go = `${runId}.go`;
      const senders = ["one", "two"].map((who) => ({ label: `${runId}-${who}`, child: start({ ...base, mode: "send", label: `${runId}-${who}`, message: `From ${who}.`, go }) }));
      await Promise.all(senders.map(({ label }) => fileWritten(join(dir, `${label}.ready`))));
      writeFileSync(join(dir, go), ""); // both are ready: they send at once
      const results = await Promise.all(senders.map(({ child }) => child.result()));
      expect(results.map((result) => result["status"])).toEqual(["running", "running"]);
      expect(results.map((result) => result["inboxSeq"]).sort()).toEqual([1, 2]);
      // The inbox holds each sender's message at the position its send resolved with.
      const sent = results.map((result, i) => ({ inboxSeq: result["inboxSeq"] as number, text: `From ${["one", "two"][i]}.` }));
      expect(await inbox(store, runId)).toEqual(sent.sort((x, y) => x.inboxSeq - y.inboxSeq));
      const texts = sent.map((message) => message.text);
      running.release();
      expect(await running.result()).toMatchObject({ output: `j0 ok, j1 ok; told: ${texts.join(" | ")}`, stopReason: "finish" });
      await joinedOnceInOrder(store, runId, modelCalls(dir, a).at(-1), texts);
    } finally {
      await running.kill();
    }
  }, 60_000);
}

function inDoubtWithAMessagePending(setup: () => KillSetup): void {
  it('killed during a tool with a message pending: inDoubt "interrupt" pauses (in_doubt); the supplied result and the messages join once, in order', async () => {
    const { store, target, dir } = setup();
    const runId = id("steer-doubt");
    const base: Omit<ChildArgs, "mode" | "label"> = { store: target, runId, dir };
    const a = `${runId}-a`;
    const running = start({ ...base, mode: "run", label: a, blocks: ["tool-wait:j0"] });
    try {
      await running.reached("tool-wait:j0");
      expect(await sender(store).send(runId, "Also check Rome.")).toEqual({ runId, inboxSeq: 1, status: "running" });
    } finally {
      await running.kill(); // the tool is in flight, the message waits in the inbox
    }

    const b = `${runId}-b`;
    const paused = await run({ ...base, mode: "resume", label: b, inDoubt: "interrupt" });
    expect(paused).toMatchObject({ stopReason: "interrupted", interrupts: [{ reason: "in_doubt", tool: "work", toolInput: { job: "j0" } }] });
    expect(modelCalls(dir, b)).toEqual([]);
    expect(started(dir, b)).toEqual([]);
    expect(await sender(store).send(runId, "And Oslo.")).toEqual({ runId, inboxSeq: 2, status: "interrupted" });

    const c = `${runId}-c`;
    const interruptId = (paused["interrupts"] as { id: string }[])[0]?.id as string;
    const done = await run({ ...base, mode: "resume", label: c, decisions: { [interruptId]: { type: "result", observation: "j0 checked by hand" } } });
    expect(done).toMatchObject({ output: "j0 checked by hand, j1 ok; told: Also check Rome. | And Oslo.", stopReason: "finish" });
    await joinedOnceInOrder(store, runId, modelCalls(dir, c).at(-1), ["Also check Rome.", "And Oslo."]);
    expect([started(dir, a), started(dir, b), started(dir, c)]).toEqual([["j0"], [], ["j1"]]);
  }, 60_000);
}

await describeKillTests("steering a run whose process is killed", {
  sqlite: [killedAtTheModelCall, killedAsTheInboxIsRead, twoSendersAtOnce, inDoubtWithAMessagePending],
  postgres: [killedAtTheModelCall, killedAsTheInboxIsRead],
});
