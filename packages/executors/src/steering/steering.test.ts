import { createToolCallingAgent } from "@agentrx/agents";
import { isMessageStep } from "@agentrx/core";
import { ScriptedChatModel, deferred } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent, RunFinishedError, reduceRun, initialRunState, RunEventOrderError } from "@agentrx/executors";
import { HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { finish, scriptedAgent } from "../executor/test-helpers";
import { PLAIN_STYLE, formatLine } from "../operators/trace-format";
import { RunSteering } from "./run-steering";
import { sendRunMessage } from "./send-run-message";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** A `search` tool whose calls wait until `release()`; `started` resolves at the first call. */
function gatedSearch() {
  const gate = deferred<void>();
  const started = deferred<void>();
  const search = tool(
    async ({ city }: { city: string }) => {
      started.resolve();
      await gate.promise;
      return `weather in ${city}: sunny`;
    },
    { name: "search", description: "Searches.", schema: z.object({ city: z.string() }) },
  );
  return { search, started: started.promise, release: () => gate.resolve() };
}

describe("executor.send (same process, no store)", () => {
  it("refuses a message once the run has closed its inbox to end, and keeps one that came before for the run", async () => {
    const steering = RunSteering.open("closing", undefined, 0, 1000);
    try {
      steering.push(new HumanMessage("early"));
      expect(await steering.closeInbox()).toBe(false); // something waits: the inbox stays open
      const taken = (await steering.take()) ?? [];
      expect(taken.map(({ message }) => message.text)).toEqual(["early"]);
      steering.taken(taken);
      expect(await steering.closeInbox()).toBe(true);
      const error = await sendRunMessage("closing", "Too late.", { store: undefined, operation: "send" }).then(() => undefined, (caught: unknown) => caught);
      expect(RunFinishedError.isInstance(error)).toBe(true);
      expect(steering.take()).toBeUndefined();
    } finally {
      steering.close();
    }
  });

  it("joins the run after the turn's tool calls, as a human message the model sees next", async () => {
    const { search, started, release } = gatedSearch();
    const llm = new ScriptedChatModel({
      responses: [
        { toolCalls: [{ name: "search", args: { city: "Paris" } }, { name: "search", args: { city: "Oslo" } }] },
        (messages) => `saw: ${messages.map((message) => `${message.getType()}:${message.text}`).join(" | ")}`,
      ],
    });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [search], prompt }), tools: [search] });
    const events: AgentStreamEvent[] = [];
    const done = new Promise<void>((resolve, reject) => executor.stream({ input: "Weather?" }, { runId: "steer-1" }).subscribe({ next: (e) => events.push(e), complete: resolve, error: reject }));
    await started;
    const sent = await executor.send("steer-1", "Also check Rome.");
    expect(sent).toEqual({ runId: "steer-1", status: "running" });
    release();
    await done;
    // Both tool calls of the turn finished before the message joined, and it came before the next agent call.
    expect(events.map((event) => event.type).filter((type) => type !== "token" && type !== "usage")).toEqual(["start", "action", "action", "step", "step", "message", "output"]);
    const message = events.find((event) => event.type === "message");
    expect(message).toMatchObject({ type: "message", iteration: 1 });
    expect(llm.calls[1]?.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "tool", "human"]);
    expect(llm.calls[1]?.messages.at(-1)?.text).toBe("Also check Rome.");
  });

  it("a message sent while the agent answers makes the run go on", async () => {
    const { agent, inputs } = scriptedAgent([
      async () => {
        await steered.send("steer-2", new HumanMessage("And Rome?"));
        return finish("Paris only");
      },
      (input) => finish(`with ${input.steps.filter(isMessageStep).map((step) => step.observation).join(", ")}`),
    ]);
    const steered = new AgentExecutor({ agent, tools: [], returnIntermediateSteps: true });
    const result = await steered.invoke({ input: "x" }, { runId: "steer-2" });
    expect(result.output).toBe("with And Rome?");
    expect(inputs).toHaveLength(2);
    // The answer the message came during stays in the conversation, before the message.
    expect(result.intermediateSteps?.map((step) => step.action.tool)).toEqual(["_Answer", "_Message"]);
  });

  it("refuses a message for a run that is not going on here when there is no store, and a bad message", async () => {
    const executor = new AgentExecutor({ agent: scriptedAgent([finish("x")]).agent, tools: [] });
    await expect(executor.send("nowhere", "hi")).rejects.toThrow(/no run "nowhere" is going on in this process, and there is no store/);
    await expect(executor.send("nowhere", "" as string)).rejects.toThrow(/`message` must be a non-empty string or a HumanMessage with text or other content \(an image\), got an empty string\./);
    await expect(executor.send("nowhere", "  \n ")).rejects.toThrow(/`message` must be a non-empty string .*got only white space/);
    await expect(executor.send("", "hi")).rejects.toThrow(/`runId` must be a non-empty string/);
    expect(RunFinishedError.isInstance(new RunFinishedError({ runId: "r" }))).toBe(true);
  });
});

describe("a message for a run of this process that ended (no store)", () => {
  it("is refused with RunFinishedError, as a store refuses one for an ended run", async () => {
    const executor = new AgentExecutor({ agent: scriptedAgent([finish("done")]).agent, tools: [] });
    await executor.invoke({ input: "x" }, { runId: "ended-here" });
    const error = await executor.send("ended-here", "One more thing").catch((caught: unknown) => caught);
    expect(RunFinishedError.isInstance(error)).toBe(true);
    expect((error as RunFinishedError).runId).toBe("ended-here");
    // A run this process never had is still "no run".
    await expect(executor.send("never-here", "hi")).rejects.toThrow(/no run "never-here" is going on in this process/);
  });
});

describe("the message event in reduceRun", () => {
  it("adds a message step between turns and refuses one in the middle of a turn", () => {
    let state = initialRunState("r", undefined, { input: "x" });
    state = reduceRun(state, { type: "message", message: new HumanMessage("Rome too"), inboxSeq: 3, iteration: 0, at: 1 });
    expect(state.steps).toHaveLength(1);
    expect(state.steps[0]).toMatchObject({ action: { tool: "_Message", toolInput: "Rome too", inboxSeq: 3 }, observation: "Rome too" });
    const action = { tool: "search", toolInput: {}, log: "" };
    state = reduceRun(state, { type: "action", iteration: 0, index: 0, action, messages: [], at: 2 });
    expect(() => reduceRun(state, { type: "message", message: new HumanMessage("now"), iteration: 0, at: 3 })).toThrow(RunEventOrderError);
  });
});

describe("the message event in the terminal trace", () => {
  it("is a line of its own", () => {
    expect(formatLine({ type: "message", message: new HumanMessage("Also   check\nRome."), iteration: 1, at: 0 }, PLAIN_STYLE, 80, false)).toBe("message Also check Rome.\n");
    expect(formatLine({ type: "message", message: new HumanMessage("Rome?"), iteration: 1, unanswered: true, at: 0 }, PLAIN_STYLE, 80, false)).toBe("message Rome? (unanswered: the run was ending)\n");
  });
});
