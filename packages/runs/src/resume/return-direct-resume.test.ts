// A turn whose tool returns directly ends the run with the tool's observation. A run that died
// after that turn's step was recorded and before its output, resumed (or forked at that turn),
// ends the same way: the model is not asked a turn the live run never asked for.
import type { AgentAction, AgentStep } from "@agentrx/core";
import { AgentExecutor, type RunWrite } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { delegate } from "../recording/durable-test-fixtures";

/** A store whose writes of a run's answer (an `output` that is not a pause) fail while `dying` is true: the process dies before the answer is recorded. */
function dyingStore() {
  const inner = new MemoryRunStore();
  const store = delegate(inner);
  const control = { dying: true };
  store.write = async (runId: string, write: RunWrite) => {
    if (control.dying && write.events.some((event) => event.data["type"] === "output" && event.data["stopReason"] !== "interrupted")) throw new Error("the process died");
    return inner.write(runId, write);
  };
  return { inner, store, control };
}

function directRun(store: ReturnType<typeof delegate>, needsApproval = false) {
  const counts = { agent: 0, tool: 0 };
  const lookup = tool(async ({ id }: { id: string }) => (counts.tool++, `order ${id}: shipped`), {
    name: "lookup",
    description: "Looks an order up.",
    schema: z.object({ id: z.string() }),
    returnDirect: true,
  });
  const agent = RunnableLambda.from((input: { steps: AgentStep[] }) => {
    counts.agent++;
    return input.steps.length === 0 ? ({ tool: "lookup", toolInput: { id: "A1" }, log: "", toolCallId: "l1" } as AgentAction) : { returnValues: { output: "the model answered again" }, log: "" };
  });
  const executor = new AgentExecutor({ agent, tools: [needsApproval ? withApproval(lookup) : lookup], store, leaseMs: 100 });
  return { executor, counts };
}

const leaseExpired = () => new Promise((resolve) => setTimeout(resolve, 150));

describe("a run that died between its returnDirect turn and its output", () => {
  it("returns the tool's observation directly on resume, without calling the agent again", async () => {
    const { inner, store, control } = dyingStore();
    const { executor, counts } = directRun(store);
    await expect(executor.invoke({ input: "where is A1?" }, { runId: "r" })).rejects.toThrow(/the process died/);
    expect((await inner.readEvents("r")).map((event) => event.data["type"])).toEqual(["start", "action", "step"]);
    control.dying = false;
    await leaseExpired();

    const result = await executor.resume("r");
    expect(result).toMatchObject({ output: "order A1: shipped", stopReason: "return_direct" });
    expect(counts).toEqual({ agent: 1, tool: 1 });
  });

  it("does so after an approval too, and a fork at that turn's end returns directly as well", async () => {
    const { store, control } = dyingStore();
    const { executor, counts } = directRun(store, true);
    expect((await executor.invoke({ input: "where is A1?" }, { runId: "r" })).stopReason).toBe("interrupted");
    await expect(executor.resume("r", { decisions: { "call-0-0": "approve" } })).rejects.toThrow(/the process died/);
    control.dying = false;
    await leaseExpired();
    expect(await executor.resume("r")).toMatchObject({ output: "order A1: shipped", stopReason: "return_direct" });

    expect(await executor.fork("r", { at: 1, edit: { observation: "order A1: lost" }, runId: "fork" })).toMatchObject({ output: "order A1: lost", stopReason: "return_direct" });
    expect(counts).toEqual({ agent: 1, tool: 1 });
  });

  it("still goes back to the model when the person rejected the call", async () => {
    const { store, control } = dyingStore();
    control.dying = false;
    const { executor, counts } = directRun(store, true);
    await executor.invoke({ input: "where is A1?" }, { runId: "r" });
    await expect(executor.resume("r", { decisions: { "call-0-0": { type: "reject" } } })).resolves.toMatchObject({ output: "the model answered again", stopReason: "finish" });
    expect(await executor.fork("r", { at: 1, runId: "fork" })).toMatchObject({ output: "the model answered again", stopReason: "finish" });
    expect(counts).toEqual({ agent: 3, tool: 0 });
  });
});
