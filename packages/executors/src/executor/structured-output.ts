import { EXCEPTION_TOOL_NAME, isFinalAnswerTool as isMarkedFinalAnswerTool, isToolAgentAction, markFinalAnswerTool, valueToText, type AgentAction, type AgentFinish, type AgentStep, type ToolAgentAction } from "@agentrx/core";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import type { z } from "zod";

/** The name of the tool a tool-calling model answers through when the executor has an `outputSchema`. */
export const FINAL_ANSWER_TOOL = "final_answer";

/**
 * The tool a tool-calling agent answers through when its executor has an `outputSchema`: bind it
 * with the agent's tools (`createToolCallingAgent({ llm, tools: [...tools, finalAnswerTool(schema)], prompt })`);
 * the executor takes a call of it as the final answer, validated, and never runs it. On the
 * `earlyStoppingMethod: "generate"` call a built-in tool-calling agent binds only this tool and
 * forces it (unforced for a model with extended thinking on; see docs/structured-output.md).
 *
 * @example
 * ```ts
 * import { finalAnswerTool } from "@agentrx/executors";
 * import { z } from "zod";
 *
 * const answer = finalAnswerTool(z.object({ city: z.string(), celsius: z.number() }));
 * console.log(answer.name); // "final_answer"
 * ```
 */
export function finalAnswerTool(schema: z.ZodType<Record<string, unknown>>): StructuredToolInterface {
  const made = tool(async (input) => JSON.stringify(input), {
    name: FINAL_ANSWER_TOOL,
    description: "Call this once you have the final answer, with the answer in the required format. Do not answer in plain text.",
    schema: schema as never,
  }) as unknown as StructuredToolInterface;
  return markFinalAnswerTool(made);
}

/** Whether `tool` was made by {@link finalAnswerTool} (not a tool of the user's that has its name). @internal */
export function isFinalAnswerTool(tool: object): boolean {
  return isMarkedFinalAnswerTool(tool);
}

/** What checking a final answer against the schema gives. @internal */
export type Checked = { ok: true; value: unknown; text: string } | { ok: false; issues: string; given: unknown };

type ParseResult = { success: boolean; data?: unknown; error?: { issues?: { path: PropertyKey[]; message: string }[]; message?: string } };

interface SafeParser {
  safeParse(value: unknown): ParseResult;
  safeParseAsync?(value: unknown): Promise<ParseResult>;
}

/**
 * Checks a finish against the schema: its `returnValues.structuredOutput` (what the final-answer
 * tool was called with), else its output text as JSON (a fenced code block is accepted: the first
 * tagged `json`, in any case, else the first untagged one). When the text is not JSON, or its JSON
 * does not fit, the text itself is checked too, so a schema of a string (`z.string()`, `z.enum`)
 * takes a plain answer (`hello`, or `123` as the text "123"). A schema that has `safeParseAsync`
 * (every zod schema) is checked with it alone, so asynchronous refinements and transforms work
 * wherever they are and run once per check (a promise then); a refinement that throws or rejects
 * rejects it.
 *
 * @internal
 */
export function checkFinalAnswer(schema: SafeParser, finish: AgentFinish): Checked | Promise<Checked> {
  const values = finish.returnValues;
  const structured: unknown = values["structuredOutput"];
  const output = values["output"];
  if (structured !== undefined || typeof output !== "string") return checkValue(schema, structured !== undefined ? structured : output);
  const parsed = parseJsonAnswer(output);
  const text = output.trim();
  if (!parsed.ok) {
    // Not JSON: the text itself, for a schema of a string; else what is wrong is that it is not JSON.
    return thenChecked(checkValue(schema, text), (asText) => (asText.ok ? asText : { ok: false, issues: parsed.problem, given: output }));
  }
  return thenChecked(checkValue(schema, parsed.value), (asJson) => (asJson.ok || typeof parsed.value === "string" ? asJson : thenChecked(checkValue(schema, text), (asText) => (asText.ok ? asText : asJson))));
}

/** `f` of a check, now or once an asynchronous one settles. */
function thenChecked(result: Checked | Promise<Checked>, f: (checked: Checked) => Checked | Promise<Checked>): Checked | Promise<Checked> {
  return result instanceof Promise ? result.then(f) : f(result);
}

/**
 * Checks `candidate` against the schema: with `safeParseAsync` when it has it. (A synchronous
 * `safeParse` first would run every synchronous refinement twice, and zod 4 reports an
 * asynchronous check inside an object with a plain `TypeError`, not one that says to parse
 * asynchronously.)
 */
function checkValue(schema: SafeParser, candidate: unknown): Checked | Promise<Checked> {
  if (typeof schema.safeParseAsync === "function") return schema.safeParseAsync(candidate).then((parsed) => checked(parsed, candidate));
  return checked(schema.safeParse(candidate), candidate);
}

function checked(result: ParseResult, candidate: unknown): Checked {
  if (result.success) return { ok: true, value: result.data, text: JSON.stringify(result.data) };
  const issues = result.error?.issues?.map((issue) => `${issue.path.map(String).join(".") || "(answer)"}: ${issue.message}`).join("; ");
  return { ok: false, issues: issues || result.error?.message || "invalid", given: candidate };
}

/**
 * The final-answer tool call each finish of {@link finalAnswerCall} was made from, when it is a
 * tool-calling model's (it has the model's message and its call id), for {@link invalidAnswerStep}.
 * Kept beside the finish rather than in it: a finish's fields go into the run's output.
 */
const answerCalls = new WeakMap<AgentFinish, Pick<ToolAgentAction, "toolCallId" | "messageLog">>();

/** A finish from a call of the final-answer tool, if the actions contain one. @internal */
export function finalAnswerCall(actions: readonly AgentAction[]): AgentFinish | undefined {
  const call = actions.find((action) => action.tool === FINAL_ANSWER_TOOL);
  if (call === undefined) return undefined;
  const finish: AgentFinish = { returnValues: { output: "", structuredOutput: call.toolInput }, log: call.log };
  if (isToolAgentAction(call) && Array.isArray(call.messageLog)) answerCalls.set(finish, { toolCallId: call.toolCallId, messageLog: call.messageLog });
  return finish;
}

/**
 * The step that sends an invalid final answer back to the model: an `_Exception` step (a handled
 * parsing error) whose observation names the problem. When the answer (`finish`) is a tool-calling
 * model's call of the final-answer tool (see {@link finalAnswerCall}), the step
 * keeps that call's message and id (`messageLog`, `toolCallId`): the scratchpad then shows the model
 * its own message (reasoning and all, with only that call) answered by a tool message with the
 * problem, as a provider expects every tool call to be answered. Any other answer (a text agent's)
 * goes back as its text followed by the problem.
 *
 * @internal
 */
export function invalidAnswerStep(issues: string, given: unknown, finish?: AgentFinish): AgentStep {
  const observation = `Your final answer does not fit the required format: ${issues}. Answer again, in that format.`;
  const log = valueToText(given);
  const call = finish === undefined ? undefined : answerCalls.get(finish);
  const action: AgentAction = { tool: EXCEPTION_TOOL_NAME, toolInput: observation, log };
  if (call === undefined) return { action, observation };
  const answered: ToolAgentAction = { ...action, toolCallId: call.toolCallId, messageLog: call.messageLog };
  return { action: answered, observation };
}

function parseJsonAnswer(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const body = (fencedJson(text) ?? text).trim();
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    return { ok: false, problem: `the answer is not JSON (${(error as Error).message})` };
  }
}

/** The body of the text's first code block tagged `json` (any case), else of its first untagged one. */
function fencedJson(text: string): string | undefined {
  let untagged: string | undefined;
  for (const match of text.matchAll(/```([^\s`]*)[^\S\n]*\n?([\s\S]*?)```/g)) {
    const tag = (match[1] ?? "").toLowerCase();
    if (tag === "json") return match[2];
    if (tag === "" && untagged === undefined) untagged = match[2];
  }
  return untagged;
}
