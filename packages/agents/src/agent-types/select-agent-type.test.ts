import { ScriptedChatModel } from "@agentrx/core/testing";
import { describe, expect, it } from "vitest";
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
});
