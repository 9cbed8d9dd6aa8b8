import type { AgentStep } from "@agentrx/core";
import type { AgentMiddleware, PrepareStepResult } from "@agentrx/executors";
import { describe, expectTypeOf, it } from "vitest";

describe("prepareStep", () => {
  it("may return the steps it was given, or a filtered copy of them", () => {
    const unchanged: AgentMiddleware = {
      name: "unchanged",
      prepareStep(args) {
        return { steps: args.steps };
      },
    };
    const filtered: AgentMiddleware = {
      name: "filtered",
      prepareStep({ steps }) {
        return { steps: steps.filter((step) => step.action.tool !== "search") };
      },
    };
    expectTypeOf(unchanged).toEqualTypeOf<AgentMiddleware>();
    expectTypeOf(filtered).toEqualTypeOf<AgentMiddleware>();
    expectTypeOf<NonNullable<PrepareStepResult["steps"]>>().toEqualTypeOf<readonly AgentStep[]>();
  });
});
