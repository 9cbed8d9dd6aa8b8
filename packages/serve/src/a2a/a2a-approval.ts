// What an A2A task paused for approval says, and how a message answers it (see docs/serving-a2a.md). @internal
import type { Message, Task } from "@a2a-js/sdk";
import type { Decision, Interrupt } from "@agentrx/executors";
import { ROLE_AGENT, dataOf, dataPart, message, partsText, textPart } from "./a2a-parts";

/**
 * The `input-required` message of a pause: what waits for a decision (text, after `problem`, what
 * was wrong with the last answer, if anything), and the interrupts (data).
 */
export function approvalMessage(interrupts: Interrupt[], taskId: string, contextId: string, problem?: string): Message {
  const calls = interrupts.map((interrupt) => `${interrupt.tool}(${JSON.stringify(interrupt.toolInput)})`).join(", ");
  const how = 'Reply "approve" or "reject" (with a reason after it), or send data { decisions: { [interruptId]: decision } }.';
  const text = `${problem === undefined ? "" : `${problem} `}Approval needed for ${calls || "a tool call"}. ${how}`;
  return message(ROLE_AGENT, [textPart(text), dataPart({ interrupts })], { taskId, contextId });
}

/** The interrupts a paused task waits on, from its `input-required` status message. */
export function pendingInterrupts(task: Task): Interrupt[] {
  const interrupts = dataOf(task.status?.message?.parts)?.["interrupts"];
  return Array.isArray(interrupts) ? (interrupts as Interrupt[]) : [];
}

/**
 * The decisions a message gives: data `{ decisions }` (by interrupt id) or `{ decision }` (for all),
 * else text starting with approve/yes or reject/no (the rest of a rejection is its message).
 * Undefined when the message is not a decision.
 */
export function decisionsOf(received: Message, interrupts: Interrupt[]): Record<string, Decision> | undefined {
  const data = dataOf(received.parts);
  if (data?.["decisions"] !== undefined && typeof data["decisions"] === "object") return data["decisions"] as Record<string, Decision>;
  const all = (decision: Decision) => Object.fromEntries(interrupts.map((interrupt) => [interrupt.id, decision]));
  if (data?.["decision"] !== undefined) return all(data["decision"] as Decision);
  const text = partsText(received.parts).trim();
  if (/^(approve|approved|yes|y|ok)\b/i.test(text)) return all("approve");
  const rejection = /^(reject|rejected|no|n|deny|denied)\b[\s:,.-]*([\s\S]*)$/i.exec(text);
  if (rejection) return all(rejection[2] ? { type: "reject", message: rejection[2] } : { type: "reject" });
  return undefined;
}
