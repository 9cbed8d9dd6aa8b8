import { InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { describe, expect, it } from "vitest";
import { AgentTypeRegistryError } from "../errors/agent-type-registry-error";
import { createReactPrompt } from "../react/react-prompt";
import { plannerDefinition } from "../test-utils/planner-definition";
import { textOnlyModel } from "../test-utils/text-only-model";
import { AgentTypeRegistry, createAgentTypeRegistry } from "./agent-type-registry";
import { builtInAgentTypes, reactAgentType } from "./built-in-agent-types";
import { defineAgentType } from "./define-agent-type";
import { createAgentForModel, selectAgentType } from "./select-agent-type";

const definition = plannerDefinition;

/** The error `run` throws (undefined when it throws none). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Expects `run` to throw an `InvalidArgumentError` naming `argument`, whose message matches `message`. */
function expectRefusal(run: () => unknown, argument: string, message: RegExp): void {
  const error = thrown(run);
  expect(InvalidArgumentError.isInstance(error), String(error)).toBe(true);
  expect(error).toMatchObject({ argument });
  expect((error as Error).message).toMatch(message);
}

describe("selectAgentType and createAgentForModel check their arguments", () => {
  const llm = new ScriptedChatModel({ responses: [] });

  it("refuses a `toolCalling` that is not a boolean", () => {
    for (const toolCalling of ["false", 0, 1, null, "yes"]) {
      expectRefusal(() => selectAgentType({ llm, toolCalling: toolCalling as never }), "toolCalling", /^selectAgentType: `toolCalling` must be true/);
      expectRefusal(() => createAgentForModel({ llm, tools: [], toolCalling: toolCalling as never }), "toolCalling", /^createAgentForModel: `toolCalling` must be true/);
    }
    expect(selectAgentType({ llm, toolCalling: false }).name).toBe("react");
    expect(selectAgentType({ llm, toolCalling: undefined }).name).toBe("tool-calling");
  });

  it("refuses a wrapped model instead of picking ReAct for it", () => {
    for (const wrapped of [llm.withConfig({ tags: ["x"] }), llm.bindTools([]), llm.withRetry(), textOnlyModel({ responses: [] }).withConfig({ tags: ["x"] })]) {
      expectRefusal(() => selectAgentType({ llm: wrapped }), "llm", /^selectAgentType: `llm` is a wrapped model \(made by bindTools, withConfig or withRetry\), not the chat model itself: pass the chat model;/);
      expectRefusal(() => createAgentForModel({ llm: wrapped as never, tools: [] }), "llm", /^createAgentForModel: `llm` is a wrapped model \(made by bindTools, withConfig or withRetry\), not the chat model itself: pass the chat model;/);
    }
  });

  it("refuses a missing `llm`, or one that is not a model", () => {
    for (const options of [{}, { llm: undefined }, { llm: null }, { llm: "gpt-4o" }, { llm: {} }]) {
      expectRefusal(() => selectAgentType(options as never), "llm", /^selectAgentType: `llm` must be a @langchain\/core language model/);
    }
  });

  it("checks every prompt of `prompts`, not only the chosen agent type's", () => {
    expectRefusal(() => createAgentForModel({ llm, tools: [], prompts: [] as never }), "prompts", /^createAgentForModel: `prompts` must be an object/);
    expectRefusal(() => createAgentForModel({ llm, tools: [], prompts: { react: 42 as never } }), "prompts.react", /^createAgentForModel: `prompts.react` must be a @langchain\/core prompt template/);
    expectRefusal(
      () => createAgentForModel({ llm: textOnlyModel({ responses: [] }), tools: [], prompts: { toolCalling: null as never } }),
      "prompts.toolCalling",
      /^createAgentForModel: `prompts.toolCalling` must be a @langchain\/core prompt template/,
    );
    const toolCalling = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    expect(() => createAgentForModel({ llm, tools: [], prompts: { toolCalling, react: createReactPrompt() } })).not.toThrow();
  });
});

describe("defineAgentType checks its definition", () => {
  it("refuses an unknown key, suggesting the one meant", () => {
    expectRefusal(() => defineAgentType({ ...definition, requirez: "text" } as never), "requirez", /^defineAgentType: unknown option `requirez`; did you mean `requires`\?/);
  });

  it("refuses an array as a definition, not as a bad name", () => {
    expectRefusal(() => defineAgentType([] as never), "definition", /^defineAgentType: pass a definition object/);
  });

  it("refuses `prompt: null` in create instead of using the default prompt", () => {
    const planner = defineAgentType(definition);
    expectRefusal(() => planner.create({ llm: textOnlyModel({ responses: [] }), tools: [], prompt: null as never }), "prompt", /^The "acme\/planner" agent type's create: `prompt` must be a prompt template, or left out/);
    expect(() => planner.create({ llm: textOnlyModel({ responses: [] }), tools: [], prompt: undefined })).not.toThrow();
  });
});

describe("the registry's duplicate-registration error", () => {
  it("says a type registered twice is already there, without suggesting the name it already has", () => {
    const planner = defineAgentType(definition);
    const registry = new AgentTypeRegistry().register(planner);
    const again = thrown(() => registry.register(planner)) as AgentTypeRegistryError;
    expect(again.reason).toBe("duplicate");
    expect(again.message).toContain('The agent type "acme/planner" is already registered (version 1.2.0, this same agent type); register it once.');
    expect(again.message).not.toContain('e.g. "acme/planner"');
    // The same type from another copy of its package (a second install): another object, same declaration.
    const copy = thrown(() => registry.register(defineAgentType(definition))) as AgentTypeRegistryError;
    expect(copy.message).toContain("the same agent type from another copy of its package");
    expect(copy.message).not.toContain('e.g. "acme/planner"');
    const builtIn = thrown(() => createAgentTypeRegistry().register(defineAgentType({ ...definition, name: "react", version: reactAgentType.version, description: reactAgentType.description }))) as AgentTypeRegistryError;
    expect(builtIn.message).toContain("the same agent type from another copy of its package");
    expect(builtIn.message).not.toContain("acme/react");
  });

  it("suggests a different scoped name for a name clash", () => {
    const registry = new AgentTypeRegistry().register(defineAgentType(definition));
    const clash = thrown(() => registry.register(defineAgentType({ ...definition, version: "2.0.0", description: "Another planner." }))) as AgentTypeRegistryError;
    expect(clash.reason).toBe("duplicate");
    expect(clash.message).toContain('An agent type named "acme/planner" is already registered (version 1.2.0)');
    expect(clash.message).toContain('"your-scope/planner"');
    const builtIn = thrown(() => createAgentTypeRegistry().register(defineAgentType({ ...definition, name: "react" }))) as AgentTypeRegistryError;
    expect(builtIn.message).toContain('"your-scope/react"');
  });
});

describe("builtInAgentTypes", () => {
  it("cannot be changed at run time", () => {
    expect(Object.isFrozen(builtInAgentTypes)).toBe(true);
    expect(() => (builtInAgentTypes as unknown as unknown[]).push(defineAgentType(definition))).toThrow(TypeError);
    expect(createAgentTypeRegistry().list()).toHaveLength(8);
  });
});
