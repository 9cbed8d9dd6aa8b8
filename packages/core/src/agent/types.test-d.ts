import type { AgentAction, AgentFinish } from "@langchain/core/agents";
import { describe, expectTypeOf, it } from "vitest";
import { AgentRxError } from "../errors/agentrx-error";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { type AgentInput, type AgentOutput, type ToolAgentAction, isAgentAction, isAgentFinish, isToolAgentAction } from "./types";

describe("agent protocol types", () => {
  it("AgentInput adds steps and forceFinalAnswer to the user's inputs", () => {
    type Input = AgentInput<{ input: string; language: "en" | "fr" }>;
    expectTypeOf<Input["input"]>().toEqualTypeOf<string>();
    expectTypeOf<Input["language"]>().toEqualTypeOf<"en" | "fr">();
    expectTypeOf<Input["steps"]>().toEqualTypeOf<import("./types").AgentStep[]>();
    // A step of @langchain/core is one of AgentRx's (whose observation may also be content with images).
    expectTypeOf<import("@langchain/core/agents").AgentStep>().toMatchTypeOf<import("./types").AgentStep>();
    expectTypeOf<Input["forceFinalAnswer"]>().toEqualTypeOf<boolean | undefined>();
  });

  it("AgentOutput is an action, several actions or a finish", () => {
    expectTypeOf<AgentOutput>().toEqualTypeOf<AgentAction | AgentAction[] | AgentFinish>();
    expectTypeOf<ToolAgentAction>().toMatchTypeOf<AgentAction>();
  });

  it("the guards narrow", () => {
    const output = {} as AgentOutput;
    if (isAgentFinish(output)) expectTypeOf(output).toEqualTypeOf<AgentFinish>();
    if (isAgentAction(output)) expectTypeOf(output).toMatchTypeOf<AgentAction>();
    if (isToolAgentAction(output)) expectTypeOf(output.toolCallId).toEqualTypeOf<string>();
  });

  it("isInstance narrows errors", () => {
    const error: unknown = new Error("x");
    if (AgentRxError.isInstance(error)) expectTypeOf(error).toEqualTypeOf<AgentRxError>();
    if (InvalidArgumentError.isInstance(error)) expectTypeOf(error.argument).toEqualTypeOf<string>();
  });
});
