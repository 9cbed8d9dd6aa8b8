import { isAbortError, isMessageStep } from "@agentrx/core";
import { deferred } from "@agentrx/core/testing";
import { AgentExecutor, RunFinishedError, RunNotFoundError } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { describe, expect, it } from "vitest";
import { act, echoTool, finish, scriptedAgent } from "../executor/test-helpers";

/** An executor without a store whose one tool needs approval: its runs pause in its in-process store. */
function pausingExecutor() {
  const { agent, inputs } = scriptedAgent([
    act("echo", { text: "Paris" }),
    (input) => finish(`saw: ${input.steps.map((step) => `${isMessageStep(step) ? "message" : step.action.tool}=${String(step.observation)}`).join(", ")}`),
  ]);
  return { executor: new AgentExecutor({ agent, tools: [withApproval(echoTool)] }), inputs };
}

describe("send to a run paused for approval, without a store", () => {
  it("keeps the messages for the resume, in the order sent: the agent sees them after the approved call", async () => {
    const { executor, inputs } = pausingExecutor();
    const paused = await executor.invoke({ input: "Weather?" }, { runId: "p-1" });
    expect(paused.interrupts).toHaveLength(1);
    expect(await executor.send("p-1", "Also Rome")).toMatchObject({ runId: "p-1", inboxSeq: 1, status: "interrupted" });
    expect(await executor.send("p-1", "And Oslo")).toMatchObject({ runId: "p-1", inboxSeq: 2, status: "interrupted" });
    const done = await executor.resume("p-1", { decisions: { "call-0-0": "approve" } });
    expect(done.output).toBe("saw: echo=Paris, message=Also Rome, message=And Oslo");
    expect(inputs).toHaveLength(2);
  });

  it("refuses a message once the resumed run has finished, and one for a run it never had", async () => {
    const { executor } = pausingExecutor();
    await executor.invoke({ input: "Weather?" }, { runId: "p-2" });
    await executor.resume("p-2", { decisions: { "call-0-0": "approve" } });
    const late = await executor.send("p-2", "Too late").catch((error: unknown) => error);
    expect(RunFinishedError.isInstance(late)).toBe(true);
    expect((late as RunFinishedError).stopReason).toBe("finish");
    const unknown = await executor.send("p-unknown", "Hello?").catch((error: unknown) => error);
    expect(RunNotFoundError.isInstance(unknown)).toBe(true);
  });

  it("a paused run cancelled by an aborted resume keeps taking messages for its next resume", async () => {
    const calling = deferred<void>();
    const { agent, inputs } = scriptedAgent([
      act("echo", { text: "Paris" }),
      () => (calling.resolve(), new Promise<never>(() => {})),
      (input) => finish(`saw: ${input.steps.map((step) => String(step.observation)).join(", ")}`),
    ]);
    const executor = new AgentExecutor({ agent, tools: [withApproval(echoTool)] });
    await executor.invoke({ input: "Weather?" }, { runId: "p-3" });
    const controller = new AbortController();
    const resumed = executor.resume("p-3", { decisions: { "call-0-0": "approve" }, signal: controller.signal }).catch((error: unknown) => error);
    await calling.promise;
    controller.abort();
    expect(isAbortError(await resumed)).toBe(true);
    expect(await executor.send("p-3", "Also Rome")).toMatchObject({ inboxSeq: 1, status: "cancelled" });
    expect((await executor.resume("p-3")).output).toBe("saw: Paris, Also Rome");
    expect(inputs).toHaveLength(3);
  });
});
