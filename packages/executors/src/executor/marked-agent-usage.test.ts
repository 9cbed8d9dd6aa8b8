// A hand-written agent that reports its model calls (markObservesModelCalls) has the same usage as
// one watched through callbacks, recorded without prices too.
import { markObservesModelCalls, takeModelCallObserver } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { HumanMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "../runs/in-process-run-store";

function handWritten(marked: boolean) {
  const model = new ScriptedChatModel({ responses: [{ content: "hello", usage: { inputTokens: 10, outputTokens: 5 } }] });
  const agent = RunnableLambda.from(async (input: { input: string }, options) => {
    const { observer, config } = takeModelCallObserver(options);
    const sent = [new HumanMessage(input.input)];
    const startedAt = Date.now();
    const reply = await model.invoke(sent, config);
    observer?.({ input: sent, output: reply, startedAt, model });
    return { returnValues: { output: String(reply.content) }, log: "" };
  });
  return marked ? markObservesModelCalls(agent) : agent;
}

describe("the usage of a hand-written agent that reports its model calls", () => {
  it.each([false, true])("recorded without prices (marked: %s): in the result and the record", async (marked) => {
    const store = new InProcessRunStore();
    const result = await new AgentExecutor({ agent: handWritten(marked), tools: [], store }).invoke({ input: "hi" }, { runId: "r" });
    expect(result.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
    expect((await store.getRun("r"))?.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
  });
});
