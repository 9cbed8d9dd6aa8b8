import type { AgentStep } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { type AgentExecutor, createAgentExecutor } from "@agentrx/executors";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";

const model = new ScriptedChatModel({ responses: [] });

describe("createAgentExecutor types", () => {
  it("returns an AgentExecutor typed by its options", async () => {
    expectTypeOf(createAgentExecutor({ model, tools: [] })).toMatchTypeOf<AgentExecutor>();
    const typed = createAgentExecutor({ model, tools: [], outputSchema: z.object({ celsius: z.number() }), returnIntermediateSteps: true });
    const result = await typed.invoke({ input: "x" });
    expectTypeOf(result.structuredOutput).toEqualTypeOf<{ celsius: number } | undefined>();
    expectTypeOf(result.intermediateSteps).toEqualTypeOf<AgentStep[]>();
  });

  it("takes no agent", () => {
    // @ts-expect-error the agent is built from the model
    createAgentExecutor({ model, tools: [], agent: undefined });
  });
});
