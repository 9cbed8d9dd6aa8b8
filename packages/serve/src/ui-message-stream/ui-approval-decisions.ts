import { InvalidArgumentError } from "@agentrx/core";
import type { Decision } from "@agentrx/executors";

/**
 * The parts of a `useChat` message that {@link uiApprovalDecisions} reads (a `UIMessage` of the `ai` package fits).
 *
 * @example
 * ```ts
 * import type { UIMessageLike } from "@agentrx/serve";
 *
 * const message: UIMessageLike = { id: "u1", role: "user", parts: [{ type: "text", text: "Refund order A1" }] };
 * ```
 */
export interface UIMessageLike {
  id?: string;
  role: string;
  metadata?: unknown;
  parts: readonly { type: string; text?: string; state?: string; approval?: { id: string; approved?: boolean; reason?: string }; [key: string]: unknown }[];
}

/**
 * What {@link uiApprovalDecisions} found: the paused run and the decisions for its interrupts.
 *
 * @example
 * ```ts
 * import type { UIApprovalDecisions } from "@agentrx/serve";
 *
 * const found: UIApprovalDecisions = { runId: "run-1", decisions: { "call-0-0": "approve" } };
 * ```
 */
export interface UIApprovalDecisions {
  /** The run the message came from (its metadata's `runId`, which `toUIMessageStream` sets). */
  runId: string;
  /** Interrupt id to decision, for `executor.resume(runId, { decisions })`. */
  decisions: Record<string, Decision>;
}

/**
 * The approvals a person gave in `useChat` (`addToolApprovalResponse`) as the decisions of
 * `executor.resume`: reads the last message when it is the assistant's, and maps each tool part
 * in state `approval-responded` to `"approve"` or `{ type: "reject", message: reason }`. Undefined
 * when the last message holds no approval response (a new question: start a new run). A body
 * that is not a list of UI messages (not an array, a last message, whoever wrote it, without an
 * array of part objects as its `parts`, an answered approval without an id, or whose `approved`
 * is not a boolean) throws an `InvalidArgumentError` naming what is wrong: answer it with a 400.
 * Once it returned, the last message's `parts` can be read (for its text, say) without a check.
 *
 * @example
 * ```ts
 * import { toUIMessageStreamResponse, uiApprovalDecisions, type UIMessageLike } from "@agentrx/serve";
 * import type { AgentExecutor } from "@agentrx/executors";
 * declare const executor: AgentExecutor; // with a store
 *
 * export async function POST(request: Request): Promise<Response> {
 *   const { messages } = (await request.json()) as { messages: UIMessageLike[] };
 *   const approvals = uiApprovalDecisions(messages);
 *   if (approvals) return toUIMessageStreamResponse(executor.resume(approvals.runId, { decisions: approvals.decisions }));
 *   const input = messages.at(-1)?.parts.map((part) => part.text ?? "").join("") ?? "";
 *   return toUIMessageStreamResponse(executor.stream({ input }));
 * }
 * ```
 */
export function uiApprovalDecisions(messages: readonly UIMessageLike[]): UIApprovalDecisions | undefined {
  if (!Array.isArray(messages)) malformed("messages", messages, `\`messages\` must be an array of UI messages, got ${kindOf(messages)}.`);
  const last = messages.at(-1) as UIMessageLike | undefined;
  if (last === undefined) return undefined;
  if (typeof last !== "object" || last === null) malformed("messages", last, `the last message must be an object, got ${kindOf(last)}.`);
  // Whoever wrote it (a user's question is read for its text next): a list of part objects.
  if (!Array.isArray(last.parts)) malformed("messages", last, `the last message's \`parts\` must be an array, got ${kindOf(last.parts)}.`);
  for (const [index, part] of last.parts.entries()) {
    if (typeof part !== "object" || part === null || Array.isArray(part)) malformed("messages", part, `the last message's part ${index} must be an object, got ${kindOf(part)}.`);
  }
  if (last.role !== "assistant") return undefined;
  const runId = (last.metadata as { runId?: unknown } | undefined)?.runId;
  if (typeof runId !== "string" || runId === "") return undefined;
  const decisions: Record<string, Decision> = {};
  for (const [index, part] of last.parts.entries()) {
    if (part.state !== "approval-responded" || part.approval === undefined) continue;
    const { id, approved, reason } = (part.approval ?? {}) as { id?: unknown; approved?: unknown; reason?: unknown };
    if (typeof id !== "string" || id === "") {
      malformed("messages", part, `the last message's part ${index} answers an approval without an \`approval.id\` (a non-empty string).`);
    }
    // Read as given, never guessed: an answer that is neither yes nor no is not taken as a no.
    if (typeof approved !== "boolean") malformed("messages", part, `the last message's part ${index} answers approval ${id} without \`approval.approved\` (true or false), got ${kindOf(approved)}.`);
    if (reason !== undefined && typeof reason !== "string") malformed("messages", part, `the last message's part ${index} gives approval ${id} a \`reason\` that is not a string (${kindOf(reason)}).`);
    const decision: Decision = approved === true ? "approve" : { type: "reject", ...(typeof reason === "string" && reason ? { message: reason } : {}) };
    // Defined, not assigned: an id such as `__proto__` is kept (and refused by the run as one it never paused on), not dropped.
    Object.defineProperty(decisions, id, { value: decision, enumerable: true, writable: true, configurable: true });
  }
  return Object.keys(decisions).length > 0 ? { runId, decisions } : undefined;
}

function malformed(argument: string, value: unknown, what: string): never {
  throw new InvalidArgumentError({ argument, value, message: `uiApprovalDecisions: ${what}` });
}

function kindOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}
