import { type AgentStep, isMessageStep } from "@agentrx/core";
import { AgentExecutor, type AgentStreamEvent, type FollowUp, ThreadBusyError } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";

/**
 * One executor on a thread: the first input's run waits in its tool until `open()`; the agent
 * answers with its input and the messages it was sent.
 */
function threadFixture(followUp: FollowUp) {
  const store = new MemoryRunStore();
  let open: () => void = () => undefined;
  let started: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const toolStarted = new Promise<void>((resolve) => (started = resolve));
  const log: string[] = [];
  const search = tool(
    async ({ q }: { q: string }) => {
      log.push(`tool ${q}`);
      started();
      await gate;
      return `found ${q}`;
    },
    { name: "search", description: "Searches.", schema: z.object({ q: z.string() }) },
  );
  const agent = RunnableLambda.from((input: { input: string; steps: AgentStep[] }) => {
    if (input.steps.length === 0) return { tool: "search", toolInput: { q: input.input }, log: "", toolCallId: `c-${input.input}` };
    const sent = input.steps.filter(isMessageStep).map((step) => step.observation);
    log.push(`answer ${input.input}`);
    return { returnValues: { output: `${input.input}${sent.length > 0 ? ` + ${sent.join(", ")}` : ""}` }, log: "" };
  });
  const executor = new AgentExecutor({ agent, tools: [search], store, followUp });
  return { store, executor, open, toolStarted, log };
}

describe("followUp: a new input on a thread whose run is going on", () => {
  it('"reject" refuses it with ThreadBusyError naming the running run', async () => {
    const { executor, open, toolStarted } = threadFixture("reject");
    const first = lastValueFrom(executor.invoke({ input: "Paris" }, { threadId: "t", runId: "first" }));
    await toolStarted;
    const error = await lastValueFrom(executor.invoke({ input: "Rome" }, { threadId: "t" })).then(() => undefined, (e: unknown) => e);
    expect(ThreadBusyError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ threadId: "t", runId: "first" });
    open();
    expect((await first).output).toBe("Paris");
    // Once the thread's run has ended, a new input runs.
    expect((await lastValueFrom(executor.invoke({ input: "Oslo" }, { threadId: "t" }))).output).toBe("Oslo");
  });

  it('"interrupt" sends it to the running run and follows that run to its answer', async () => {
    const { executor, open, toolStarted } = threadFixture("interrupt");
    const first = lastValueFrom(executor.invoke({ input: "Paris" }, { threadId: "t", runId: "first" }));
    await toolStarted;
    const second = lastValueFrom(executor.stream({ input: "Also Rome" }, { threadId: "t" }).pipe(toArray()));
    await new Promise((resolve) => setTimeout(resolve, 30)); // the input is in the inbox
    open();
    expect((await first).output).toBe("Paris + Also Rome");
    const events: AgentStreamEvent[] = await second;
    expect(events.map((event) => event.type)).toEqual(["step", "message", "output"]);
    expect(events.at(-1)).toMatchObject({ type: "output", runId: "first", output: "Paris + Also Rome" });
  });

  it('"queue" starts it once the running run has ended', async () => {
    const { executor, open, toolStarted, log } = threadFixture("queue");
    const first = lastValueFrom(executor.invoke({ input: "Paris" }, { threadId: "t", runId: "first" }));
    await toolStarted;
    const second = lastValueFrom(executor.invoke({ input: "Rome" }, { threadId: "t" }));
    await new Promise((resolve) => setTimeout(resolve, 120)); // it waits meanwhile
    expect(log).toEqual(["tool Paris"]);
    open();
    expect((await first).output).toBe("Paris");
    expect((await second).output).toBe("Rome");
    expect(log).toEqual(["tool Paris", "answer Paris", "tool Rome", "answer Rome"]);
  });

  it("is validated at construction", () => {
    const agent = RunnableLambda.from(() => ({ returnValues: { output: "x" }, log: "" }));
    expect(() => new AgentExecutor({ agent, tools: [], followUp: "queue" })).toThrow(/`followUp` needs a `store`/);
    expect(() => new AgentExecutor({ agent, tools: [], store: new MemoryRunStore(), followUp: "later" as never })).toThrow(/`followUp` must be "queue", "interrupt" or "reject", got "later"/);
  });
});
