import {
  formatToToolMessages,
  InvalidPromptError,
  renderTextDescription,
  ToolCallingAgentOutputParser,
  UnsupportedModelError,
} from "@agentrx/agents";
import {
  FORCE_FINAL_ANSWER_INSTRUCTION,
  InvalidArgumentError,
  isFinalAnswerTool,
  type AgentInput,
  type AgentOutput,
  type AgentStep,
  type ToolAgentAction,
} from "@agentrx/core";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BasePromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda, type Runnable, type RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createPlannerPrompt } from "./plan-and-execute-prompts";

/** The `response_metadata` key that marks the plan message in an action's `messageLog`. */
export const PLAN_METADATA_KEY = "agentrx_plan";

/** Options of {@link createPlanAndExecuteAgent}. */
export interface CreatePlanAndExecuteAgentOptions {
  /** A chat model with tool calling (`bindTools`); it plans without tools and executes with them. */
  llm: BaseChatModel;
  /** The tools the plan is carried out with; names must be unique. */
  tools: StructuredToolInterface[];
  /** The executor prompt: a chat prompt with a `MessagesPlaceholder("agent_scratchpad")`. */
  prompt: BasePromptTemplate;
  /**
   * The planner prompt; it receives `input`, `tools` (name: description lines) and `max_steps`.
   * @default createPlannerPrompt()
   */
  plannerPrompt?: BasePromptTemplate;
  /**
   * The most steps the plan may have (told to the planner).
   * @default 5
   */
  maxPlanSteps?: number;
}

/**
 * Creates a plan-and-execute agent. On its first turn the model writes a numbered plan (called
 * without tools, with the planner prompt); the plan then heads the scratchpad as the assistant's
 * own message, and the model carries it out with native tool calls, several per turn if it likes,
 * until it answers in plain text. The plan travels in the `messageLog` of the first turn's
 * actions, so the agent stays stateless: any executor run can resume from its steps. On
 * `forceFinalAnswer` the model is called without tools (or with the executor's final-answer tool
 * alone, forced, when `tools` has it: `finalAnswerTool(schema)` with `outputSchema`) and the
 * scratchpad ends with the final-answer instruction.
 *
 * @example
 * ```ts
 * import { createExecutorPrompt, createPlanAndExecuteAgent } from "@agentrx-community/plan-and-execute";
 * import { ScriptedChatModel } from "@agentrx/core/testing";
 *
 * const agent = createPlanAndExecuteAgent({
 *   llm: new ScriptedChatModel({ responses: ["1. Answer directly.", "Hello!"] }),
 *   tools: [],
 *   prompt: createExecutorPrompt(),
 * });
 * console.log(await agent.invoke({ input: "Say hello", steps: [] })); // { returnValues: { output: "Hello!" }, ... }
 * ```
 */
export function createPlanAndExecuteAgent(options: CreatePlanAndExecuteAgentOptions): Runnable<AgentInput, AgentOutput> {
  const { llm, tools, prompt, plannerPrompt = createPlannerPrompt(), maxPlanSteps = 5 } = validate(options);
  const withTools = (llm.bindTools as NonNullable<BaseChatModel["bindTools"]>).call(llm, tools);
  const answerTool = tools.find(isFinalAnswerTool);
  const parser = new ToolCallingAgentOutputParser();
  const toolDescriptions = renderTextDescription(tools);

  const run = async (input: AgentInput, config?: RunnableConfig): Promise<AgentOutput> => {
    const { steps = [], forceFinalAnswer = false, ...inputs } = input;
    const scratchpad = formatToToolMessages(steps);
    if (forceFinalAnswer) {
      const value = await prompt.invoke({ ...inputs, agent_scratchpad: [...scratchpad, new HumanMessage(FORCE_FINAL_ANSWER_INSTRUCTION)] }, config);
      // With the executor's final-answer tool (outputSchema), that tool alone, forced: the answer stays typed.
      const final = answerTool === undefined ? llm : (llm.bindTools as NonNullable<BaseChatModel["bindTools"]>).call(llm, [answerTool], { tool_choice: answerTool.name });
      return parser.invoke(await final.invoke(value, config), config);
    }
    let plan: AIMessage | undefined;
    if (!hasPlan(steps)) {
      const plannerInput = await plannerPrompt.invoke({ ...inputs, tools: toolDescriptions, max_steps: maxPlanSteps }, config);
      const planText = (await llm.invoke(plannerInput, config)).text.trim() || "1. Answer the request directly.";
      plan = new AIMessage({ content: `Plan:\n${planText}`, response_metadata: { [PLAN_METADATA_KEY]: true } });
    }
    const value = await prompt.invoke({ ...inputs, agent_scratchpad: plan ? [plan, ...scratchpad] : scratchpad }, config);
    const output = await parser.invoke(await withTools.invoke(value, config), config);
    if (!plan || !Array.isArray(output)) return output;
    const planMessage = plan;
    return output.map((action: ToolAgentAction) => ({ ...action, messageLog: [planMessage, ...action.messageLog] }));
  };
  return RunnableLambda.from(run).withConfig({ runName: "PlanAndExecuteAgent" });
}

function hasPlan(steps: readonly AgentStep[]): boolean {
  return steps.some(({ action }) => {
    const log = (action as { messageLog?: BaseMessage[] }).messageLog;
    return Array.isArray(log) && log.some((message) => (message.response_metadata as Record<string, unknown> | undefined)?.[PLAN_METADATA_KEY] === true);
  });
}

function validate(options: CreatePlanAndExecuteAgentOptions): CreatePlanAndExecuteAgentOptions {
  const name = "createPlanAndExecuteAgent";
  const { llm, tools, prompt, plannerPrompt, maxPlanSteps } = options ?? ({} as CreatePlanAndExecuteAgentOptions);
  if (typeof (llm as { bindTools?: unknown } | undefined)?.bindTools !== "function") {
    throw new UnsupportedModelError({
      agentType: "agentrx-community/plan-and-execute",
      requirement: "tool-calling",
      message: `${name}: the model has no bindTools method; the plan-and-execute agent needs a model with tool calling.`,
    });
  }
  if (!Array.isArray(tools)) {
    throw new InvalidArgumentError({ argument: "tools", value: tools, message: `${name}: \`tools\` must be an array of tools.` });
  }
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) {
      throw new InvalidArgumentError({ argument: "tools", value: tools, message: `${name}: two tools are named "${tool.name}"; tool names must be unique.` });
    }
    names.add(tool.name);
  }
  if (prompt === undefined || prompt === null) {
    throw new InvalidArgumentError({
      argument: "prompt",
      value: prompt,
      message:
        `${name}: \`prompt\` is required: pass createExecutorPrompt() or a chat prompt of your own with a ` +
        'MessagesPlaceholder("agent_scratchpad"), or build the agent with planAndExecuteAgentType.create, which uses createExecutorPrompt() by default.',
    });
  }
  requireVariables(prompt, ["agent_scratchpad"], "prompt");
  if (plannerPrompt !== undefined) requireVariables(plannerPrompt, ["input"], "plannerPrompt");
  if (maxPlanSteps !== undefined && !(Number.isInteger(maxPlanSteps) && maxPlanSteps > 0)) {
    throw new InvalidArgumentError({
      argument: "maxPlanSteps",
      value: maxPlanSteps,
      message: `${name}: \`maxPlanSteps\` must be a positive integer, got ${String(maxPlanSteps)}.`,
    });
  }
  return options;
}

function requireVariables(prompt: BasePromptTemplate | undefined, required: string[], option: string): void {
  const present = new Set([...(prompt?.inputVariables ?? []), ...Object.keys(prompt?.partialVariables ?? {})]);
  const missing = required.filter((variable) => !present.has(variable));
  if (missing.length > 0) {
    throw new InvalidPromptError({
      agentType: "agentrx-community/plan-and-execute",
      missingVariables: missing,
      message: `createPlanAndExecuteAgent: \`${option}\` is missing the input variable${missing.length > 1 ? "s" : ""} ${missing.map((v) => `"${v}"`).join(", ")}.`,
    });
  }
}
