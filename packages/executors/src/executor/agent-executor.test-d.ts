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
});
