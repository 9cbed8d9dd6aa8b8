import type { AgentExecutorResult, AgentStreamEvent } from "@agentrx/executors";
import type { Observable } from "rxjs";
import { describe, expectTypeOf, it } from "vitest";
import type { RunEvent } from "./follow-run";
import type { RunClient } from "./run-client";

describe("RunClient types", () => {
  it("events are AgentStreamEvents that may carry a seq; result is invoke's result", () => {
    expectTypeOf<ReturnType<RunClient["events"]>>().toEqualTypeOf<Observable<RunEvent>>();
    expectTypeOf<RunEvent>().toMatchTypeOf<AgentStreamEvent>();
    expectTypeOf<RunEvent["seq"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ReturnType<RunClient["result"]>>().toEqualTypeOf<Promise<AgentExecutorResult>>();
    expectTypeOf<ReturnType<RunClient["submit"]>>().toEqualTypeOf<Promise<string>>();
    expectTypeOf<RunClient["resume"]>().parameter(1).toEqualTypeOf<import("./run-client-options").ResumeRunOptions | undefined>();
  });
});
