import type { AgentStep } from "@agentrx/core";

type LoggedMessage = { id?: unknown; tool_calls?: { id?: unknown }[] };

/**
 * Whether two steps are calls of one model message (one turn). In a live run the calls of a turn
 * share the message object; a run rebuilt from its record (a resume, a fork, see docs/runs.md)
 * gives each step its own copy of it, with the message's id when the model gave one (Gemini's
 * messages have none): the ids of the message's tool calls name it then. The same call id twice
 * is two turns (a model that reuses its call ids).
 *
 * @internal Shared by `trimInSteps` and `compactSteps`.
 */
export function sameTurn(a: AgentStep, b: AgentStep): boolean {
  const first = modelMessageOf(a);
  const second = modelMessageOf(b);
  if (first === undefined || second === undefined) return false;
  const firstCall = toolCallIdOf(a);
  if (firstCall !== undefined && firstCall === toolCallIdOf(b)) return false;
  if (first === second) return true;
  if (first.id !== undefined && first.id !== null && second.id !== undefined && second.id !== null) return first.id === second.id;
  const key = toolCallsKey(first);
  return key !== undefined && key === toolCallsKey(second);
}

function modelMessageOf(step: AgentStep): LoggedMessage | undefined {
  const log = (step.action as { messageLog?: unknown }).messageLog;
  const message = Array.isArray(log) ? (log[0] as unknown) : undefined;
  return typeof message === "object" && message !== null ? (message as LoggedMessage) : undefined;
}

function toolCallIdOf(step: AgentStep): string | undefined {
  const id = (step.action as { toolCallId?: unknown }).toolCallId;
  return typeof id === "string" ? id : undefined;
}

/** The message's tool call ids, in order, as one key (undefined when it has none, or one without an id). */
function toolCallsKey(message: LoggedMessage): string | undefined {
  const calls = message.tool_calls;
  if (!Array.isArray(calls) || calls.length === 0 || calls.some((call) => typeof call?.id !== "string")) return undefined;
  return calls.map((call) => call.id as string).join("\u0000");
}
