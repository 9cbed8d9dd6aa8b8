import { InvalidArgumentError, getToolApproval } from "@agentrx/core";
import type { AgentAction } from "@agentrx/core";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Validator } from "@langchain/core/utils/json_schema";
import type { Decision, Interrupt } from "./events";

/** Decides whether an action needs a person's approval. @internal */
export type ApprovalCheck = (action: AgentAction, context: { runId: string; threadId?: string }) => Promise<boolean>;

/**
 * The approval check of an executor: a tool marked with `withApproval`, or the executor's
 * `needsApproval` option; undefined when nothing ever needs approval (the loop then skips it).
 *
 * @internal
 */
export function approvalCheck(
  toolsByName: ReadonlyMap<string, StructuredToolInterface>,
  needsApproval: ((action: AgentAction) => boolean | Promise<boolean>) | undefined,
): ApprovalCheck | undefined {
  const marked = [...toolsByName.values()].some((tool) => getToolApproval(tool) !== undefined);
  if (!marked && needsApproval === undefined) return undefined;
  return async (action, context) => {
    const approval = getToolApproval(toolsByName.get(action.tool));
    if (approval === true) return true;
    if (typeof approval === "function" && (await approval(action.toolInput, { ...context, action }))) return true;
    return needsApproval !== undefined && (await needsApproval(action)) === true;
  };
}

/** The interrupts of a turn: the actions that need approval, with stable ids. @internal */
export async function interruptsOf(actions: readonly AgentAction[], iteration: number, check: ApprovalCheck, context: { runId: string; threadId?: string }): Promise<Interrupt[]> {
  const needs = await Promise.all(actions.map((action) => check(action, context)));
  const interrupts: Interrupt[] = [];
  needs.forEach((need, index) => {
    if (!need) return;
    const action = actions[index] as AgentAction;
    const interrupt: Interrupt = { id: `call-${iteration}-${index}`, tool: action.tool, toolInput: action.toolInput, iteration, index, reason: "approval" };
    const toolCallId = (action as { toolCallId?: unknown }).toolCallId;
    if (typeof toolCallId === "string") interrupt.toolCallId = toolCallId;
    interrupts.push(interrupt);
  });
  return interrupts;
}

/** The observation of a rejected tool call without a message of its own. */
export const REJECTED_OBSERVATION = "The user rejected this tool call.";

/**
 * Checks `decisions` against the interrupts waiting for one: every id must be waiting, every
 * decision well-formed, every edited input valid for its tool's schema.
 *
 * @throws InvalidArgumentError naming the interrupt and what is wrong
 * @internal
 */
export function checkDecisions(
  runId: string,
  decisions: unknown,
  waiting: readonly Interrupt[],
  toolsByName: ReadonlyMap<string, StructuredToolInterface>,
): Record<string, Decision> {
  if (typeof decisions !== "object" || decisions === null || Array.isArray(decisions)) {
    throw invalid(decisions, `\`decisions\` must be an object from interrupt id to decision, got ${Array.isArray(decisions) ? "an array" : String(decisions)}.`);
  }
  const byId = new Map(waiting.map((interrupt) => [interrupt.id, interrupt]));
  const out: Record<string, Decision> = {};
  for (const [id, decision] of Object.entries(decisions)) {
    const interrupt = byId.get(id);
    if (interrupt === undefined) {
      const ids = [...byId.keys()];
      throw invalid(decisions, `run "${runId}" has no interrupt "${id}" waiting for a decision (${ids.length ? `waiting: ${ids.join(", ")}` : "none is waiting"}).`);
    }
    out[id] = checkDecision(id, decision, interrupt, toolsByName);
  }
  return out;
}

function checkDecision(id: string, decision: unknown, interrupt: Interrupt, toolsByName: ReadonlyMap<string, StructuredToolInterface>): Decision {
  if (decision === "approve") return decision;
  const type = (decision as { type?: unknown } | null)?.type;
  if (type === "approve") return { type };
  if (type === "reject") {
    const message = (decision as { message?: unknown }).message;
    if (message !== undefined && typeof message !== "string") throw invalid(decision, `the reject decision for "${id}" has a \`message\` that is not a string.`);
    if (typeof message === "string" && message.length > MAX_DECISION_CHARS) throw invalid(decision, `the reject decision for "${id}" has a message of ${message.length} characters; at most ${MAX_DECISION_CHARS} are accepted.`);
    return message === undefined ? { type } : { type, message };
  }
  if (type === "result") {
    const observation = (decision as { observation?: unknown }).observation;
    if (typeof observation !== "string") throw invalid(decision, `the result decision for "${id}" needs an \`observation\` string (the tool call's result, as the model will see it).`);
    if (observation.length > MAX_DECISION_CHARS) throw invalid(decision, `the result decision for "${id}" has an observation of ${observation.length} characters; at most ${MAX_DECISION_CHARS} are accepted.`);
    return { type, observation };
  }
  if (type === "edit") {
    const toolInput = (decision as { toolInput?: unknown }).toolInput;
    const size = jsonSize(toolInput);
    if (size === undefined) throw invalid(decision, `the edited input for "${id}" (tool "${interrupt.tool}") cannot be written as JSON (too deep, or circular). Nothing ran.`);
    if (size > MAX_DECISION_CHARS) throw invalid(decision, `the edited input for "${id}" (tool "${interrupt.tool}") is ${size} characters of JSON; at most ${MAX_DECISION_CHARS} are accepted. Nothing ran.`);
    const problem = schemaProblem(toolsByName.get(interrupt.tool), toolInput);
    if (problem !== undefined) throw invalid(decision, `the edited input for "${id}" (tool "${interrupt.tool}") does not fit the tool's schema: ${problem}. Nothing ran.`);
    return { type, toolInput };
  }
  throw invalid(decision, `the decision for "${id}" must be "approve", { type: "approve" }, { type: "reject", message? }, { type: "edit", toolInput } or { type: "result", observation }.`);
}

/** What is wrong with `input` for the tool's schema (zod, or JSON Schema as MCP tools have), if anything. */
function schemaProblem(tool: StructuredToolInterface | undefined, input: unknown): string | undefined {
  const schema = tool?.schema as { safeParse?: (value: unknown) => { success: boolean; error?: { message?: string; issues?: { path: PropertyKey[]; message: string }[] } } } | undefined;
  if (typeof schema?.safeParse !== "function") {
    if (typeof schema !== "object" || schema === null) return undefined;
    // The validator @langchain/core's own tools use for JSON Schema.
    const result = new Validator(schema as never, "2019-09", false).validate(input);
    if (result.valid) return undefined;
    return result.errors.map((error) => `${error.instanceLocation.replace(/^#\/?/, "").replace(/\//g, ".") || "(input)"}: ${error.error}`).join("; ");
  }
  const result = schema.safeParse(input);
  if (result.success) return undefined;
  const issues = result.error?.issues;
  if (issues && issues.length > 0) return issues.map((issue) => `${issue.path.map(String).join(".") || "(input)"}: ${issue.message}`).join("; ");
  return result.error?.message ?? "invalid input";
}

/** The most characters a decision may carry (an edited input's JSON, a result, a rejection message). */
export const MAX_DECISION_CHARS = 1_000_000;

/** The length of `value` as JSON, or undefined when it cannot be written (too deep, circular). */
function jsonSize(value: unknown): number | undefined {
  try {
    return JSON.stringify(value ?? null).length;
  } catch {
    return undefined;
  }
}

function invalid(value: unknown, message: string): InvalidArgumentError {
  return new InvalidArgumentError({ argument: "decisions", value, message: `AgentExecutor.resume: ${message}` });
}
