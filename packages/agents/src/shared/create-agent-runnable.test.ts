import { FORCE_FINAL_ANSWER_INSTRUCTION, InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { PromptTemplate } from "@langchain/core/prompts";
import { describe, expect, it } from "vitest";
import { formatLogToString } from "../format-scratchpad/format-log-to-string";
import { ReActSingleInputOutputParser } from "../react/react-single-input-output-parser";
import { createAgentRunnable } from "./create-agent-runnable";

const prompt = PromptTemplate.fromTemplate("{tools}|{input}|{agent_scratchpad}");

function build(model: ScriptedChatModel, finalAnswerModel?: ScriptedChatModel) {
  return createAgentRunnable({
    name: "TestAgent",
    prompt,
    model,
    ...(finalAnswerModel ? { finalAnswerModel } : {}),
    formatScratchpad: (steps) => formatLogToString(steps),
    appendFinalAnswerInstruction: (text) => `${text}<${FORCE_FINAL_ANSWER_INSTRUCTION}>`,
    parser: new ReActSingleInputOutputParser(),
    variables: { tools: "T" },
  });
}

describe("createAgentRunnable", () => {
  it("fills the prompt with the variables, inputs and scratchpad, then parses the reply", async () => {
    const model = new ScriptedChatModel({ responses: ["Final Answer: ok"] });
    const output = await build(model).invoke({ input: "Q", steps: [{ action: { tool: "t", toolInput: "i", log: "L" }, observation: "O" }] });
    expect(output).toEqual({ returnValues: { output: "ok" }, log: "Final Answer: ok" });
    expect(model.calls[0]?.messages[0]?.text).toBe("T|Q|L\nObservation: O\nThought: ");
  });

  it("uses the final-answer model and instruction on forceFinalAnswer", async () => {
    const model = new ScriptedChatModel({ responses: [] });
    const finalModel = new ScriptedChatModel({ responses: ["Final Answer: done"] });
    await build(model, finalModel).invoke({ input: "Q", steps: [], forceFinalAnswer: true });
    expect(model.calls).toHaveLength(0);
    expect(finalModel.calls[0]?.messages[0]?.text).toBe(`T|Q|<${FORCE_FINAL_ANSWER_INSTRUCTION}>`);
  });

  it("treats missing steps as none and rejects steps that are not an array", async () => {
    const model = new ScriptedChatModel({ responses: ["Final Answer: a"] });
    const agent = build(model);
    await expect(agent.invoke({ input: "Q" } as never)).resolves.toMatchObject({ returnValues: { output: "a" } });
    await expect(agent.invoke({ input: "Q", steps: "x" } as never)).rejects.toThrow(/`steps` must be an array/);
  });

  it("validates its options", () => {
    const model = new ScriptedChatModel({ responses: [] });
    expect(() =>
      createAgentRunnable({
        name: "X",
        prompt,
        model,
        formatScratchpad: () => "",
        appendFinalAnswerInstruction: () => "",
        parser: undefined as never,
      }),
    ).toThrow(InvalidArgumentError);
    expect(() =>
      createAgentRunnable({ name: "X", prompt: {} as never, model, formatScratchpad: () => "", appendFinalAnswerInstruction: () => "", parser: new ReActSingleInputOutputParser() }),
    ).toThrow(/`prompt` must be a @langchain\/core prompt template/);
  });
});
