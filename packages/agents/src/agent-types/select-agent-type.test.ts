import { ScriptedChatModel } from "@agentrx/core/testing";
import { InvalidArgumentError } from "@agentrx/core";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { textOnlyModel } from "../test-utils/text-only-model";
import { createAgentForModel, modelSupportsToolCalling, selectAgentType } from "./select-agent-type";

describe("selectAgentType", () => {
  it("picks the tool-calling agent for a model with bindTools and ReAct otherwise", () => {
    expect(selectAgentType({ llm: new ScriptedChatModel({ responses: [] }) }).name).toBe("tool-calling");
    expect(selectAgentType({ llm: textOnlyModel({ responses: [] }) }).name).toBe("react");
  });

  it("honours the model profile and an explicit override", () => {
    const declaredNo = new ScriptedChatModel({ responses: [] });
    Object.defineProperty(declaredNo, "profile", { value: { toolCalling: false } });
    expect(modelSupportsToolCalling(declaredNo)).toBe(false);
    expect(selectAgentType({ llm: declaredNo }).name).toBe("react");
    expect(selectAgentType({ llm: new ScriptedChatModel({ responses: [] }), toolCalling: false }).name).toBe("react");
    expect(modelSupportsToolCalling(undefined)).toBe(false);
  });

  it("builds the chosen agent with its default prompt", async () => {
    const toolModel = new ScriptedChatModel({ responses: ["Hi"] });
    await createAgentForModel({ llm: toolModel, tools: [] }).invoke({ input: "hello", steps: [] });
    expect(toolModel.calls[0]?.messages.map((m) => m.getType())).toEqual(["system", "human"]);
    const textModel = textOnlyModel({ responses: ["Final Answer: Hi"] });
    const output = await createAgentForModel({ llm: textModel, tools: [] }).invoke({ input: "hello", steps: [] });
    expect(output).toMatchObject({ returnValues: { output: "Hi" } });
    expect(textModel.calls[0]?.stop).toEqual(["\nObservation:"]);
  });

  it("refuses a misspelt option instead of ignoring it and using the default prompt", () => {
    const llm = new ScriptedChatModel({ responses: [] });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const misspelt = (options: object) => {
      try {
        createAgentForModel({ llm, tools: [], ...options });
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const single = misspelt({ prompt });
    expect(InvalidArgumentError.isInstance(single)).toBe(true);
    expect(single).toMatchObject({ argument: "prompt" });
    expect((single as Error).message).toContain("prompts");
    const inner = misspelt({ prompts: { tool_calling: prompt } });
    expect(InvalidArgumentError.isInstance(inner)).toBe(true);
    expect(inner).toMatchObject({ argument: "prompts.tool_calling" });
    for (const options of [undefined, null, "llm"]) {
      expect(() => createAgentForModel(options as never)).toThrow(/createAgentForModel: pass an options object/);
      expect(() => selectAgentType(options as never)).toThrow(/selectAgentType: pass an options object/);
    }
  });

  it("names createAgentForModel and `prompts.<strategy>`, not the agent constructor it calls, in the agent's errors", () => {
    const search = tool(async () => "x", { name: "search", description: "Searches.", schema: z.object({}) });
    for (const llm of [new ScriptedChatModel({ responses: [] }), textOnlyModel({ responses: [] })]) {
      expect(() => createAgentForModel({ llm, tools: [search, search] })).toThrow(
        'createAgentForModel: `tools[0]` and `tools[1]` are both named "search"; tool names must be unique. Rename one of them.',
      );
      expect(() => createAgentForModel({ llm, tools: "search" as never })).toThrow(/^createAgentForModel: `tools` must be an array/);
    }
    const noScratchpad = ChatPromptTemplate.fromMessages([["human", "{input}"]]);
    expect(() => createAgentForModel({ llm: new ScriptedChatModel({ responses: [] }), tools: [], prompts: { toolCalling: noScratchpad } })).toThrow(
      /^createAgentForModel: the prompt `prompts.toolCalling` is missing the input variable "agent_scratchpad"\./,
    );
    expect(() => createAgentForModel({ llm: textOnlyModel({ responses: [] }), tools: [], prompts: { react: noScratchpad } })).toThrow(
      /^createAgentForModel: the prompt `prompts.react` is missing the input variables "tools", "tool_names", "agent_scratchpad"\./,
    );
    const notPrompt = (() => {
      try {
        createAgentForModel({ llm: textOnlyModel({ responses: [] }), tools: [], prompts: { react: "Answer: {input}" as never } });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(notPrompt).toMatchObject({ argument: "prompts.react" });
    expect((notPrompt as Error).message).toMatch(/^createAgentForModel: `prompts.react` must be a @langchain\/core prompt template/);
    expect(() => createAgentForModel({ llm: undefined as never, tools: [] })).toThrow(/^createAgentForModel: `llm` must be a @langchain\/core language model/);
  });
});
