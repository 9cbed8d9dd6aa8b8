// Two calls of one turn with the same tool-call id (some providers repeat one in a response) get
// different idempotency keys, recorded with their actions and kept by a resume (docs/runs.md).
import { type AgentAction, type AgentStep, getIdempotencyKey } from "@agentrx/core";
import { AgentExecutor } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { deferred } from "./test-helpers";

const call = (amount: number, toolCallId: string): AgentAction => ({ tool: "pay", toolInput: { amount }, log: "", toolCallId }) as AgentAction;

function setup(hangFirst: boolean) {
  const keys: [number, string | undefined][] = [];
  const bothStarted = deferred<void>();
  const pay = tool(
    async ({ amount }: { amount: number }, config) => {
      keys.push([amount, getIdempotencyKey(config)]);
      if (hangFirst && keys.length <= 2) {
        if (keys.length === 2) bothStarted.resolve();
        return new Promise<string>(() => undefined); // cancelled while it runs
      }
      return `paid ${amount}`;
    },
    { name: "pay", description: "Pays.", schema: z.object({ amount: z.number() }) },
  );
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }) =>
    input.steps.length === 0 ? [call(10, "call_1"), call(20, "call_1"), call(30, "call_2")] : { returnValues: { output: "done" }, log: "" },
  );
  const store = new InProcessRunStore();
  const executor = new AgentExecutor({ agent, tools: [pay], store });
  return { executor, store, keys, bothStarted };
}

describe("idempotency keys of calls that repeat a tool-call id", () => {
  it("a repeat is told apart by its place in the turn; the keys are recorded with the actions", async () => {
    const { executor, store, keys } = setup(false);
    await executor.invoke({ input: "x" }, { runId: "p" });
    expect(new Map(keys)).toEqual(
      new Map([
        [10, "p:0:call_1"],
        [20, "p:0:call_1#1"],
        [30, "p:0:call_2"],
      ]),
    );
    const recorded = (await store.readEvents("p")).filter((event) => event.data["type"] === "action").map((event) => event.data["idempotencyKey"]);
    expect(recorded).toEqual(["p:0:call_1", "p:0:call_1#1", "p:0:call_2"]);
  });

  it("a resume runs the calls in doubt again under the keys they started with", async () => {
    const { executor, keys, bothStarted } = setup(true);
    const controller = new AbortController();
    const running = Promise.resolve(executor.invoke({ input: "x" }, { runId: "p", signal: controller.signal })); // (subscribed now)
    await bothStarted.promise;
    controller.abort();
    await expect(running).rejects.toThrow();
    await executor.resume("p");
    const byAmount = (amount: number) => new Set(keys.filter(([paid]) => paid === amount).map(([, key]) => key));
    expect(byAmount(10)).toEqual(new Set(["p:0:call_1"]));
    expect(byAmount(20)).toEqual(new Set(["p:0:call_1#1"]));
    expect(keys.filter(([paid]) => paid === 20)).toHaveLength(2);
  });
});
