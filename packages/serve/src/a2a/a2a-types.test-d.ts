import type { AgentCard, Message, Task } from "@a2a-js/sdk";
import type { AgentExecutor as SdkAgentExecutor, InMemoryTaskStore, TaskStore } from "@a2a-js/sdk/server";
import { describe, expectTypeOf, it } from "vitest";
import type { A2AAgentCard, A2AAgentCardInput, A2AAgentExecutor, A2AHandler, A2AHandlerOptions, A2AMessage, A2ATask, A2ATaskStore } from "../index";

type ToInputsMessage = Parameters<NonNullable<A2AHandlerOptions["toInputs"]>>[0];

// The package's own A2A types (no `@a2a-js/sdk` in its declarations) against the SDK's.
describe("the A2A types", () => {
  it("take the SDK's agent card, and give one the SDK takes", () => {
    expectTypeOf<AgentCard>().toExtend<A2AAgentCard>();
    expectTypeOf<AgentCard>().toExtend<A2AAgentCardInput>();
    expectTypeOf<A2AAgentCard>().toExtend<AgentCard>();
    expectTypeOf<A2AHandler["agentCard"]>().toExtend<AgentCard>();
  });

  it("take a card with some of its capabilities, and refuse a field an A2A 1.0 card does not have", () => {
    expectTypeOf<{ name: string; description: string; capabilities: { extendedAgentCard: boolean } }>().toExtend<A2AAgentCardInput>();
    const card = (input: A2AAgentCardInput) => input;
    // @ts-expect-error: not a field of an A2A 1.0 card (data of your own goes in an extension's `params`)
    card({ name: "Weather", description: "Tells the weather.", vendorTier: "gold" });
  });

  it("take the SDK's task stores", () => {
    expectTypeOf<InMemoryTaskStore>().toExtend<A2AHandlerOptions["taskStore"]>();
    expectTypeOf<TaskStore>().toExtend<A2ATaskStore>();
  });

  it("give toInputs the SDK's message, and a message the SDK takes", () => {
    expectTypeOf<Message>().toExtend<ToInputsMessage>();
    expectTypeOf<ToInputsMessage>().toEqualTypeOf<A2AMessage>();
    // A `toInputs` written against the SDK's `Message` still fits.
    expectTypeOf<(message: Message) => Record<string, unknown>>().toExtend<A2AHandlerOptions["toInputs"]>();
    expectTypeOf<A2AMessage>().toExtend<Message>();
    expectTypeOf<Task>().toExtend<A2ATask>();
    expectTypeOf<A2ATask>().toExtend<Task>();
  });

  it("give an executor the SDK's DefaultRequestHandler takes", () => {
    expectTypeOf<A2AHandler["agentExecutor"]>().toExtend<SdkAgentExecutor>();
    expectTypeOf<SdkAgentExecutor>().toExtend<A2AAgentExecutor>();
  });
});
