import type { AgentInput, AgentOutput, AgentStep } from "@agentrx/core";
import type { BaseLanguageModel } from "@langchain/core/language_models/base";
import type { BaseMessage } from "@langchain/core/messages";
import type { BasePromptTemplate, PromptTemplate } from "@langchain/core/prompts";
import type { Runnable } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { describe, expectTypeOf, it } from "vitest";
import { ReActSingleInputOutputParser } from "../react/react-single-input-output-parser";
import { createAgentTypeRegistry, AgentTypeRegistry } from "./agent-type-registry";
import { reactAgentType, toolCallingAgentType } from "./built-in-agent-types";
import { defineAgentType, type AgentTypeOptions, type AnyAgentType } from "./define-agent-type";

interface PlannerOptions {
  llm: BaseLanguageModel;
  tools: StructuredToolInterface[];
  prompt: PromptTemplate;
  maxPlanSteps?: number;
}

declare const createPlanner: (options: PlannerOptions) => Runnable<AgentInput, AgentOutput>;
declare const plannerPrompt: () => PromptTemplate;

const planner = defineAgentType({
  name: "acme/planner",
  version: "1.0.0",
  description: "Plans, then acts.",
  requires: "text",
  create: createPlanner,
  defaultPrompt: plannerPrompt,
  createOutputParser: ({ toolNames }) => new ReActSingleInputOutputParser({ toolNames }),
  formatScratchpad: (steps: AgentStep[]) => steps.length,
});

describe("defineAgentType", () => {
  it("keeps the name and the requirement as literals", () => {
    expectTypeOf(planner.name).toEqualTypeOf<"acme/planner">();
    expectTypeOf(planner.requires).toEqualTypeOf<"text">();
    expectTypeOf(toolCallingAgentType.requires).toEqualTypeOf<"tool-calling">();
  });

  it("infers the options of create, with prompt optional", () => {
    type Options = AgentTypeOptions<typeof planner>;
    expectTypeOf<Options["maxPlanSteps"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Options["prompt"]>().toEqualTypeOf<PromptTemplate | undefined>();
    expectTypeOf(planner.create).parameter(0).toHaveProperty("llm").toEqualTypeOf<BaseLanguageModel>();
    expectTypeOf(planner.create).returns.toEqualTypeOf<Runnable<AgentInput, AgentOutput>>();
    // @ts-expect-error llm is required
    planner.create({ tools: [] });
    // @ts-expect-error maxPlanSteps must be a number
    planner.create({ llm: {} as BaseLanguageModel, tools: [], maxPlanSteps: "3" });
  });

  it("infers the parser, the scratchpad and the default prompt", () => {
    expectTypeOf(planner.createOutputParser({ toolNames: [] })).toEqualTypeOf<ReActSingleInputOutputParser>();
    expectTypeOf(planner.formatScratchpad([])).toEqualTypeOf<number>();
    expectTypeOf(planner.defaultPrompt()).toEqualTypeOf<PromptTemplate>();
    expectTypeOf(toolCallingAgentType.formatScratchpad([])).toEqualTypeOf<BaseMessage[]>();
    expectTypeOf(reactAgentType.formatScratchpad([])).toEqualTypeOf<string>();
  });

  it("rejects a requirement that is not tool-calling or text", () => {
    defineAgentType({
      name: "acme/x",
      version: "1.0.0",
      description: "",
      // @ts-expect-error requires must be "tool-calling" or "text"
      requires: "vision",
      create: createPlanner,
      defaultPrompt: plannerPrompt,
      createOutputParser: () => new ReActSingleInputOutputParser(),
      formatScratchpad: () => "",
    });
  });
});

describe("AgentTypeRegistry", () => {
  it("types get() by registered name", () => {
    const registry = new AgentTypeRegistry().register(planner);
    expectTypeOf(registry.get("acme/planner")).toEqualTypeOf<typeof planner>();
    expectTypeOf(registry.get("other")).toEqualTypeOf<AnyAgentType>();
    const builtIns = createAgentTypeRegistry().register(planner);
    expectTypeOf(builtIns.get("react")).toEqualTypeOf<typeof reactAgentType>();
    expectTypeOf(builtIns.get("acme/planner").requires).toEqualTypeOf<"text">();
  });

  it("accepts any prompt template where the options ask for one", () => {
    expectTypeOf<AgentTypeOptions<typeof reactAgentType>["prompt"]>().toEqualTypeOf<BasePromptTemplate | undefined>();
  });
});
