import type { AgentStep } from "@agentrx/core";
import type { AgentExecutorResult, AgentStreamEvent, StopReason } from "@agentrx/executors";
import { AgentExecutor } from "@agentrx/executors";
import { RunnableLambda } from "@langchain/core/runnables";
import type { IterableReadableStream } from "@langchain/core/utils/stream";
import type { Observable } from "rxjs";
import { describe, expectTypeOf, it } from "vitest";

const agent = RunnableLambda.from(() => ({ returnValues: { output: "x" }, log: "" }));
const executor = new AgentExecutor({ agent, tools: [] });

describe("AgentExecutor types", () => {
  it("invoke emits results and stream emits events", () => {
    expectTypeOf(executor.invoke({ input: "x" })).toMatchTypeOf<Observable<AgentExecutorResult>>();
    expectTypeOf(executor.invoke({ input: "x" })).toMatchTypeOf<PromiseLike<AgentExecutorResult>>();
    expectTypeOf(executor.stream({ input: "x" })).toMatchTypeOf<Observable<AgentStreamEvent>>();
    expectTypeOf(executor.stream({ input: "x" })).toMatchTypeOf<PromiseLike<AgentExecutorResult>>();
    expectTypeOf<AgentExecutorResult["output"]>().toEqualTypeOf<string>();
  });

  it("awaiting invoke or resume gives the result", async () => {
    expectTypeOf(await executor.invoke({ input: "x" })).toEqualTypeOf<AgentExecutorResult>();
    expectTypeOf(await executor.resume("run-1")).toEqualTypeOf<AgentExecutorResult>();
    expectTypeOf(await executor.stream({ input: "x" })).toEqualTypeOf<AgentExecutorResult>();
    expectTypeOf(executor.resume("run-1")).toMatchTypeOf<Observable<AgentStreamEvent>>();
  });

  it("narrows events on type", () => {
    expectTypeOf<Extract<AgentStreamEvent, { type: "output" }>["stopReason"]>().toEqualTypeOf<StopReason>();
    expectTypeOf<Extract<AgentStreamEvent, { type: "token" }>["text"]>().toEqualTypeOf<string>();
  });

  it("asRunnable: Promise invoke, stream of events", () => {
    const runnable = executor.asRunnable();
    expectTypeOf(runnable.invoke({ input: "x" })).toEqualTypeOf<Promise<AgentExecutorResult>>();
    expectTypeOf(runnable.stream({ input: "x" })).toEqualTypeOf<Promise<IterableReadableStream<AgentStreamEvent>>>();
  });

  it("accepts per-call stop conditions in the config", () => {
    expectTypeOf<NonNullable<Parameters<typeof executor.stream>[1]>>().toHaveProperty("stopWhen");
    expectTypeOf<NonNullable<Parameters<typeof executor.invoke>[1]>>().toHaveProperty("signal");
  });

  it("the result carries stopReason and is not an event", async () => {
    const result = await executor.invoke({ input: "x" });
    expectTypeOf(result.stopReason).toEqualTypeOf<StopReason>();
    const done = await executor.stream({ input: "x" });
    expectTypeOf(done.stopReason).toEqualTypeOf<StopReason>();
    // @ts-expect-error awaiting stream() gives the result, not the `output` event: match stopReason instead
    if (done.type === "output") console.log(done.output);
    const resumed = await executor.resume("run-1");
    // @ts-expect-error the same for resume()
    if (resumed.type === "output") console.log(resumed.output);
  });

  it("returnIntermediateSteps: true types intermediateSteps as present", async () => {
    const withSteps = new AgentExecutor({ agent, tools: [], returnIntermediateSteps: true });
    expectTypeOf((await withSteps.invoke({ input: "x" })).intermediateSteps).toEqualTypeOf<AgentStep[]>();
    expectTypeOf((await withSteps.stream({ input: "x" })).intermediateSteps).toEqualTypeOf<AgentStep[]>();
    expectTypeOf((await withSteps.resume("run-1")).intermediateSteps).toEqualTypeOf<AgentStep[]>();
    expectTypeOf((await executor.invoke({ input: "x" })).intermediateSteps).toEqualTypeOf<AgentStep[] | undefined>();
    const maybe = new AgentExecutor({ agent, tools: [], returnIntermediateSteps: Math.random() > 0.5 });
    expectTypeOf((await maybe.invoke({ input: "x" })).intermediateSteps).toEqualTypeOf<AgentStep[] | undefined>();
    // An executor that returns steps is still an AgentExecutor.
    expectTypeOf(withSteps).toMatchTypeOf<AgentExecutor>();
  });
});
