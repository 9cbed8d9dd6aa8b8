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

  it("requires the user's message in invoke and stream, under memory.inputKey when it names one", () => {
    const executor = createAgentExecutor({ model, tools: [] });
    void executor.invoke({ input: "Hi", chat_history: [] });
    void executor.stream({ input: "Hi" });
    // @ts-expect-error the prompt reads `input`
    void executor.invoke({});
    // @ts-expect-error the prompt reads `input`
    void executor.stream({ question: "Hi" });
    // @ts-expect-error an undefined message would be refused
    void executor.invoke({ input: undefined });
    const memory = { getMessages: async () => [], addMessages: async () => undefined };
    const renamed = createAgentExecutor({ model, tools: [], memory: { memory, inputKey: "question" } });
    void renamed.invoke({ question: "Hi" });
    // @ts-expect-error memory.inputKey says the message is in `question`
    void renamed.invoke({ input: "Hi" });
    // Still an AgentExecutor, for whatever takes one.
    const plain: AgentExecutor = renamed;
    void plain.invoke({ anything: 1 });
  });

  it("takes no agent", () => {
    // @ts-expect-error the agent is built from the model
    createAgentExecutor({ model, tools: [], agent: undefined });
  });
});
