import { InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { describe, expect, it } from "vitest";
import { AgentTypeRegistryError } from "../errors/agent-type-registry-error";
import { plannerDefinition } from "../test-utils/planner-definition";
import { textOnlyModel } from "../test-utils/text-only-model";
import { AgentTypeRegistry, createAgentTypeRegistry } from "./agent-type-registry";
import { builtInAgentTypes, reactAgentType } from "./built-in-agent-types";
import { defineAgentType, isAgentType } from "./define-agent-type";

const definition = plannerDefinition;

describe("defineAgentType", () => {
  it("creates agents with the default prompt when none is given", async () => {
    const planner = defineAgentType(definition);
    expect(isAgentType(planner)).toBe(true);
    expect(Object.isFrozen(planner)).toBe(true);
    const llm = textOnlyModel({ responses: ["Final Answer: done"] });
    const agent = planner.create({ llm, tools: [] });
    expect(await agent.invoke({ input: "go", steps: [] })).toMatchObject({ returnValues: { output: "done" } });
    expect(llm.calls[0]?.messages[0]?.text).toContain("Question: go");
  });

  it("refuses a create call without an options object, naming the agent type", () => {
    const planner = defineAgentType(definition);
    for (const options of [undefined, null, "go"]) {
      let error: unknown;
      try {
        planner.create(options as never);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).message).toMatch(/^The "acme\/planner" agent type's create: pass an options object such as \{ llm, tools \}, got (undefined|null|string)\.$/);
    }
  });

  it("validates the name, version, requirement and functions", () => {
    expect(() => defineAgentType({ ...definition, name: "Acme Planner" })).toThrow(/`name` must be lowercase/);
    expect(() => defineAgentType({ ...definition, name: "a/b/c" })).toThrow(InvalidArgumentError);
    expect(() => defineAgentType({ ...definition, version: "1.0" })).toThrow(/semver/);
    for (const version of ["01.0.0", "1.0.0-+", "1.0.0-01", "1.0.0-", "1.0.0+"]) expect(() => defineAgentType({ ...definition, version }), version).toThrow(/semver/);
    for (const version of ["0.1.0", "1.0.0-rc.1", "1.0.0-0A.is.legal+build.5"]) expect(defineAgentType({ ...definition, version }).version).toBe(version);
    expect(() => defineAgentType({ ...definition, requires: "vision" as "text" })).toThrow(/"tool-calling" or "text"/);
    expect(() => defineAgentType({ ...definition, create: undefined as never })).toThrow(/`create` must be a function/);
  });
});

describe("AgentTypeRegistry", () => {
  it("looks agent types up by name and lists them", () => {
    const planner = defineAgentType(definition);
    const registry = createAgentTypeRegistry().register(planner);
    expect(registry.get("acme/planner")).toBe(planner);
    expect(registry.has("acme/planner")).toBe(true);
    expect(registry.list().map((info) => info.name)).toEqual([...builtInAgentTypes.map((type) => type.name), "acme/planner"]);
    expect(registry.list().at(-1)).toEqual({ name: "acme/planner", version: "1.2.0", description: "Plans first.", requires: "text" });
  });

  it("refuses two registrations of one name", () => {
    const registry = new AgentTypeRegistry().register(defineAgentType(definition));
    let error: unknown;
    try {
      registry.register(defineAgentType({ ...definition, version: "2.0.0" }));
    } catch (caught) {
      error = caught;
    }
    expect(AgentTypeRegistryError.isInstance(error)).toBe(true);
    expect((error as AgentTypeRegistryError).reason).toBe("duplicate");
    expect((error as Error).message).toContain('"acme/planner" is already registered (version 1.2.0)');
    // Another version under the same name: most often a second install of the declaring package.
    expect((error as Error).message).toContain("two copies of it are installed: deduplicate the installs (npm dedupe");
    expect(() => createAgentTypeRegistry().register(reactAgentType)).toThrow(/"react" is already registered/);
  });

  it("names the unknown agent type and the registered ones", () => {
    const registry = new AgentTypeRegistry().register(reactAgentType);
    expect(() => registry.get("acme/missing" as string)).toThrow('No agent type named "acme/missing" is registered. Registered: "react".');
    const scoped = registry.register(defineAgentType(definition));
    expect(() => scoped.get("planner" as string)).toThrow('No agent type named "planner" is registered. Did you mean "acme/planner"? Registered: "react", "acme/planner".');
  });

  it("refuses values that are not agent types", () => {
    expect(() => new AgentTypeRegistry().register({ ...definition } as never)).toThrow(/defineAgentType/);
  });

  it("says what it got instead of an agent type, and how to get the agent type from it", () => {
    const planner = defineAgentType(definition);
    const refusal = (value: unknown) => {
      try {
        new AgentTypeRegistry().register(value as never);
      } catch (error) {
        expect(AgentTypeRegistryError.isInstance(error) && error.reason).toBe("invalid");
        return (error as Error).message;
      }
      throw new Error("register accepted a value that is not an agent type");
    };
    // `import * as pkg from "..."`, and the `{ default }` CommonJS interop gives.
    const namespace = { plannerAgentType: planner, createPlanner: definition.create };
    expect(refusal(namespace)).toContain('holding agent types in `module.plannerAgentType` ("acme/planner"). Pass the agent type itself, e.g. register(module.plannerAgentType).');
    expect(refusal({ default: namespace })).toContain("`module.default.plannerAgentType`");
    // An import name the package does not export.
    expect(refusal(undefined)).toContain("got undefined. Check the import");
    expect(refusal(planner.create)).toContain("got a function. Pass the agent type itself");
    expect(refusal("acme/planner")).toContain('got the string "acme/planner"');
    // A spread copy loses the mark defineAgentType sets.
    expect(refusal({ ...planner })).toContain('got "acme/planner", an object shaped like an agent type but without the mark defineAgentType sets');
    expect(refusal({ tools: [] })).toContain("got an object that is not one.");
  });

  it("defines every built-in agent type through defineAgentType", () => {
    expect(builtInAgentTypes.map((type) => [type.name, type.requires, isAgentType(type)])).toEqual([
      ["tool-calling", "tool-calling", true],
      ["openai-tools", "tool-calling", true],
      ["openai-functions", "tool-calling", true],
      ["react", "text", true],
      ["structured-chat", "text", true],
      ["xml", "text", true],
      ["self-ask-with-search", "text", true],
      ["json-chat", "text", true],
    ]);
  });

  it("builds every built-in agent type with its default prompt", async () => {
    for (const agentType of builtInAgentTypes) {
      const llm = new ScriptedChatModel({ responses: ["x"] });
      const tools = agentType.name === "self-ask-with-search" ? [intermediateAnswer()] : [];
      const agent = agentType.create({ llm, tools } as never);
      expect(typeof agent.invoke).toBe("function");
      expect(agentType.createOutputParser({ toolNames: [] })).toBeDefined();
      expect(agentType.formatScratchpad([{ action: { tool: "t", toolInput: "i", log: "l" }, observation: "o" }])).toBeTruthy();
    }
  });
});

function intermediateAnswer() {
  return { name: "Intermediate Answer", description: "search", schema: {}, invoke: async () => "" } as never;
}
