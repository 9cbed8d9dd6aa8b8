// A message sent while the agent writes its final answer joins the run, which goes on (an
// iteration is left): the answer, which streamed to the user, becomes a step before the message,
// so the model sees what it said; a resume from the record sees the same.
import { createToolCallingAgent } from "@agentrx/agents";
import { type AgentStep, isMessageStep } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent } from "@agentrx/executors";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatGenerationChunk } from "@langchain/core/outputs";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { collect } from "../executor/test-helpers";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** A scripted model that runs `during(call)` after its first chunk of each call (a message is sent while it answers). */
class Answering extends ScriptedChatModel {
  during: ((call: number) => Promise<void>) | undefined;

  override async *_streamResponseChunks(...args: Parameters<ScriptedChatModel["_streamResponseChunks"]>): AsyncGenerator<ChatGenerationChunk> {
    const call = this.calls.length;
    let chunks = 0;
    for await (const chunk of super._streamResponseChunks(...args)) {
      yield chunk;
      if (chunks++ === 0) await this.during?.(call);
    }
  }
}

const view = (messages: readonly BaseMessage[] | undefined) => (messages ?? []).map((message) => `${message.getType()}: ${message.text}`);
const NOTE = "(A new message came while you were answering; it follows.)";

describe("a message sent while the agent streams its final answer", () => {
  it("joins after the answer, which the model then sees as its own message (live)", async () => {
    const llm = new Answering({ streaming: true, responses: ["Paris is sunny.", "Rome is sunny too."] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [], returnIntermediateSteps: true });
    llm.during = async (call) => {
      if (call === 0) await executor.send("live", "Also Rome?");
    };
    const events: AgentStreamEvent[] = await collect(executor.stream({ input: "Weather in Paris?" }, { runId: "live" }));
    expect(events.at(-1)).toMatchObject({ type: "output", output: "Rome is sunny too.", stopReason: "finish" });
    // The first answer streamed, then its step and the message, then the second answer.
    expect(events.map((event) => event.type)).toEqual(["start", "token", "token", "token", "usage", "step", "message", "token", "token", "token", "token", "usage", "output"]);
    expect(events.find((event) => event.type === "step")).toMatchObject({ iteration: 0, step: { action: { tool: "_Answer", toolInput: "Paris is sunny.", log: "Paris is sunny." }, observation: NOTE } });
    expect(view(llm.calls[1]?.messages)).toEqual(["human: Weather in Paris?", "ai: Paris is sunny.", `human: ${NOTE}`, "human: Also Rome?"]);
  });

  it("a resume from the record sees the answer and the message as the live run did", async () => {
    const store = new InProcessRunStore();
    const llm = new Answering({ streaming: true, responses: ["Paris is sunny.", "never"] });
    const controller = new AbortController();
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [], store });
    llm.during = async (call) => {
      if (call === 0) await executor.send("recorded", "Also Rome?");
      else controller.abort(); // the process "dies" during the second model call
    };
    const live = await collect(executor.stream({ input: "Weather in Paris?" }, { runId: "recorded", signal: controller.signal })).catch((error: unknown) => error);
    expect((live as Error).name).toBe("AbortError");
    const recorded = (await store.readEvents("recorded")).map((event) => event.data as { type: string });
    expect(recorded.map((event) => event.type).filter((type) => type === "step" || type === "message")).toEqual(["step", "message"]);

    const again = new ScriptedChatModel({ responses: ["Rome is sunny too."] });
    const resumed = new AgentExecutor({ agent: createToolCallingAgent({ llm: again, tools: [], prompt }), tools: [], store, returnIntermediateSteps: true });
    const result = await resumed.resume("recorded");
    expect(result.output).toBe("Rome is sunny too.");
    expect(view(again.calls[0]?.messages)).toEqual(view(llm.calls[1]?.messages));
    expect(view(again.calls[0]?.messages)).toEqual(["human: Weather in Paris?", "ai: Paris is sunny.", `human: ${NOTE}`, "human: Also Rome?"]);
    const steps = result.intermediateSteps as AgentStep[];
    expect(steps.map((step) => (isMessageStep(step) ? "message" : step.action.tool))).toEqual(["_Answer", "message"]);
  });

  it("a structured answer a message came during is a step with its JSON", async () => {
    const { z } = await import("zod");
    let sent = false;
    const seen: AgentStep[][] = [];
    const agent = RunnableLambda.from(async (input: { steps: AgentStep[] }) => {
      seen.push(input.steps);
      if (!sent) {
        sent = true;
        await executor.send("typed", "In Celsius, please.");
        return { returnValues: { output: '{"temperature":77}' }, log: "" };
      }
      return { returnValues: { output: '{"temperature":25}' }, log: "" };
    });
    const executor = new AgentExecutor({ agent, tools: [], outputSchema: z.object({ temperature: z.number() }) });
    const result = await executor.invoke({ input: "How warm?" }, { runId: "typed" });
    expect(result.structuredOutput).toEqual({ temperature: 25 });
    expect(seen[1]?.map((step) => (isMessageStep(step) ? `message: ${String(step.observation)}` : `${step.action.tool}: ${step.action.log}`))).toEqual([
      '_Answer: {"temperature":77}',
      "message: In Celsius, please.",
    ]);
  });

  it("a run at maxIterations ends with its answer: no answer step, the message is unanswered", async () => {
    const llm = new Answering({ streaming: true, responses: ["Paris is sunny."] });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [], maxIterations: 1 });
    llm.during = async () => void (await executor.send("last", "Also Rome?"));
    const events = await collect(executor.stream({ input: "Weather in Paris?" }, { runId: "last" }));
    expect(events.filter((event) => event.type === "step")).toEqual([]);
    expect(events.find((event) => event.type === "message")).toMatchObject({ unanswered: true });
    expect(events.at(-1)).toMatchObject({ output: "Paris is sunny." });
  });
});
