import { type AgentStep, isMessageStep } from "@agentrx/core";
import { AgentExecutor, type AgentStreamEvent, RunFinishedError, RunNotFoundError, restoreRunState } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { ThreadMemory } from "../thread-memory/index";
import { replayRun } from "../replay/replay-run";
import { lastValueFrom, toArray } from "rxjs";

/** An agent that searches once, then answers with the messages it was sent; a gate holds the tool. */
function steeredFixture() {
  let open: () => void = () => undefined;
  let started: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const toolStarted = new Promise<void>((resolve) => (started = resolve));
  const seen: AgentStep[][] = [];
  const search = tool(
    async () => {
      started();
      await gate;
      return "sunny";
    },
    { name: "search", description: "Searches.", schema: z.object({}) },
  );
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
    seen.push(input.steps);
    if (input.steps.filter((step) => !isMessageStep(step)).length === 0) return { tool: "search", toolInput: {}, log: "", toolCallId: `c${seen.length}` };
    const sent = input.steps.filter(isMessageStep).map((step) => step.observation);
    return { returnValues: { output: `answer after: ${sent.join(" / ") || "nothing"}` }, log: "" };
  });
  return { agent, tools: [search], seen, open, toolStarted };
}

describe("executor.send through a store", () => {
  it("records the message at once, joins it at the next turn boundary, and replay and restore see it", async () => {
    const store = new MemoryRunStore();
    const { agent, tools, open, toolStarted } = steeredFixture();
    const executor = new AgentExecutor({ agent, tools, store });
    const running = executor.invoke({ input: "weather" }, { runId: "s1" });
    const result = lastValueFrom(running);
    await toolStarted;
    const sent = await executor.send("s1", "Also check Rome.");
    expect(sent).toEqual({ runId: "s1", inboxSeq: 1, status: "running" });
    open();
    expect((await result).output).toBe("answer after: Also check Rome.");
    const events = await lastValueFrom(replayRun(store, "s1").pipe(toArray()));
    const types = events.map((event: AgentStreamEvent) => event.type).filter((type) => type !== "usage");
    expect(types).toEqual(["start", "action", "step", "message", "output"]);
    expect(events.find((event) => event.type === "message")).toMatchObject({ iteration: 1, inboxSeq: 1 });
    const restored = restoreRunState((await store.getRun("s1"))!, await store.readEvents("s1"));
    expect(restored.state.steps.map((step) => step.action.tool)).toEqual(["search", "_Message"]);
  });

  it("refuses a message for a finished run, and for a run the store does not have", async () => {
    const store = new MemoryRunStore();
    const agent = RunnableLambda.from(() => ({ returnValues: { output: "done" }, log: "" }));
    const executor = new AgentExecutor({ agent, tools: [], store });
    await executor.invoke({ input: "x" }, { runId: "f1" });
    const error = await executor.send("f1", "too late").then(() => undefined, (e: unknown) => e);
    expect(RunFinishedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/Run "f1" finished \(finish\) before the message arrived/);
    const missing = await executor.send("nope", "hi").then(() => undefined, (e: unknown) => e);
    expect(RunNotFoundError.isInstance(missing)).toBe(true);
  });

  it("a message sent to a cancelled run joins when it is resumed, once, and never again after", async () => {
    const store = new MemoryRunStore();
    const first = steeredFixture();
    const executor = new AgentExecutor({ agent: first.agent, tools: first.tools, store });
    const subscription = executor.stream({ input: "weather" }, { runId: "c1" }).subscribe({ error: () => undefined });
    await first.toolStarted;
    subscription.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 10)); // the cancellation's write
    expect((await store.getRun("c1"))?.status).toBe("cancelled");
    expect(await executor.send("c1", "Rome too.")).toMatchObject({ inboxSeq: 1, status: "cancelled" });
    const again = steeredFixture();
    again.open();
    const resumed = new AgentExecutor({ agent: again.agent, tools: again.tools, store });
    expect((await resumed.resume("c1")).output).toBe("answer after: Rome too.");
    // The agent saw the message once, after the search step; the record has one message event.
    expect(again.seen.at(-1)?.map((step) => step.action.tool)).toEqual(["search", "_Message"]);
    const recorded = await store.readEvents("c1");
    expect(recorded.filter((event) => event.type === "message")).toHaveLength(1);
    await expect(resumed.send("c1", "late")).rejects.toThrow(/finished/);
  });

  it("the thread's memory keeps the message, where the user said it", async () => {
    const store = new MemoryRunStore();
    const { agent, tools, open, toolStarted } = steeredFixture();
    const memory = new ThreadMemory({ store, maxTokens: 10_000 });
    const executor = new AgentExecutor({ agent, tools, store, memory: { memory } });
    const result = lastValueFrom(executor.invoke({ input: "weather" }, { runId: "m1", threadId: "chat" }));
    await toolStarted;
    await executor.send("m1", "Also check Rome.");
    open();
    await result;
    const kept = await memory.getMessages("chat");
    expect(kept.map((message) => `${message.getType()}:${message.text}`).filter((line) => line.startsWith("human"))).toEqual(["human:weather", "human:Also check Rome."]);
  });

  it("calls the agent a message joins for only once the message is in the store (write-ahead)", async () => {
    const store = new MemoryRunStore();
    const { agent, tools, open, toolStarted } = steeredFixture();
    const recordedAtCall: string[][] = [];
    const watched = RunnableLambda.from(async (input: { steps: AgentStep[] }) => {
      const events = await store.readEvents("write-ahead");
      recordedAtCall.push(events.filter((event) => event.type === "message").map((event) => String(event.data["inboxSeq"])));
      return agent.invoke(input);
    });
    const executor = new AgentExecutor({ agent: watched, tools, store });
    const result = lastValueFrom(executor.invoke({ input: "weather" }, { runId: "write-ahead" }));
    await toolStarted;
    await executor.send("write-ahead", "Also check Rome.");
    open();
    expect((await result).output).toBe("answer after: Also check Rome.");
    expect(recordedAtCall).toEqual([[], ["1"]]);
  });
});
