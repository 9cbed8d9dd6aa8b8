import { type AgentStep, FORCE_FINAL_ANSWER_INSTRUCTION, InvalidArgumentError } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import { PromptTemplate } from "@langchain/core/prompts";
import { Runnable, RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { describe, expect, it, vi } from "vitest";
import { formatLogToString } from "../format-scratchpad/format-log-to-string";
import { ReActSingleInputOutputParser } from "../react/react-single-input-output-parser";
import { createAgentRunnable } from "./create-agent-runnable";

const prompt = PromptTemplate.fromTemplate("{tools}|{input}|{agent_scratchpad}");

function parts() {
  return {
    name: "TestAgent",
    prompt,
    formatScratchpad: (steps: AgentStep[]) => formatLogToString(steps),
    appendFinalAnswerInstruction: (text: string) => `${text}<${FORCE_FINAL_ANSWER_INSTRUCTION}>`,
    parser: new ReActSingleInputOutputParser(),
    variables: { tools: "T" },
  };
}

function build(model: ScriptedChatModel, finalAnswerModel?: ScriptedChatModel) {
  return createAgentRunnable({ ...parts(), model, ...(finalAnswerModel ? { finalAnswerModel } : {}) });
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

  it("refuses a misspelt option instead of running without it, and a call without options", () => {
    const model = new ScriptedChatModel({ responses: [] });
    // `finalModel` ignored, the forceFinalAnswer turn would quietly call `model`, tools and all.
    expect(() => createAgentRunnable({ ...parts(), model, finalModel: model } as never)).toThrow(
      "createAgentRunnable: unknown option `finalModel`. Known options: name, prompt, model, finalAnswerModel, formatScratchpad, appendFinalAnswerInstruction, parser, variables, overrides.",
    );
    expect(() => createAgentRunnable({ ...parts(), model, variable: { tools: "T" } } as never)).toThrow(/unknown option `variable`; did you mean `variables`\?/);
    expect(() => createAgentRunnable({ ...parts(), model, overrides: { llm: model, tools: [], model: () => model, parsers: () => new ReActSingleInputOutputParser() } } as never)).toThrow(
      /unknown option `overrides\.parsers`; did you mean `parser`\?/,
    );
    expect(() => createAgentRunnable(undefined as never)).toThrow(/^createAgentRunnable: pass an options object \{ name, prompt, model,/);
  });

  it("is a visible pipeline: getGraph() draws scratchpad → prompt → model → parser", () => {
    const graph = build(new ScriptedChatModel({ responses: [] })).getGraph();
    expect(Object.values(graph.nodes).map((node) => node.name)).toEqual([
      "FormatAgentScratchpadInput",
      "FormatAgentScratchpad",
      "PromptTemplate",
      "ScriptedChatModel",
      "ReActSingleInputOutputParser",
      "ReActSingleInputOutputParserOutput",
    ]);
    expect(graph.edges.map((edge) => `${graph.nodes[edge.source]?.name} -> ${graph.nodes[edge.target]?.name}`).sort()).toEqual([
      "FormatAgentScratchpad -> PromptTemplate",
      "FormatAgentScratchpadInput -> FormatAgentScratchpad",
      "PromptTemplate -> ScriptedChatModel",
      "ReActSingleInputOutputParser -> ReActSingleInputOutputParserOutput",
      "ScriptedChatModel -> ReActSingleInputOutputParser",
    ]);
  });

  it("traces one run named after the agent, with the four steps as its children (final-answer model on forceFinalAnswer)", async () => {
    const model = new ScriptedChatModel({ responses: ["Final Answer: a"] });
    const finalModel = new ScriptedChatModel({ responses: ["Final Answer: b"] });
    const agent = build(model, finalModel);
    const trace = async (input: Parameters<typeof agent.invoke>[0], runName?: string) => {
      const recorder = new RunRecorder();
      await agent.invoke(input, { callbacks: [recorder], ...(runName ? { runName } : {}) });
      return recorder.runs;
    };
    expect(await trace({ input: "Q", steps: [] })).toEqual([
      "TestAgent (root)",
      "FormatAgentScratchpad (child)",
      "PromptTemplate (child)",
      "model: ScriptedChatModel (child)",
      "ReActSingleInputOutputParser (child)",
    ]);
    expect(await trace({ input: "Q", steps: [], forceFinalAnswer: true }, "Mine")).toEqual([
      "Mine (root)",
      "FormatAgentScratchpad (child)",
      "PromptTemplate (child)",
      "model: ScriptedChatModel (child)",
      "ReActSingleInputOutputParser (child)",
    ]);
    expect([model.calls.length, finalModel.calls.length]).toEqual([1, 1]);
  });

  it("stops waiting when the caller's signal aborts during the model call", async () => {
    const agent = build(new ScriptedChatModel({ responses: ["Final Answer: late"], latencyMs: 1_000 }));
    const controller = new AbortController();
    const turn = agent.invoke({ input: "Q", steps: [] }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("stop now")), 5);
    await expect(turn).rejects.toThrow("stop now");
  });

  it("gives the signal to the model and to steps of other kinds, not to the steps that would only race it", async () => {
    // Every step here but the model runs through Runnable._callWithConfig: record what each got.
    const seen: string[] = [];
    const prototype = Runnable.prototype as never as { _callWithConfig: (...args: unknown[]) => unknown };
    const realCallWithConfig = prototype._callWithConfig;
    const spy = vi.spyOn(prototype, "_callWithConfig").mockImplementation(function (this: Runnable, ...args: unknown[]) {
      const config = args[2] as RunnableConfig | undefined;
      seen.push(`${this.getName()}: ${config?.signal === undefined ? "no signal" : "signal"}`);
      return realCallWithConfig.apply(this, args);
    });
    try {
      const signal = new AbortController().signal;
      const scripted = new ScriptedChatModel({ responses: ["Final Answer: a", "Final Answer: b"] });
      // The model as a lambda, so that what it is given shows.
      const model = RunnableLambda.from((messages: BaseLanguageModelInput, config?: RunnableConfig) => scripted.invoke(messages, config));
      await createAgentRunnable({ ...parts(), model: model as never }).invoke({ input: "Q", steps: [] }, { signal });
      expect(seen).toEqual(["FormatAgentScratchpad: no signal", "PromptTemplate: no signal", "RunnableLambda: signal", "ReActSingleInputOutputParser: no signal"]);
      seen.length = 0;
      // A parser of its own kind (not a @langchain/core output parser) may use the signal: it gets it.
      const parser = RunnableLambda.from((message: BaseMessage) => new ReActSingleInputOutputParser().parse(String(message.content)));
      await createAgentRunnable({ ...parts(), model: scripted, parser: parser as never }).invoke({ input: "Q", steps: [] }, { signal });
      expect(seen).toEqual(["FormatAgentScratchpad: no signal", "PromptTemplate: no signal", "RunnableLambda: signal"]);
    } finally {
      spy.mockRestore();
    }
  });

  it("starts no later step once the signal has aborted between steps", async () => {
    const model = new ScriptedChatModel({ responses: ["Final Answer: never"] });
    const controller = new AbortController();
    const agent = createAgentRunnable({
      name: "TestAgent",
      prompt,
      model,
      // The scratchpad is formatted, then the caller cancels before the prompt and the model run.
      formatScratchpad: (steps) => (controller.abort(new Error("cancelled while formatting")), formatLogToString(steps)),
      appendFinalAnswerInstruction: (text) => text,
      parser: new ReActSingleInputOutputParser(),
      variables: { tools: "T" },
    });
    await expect(agent.invoke({ input: "Q", steps: [] }, { signal: controller.signal })).rejects.toThrow("cancelled while formatting");
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(model.calls).toHaveLength(0);
  });

  it("rejects with the signal's reason as @langchain/core's runnables do (a string as an Error, else Error('Aborted'))", async () => {
    const slow = () => build(new ScriptedChatModel({ responses: ["Final Answer: late"], latencyMs: 1_000 }));
    const abortedWith = async (reason: unknown) => {
      const controller = new AbortController();
      const turn = slow().invoke({ input: "Q", steps: [] }, { signal: controller.signal });
      setTimeout(() => controller.abort(reason), 5);
      return turn.then(() => undefined, (error: unknown) => error);
    };
    const text = await abortedWith("by text");
    expect(text).toBeInstanceOf(Error);
    expect((text as Error).message).toBe("by text");
    expect(((await abortedWith(42)) as Error).message).toBe("Aborted");
    // Already aborted: rejects without calling the model.
    const model = new ScriptedChatModel({ responses: ["Final Answer: x"] });
    await expect(build(model).invoke({ input: "Q", steps: [] }, { signal: AbortSignal.abort(new Error("before")) })).rejects.toThrow("before");
    expect(model.calls).toHaveLength(0);
  });

  it("streams its output and keeps input errors as they were", async () => {
    const agent = build(new ScriptedChatModel({ responses: ["Final Answer: s"] }));
    const chunks = [];
    for await (const chunk of await agent.stream({ input: "Q", steps: [] })) chunks.push(chunk);
    expect(chunks).toEqual([{ returnValues: { output: "s" }, log: "Final Answer: s" }]);
    await expect(agent.invoke(null as never)).rejects.toThrow(/the agent's input must be an object such as \{ input, steps \}, got null/);
  });
});

/** Records each run's name and whether it is the root, in start order. */
class RunRecorder extends BaseCallbackHandler {
  name = "RunRecorder";
  readonly runs: string[] = [];

  override handleChainStart(_chain: Serialized, _inputs: unknown, _runId: string, parentRunId?: string, ...rest: unknown[]): void {
    this.runs.push(`${String(rest[3])} (${parentRunId ? "child" : "root"})`);
  }

  override handleChatModelStart(llm: Serialized, _messages: unknown, _runId: string, parentRunId?: string): void {
    this.runs.push(`model: ${llm.id.at(-1)} (${parentRunId ? "child" : "root"})`);
  }
}
