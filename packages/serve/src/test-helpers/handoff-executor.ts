// Test-only: a caller whose agent hands off to a billing agent at once; billing asks to refund 10
// with a tool that needs approval, so a run of the caller pauses on billing's call (a nested pause,
// see docs/agent-types.md, "Pauses inside a handoff"). Both models give their calls the same ids
// (`call_0_0`) unless `billingCallId` says otherwise: a nested call is told from the caller's by its
// interrupt, not its tool call id. With `askAgain`, billing then asks to refund 20 in a turn of its
// own: the caller pauses a second time, on `call-0-0/call-1-0`.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, handoff } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** The nested interrupt's id (of the first pause) in the caller: `<handoff call's interrupt id>/<billing's interrupt id>`. */
export const NESTED_ID = "call-0-0/call-0-0";

/**
 * The caller (`executor`, recording to `store`) and what billing's `refund` tool was called with
 * (`refunded`). Billing answers `Billing: <what refund said>`; the handoff returns it directly.
 */
export function handoffExecutors({ billingCallId, askAgain = false }: { billingCallId?: string; askAgain?: boolean } = {}) {
  const refunded: number[] = [];
  const refund = tool(
    async ({ amount }: { amount: number }) => {
      refunded.push(amount);
      return `refunded ${amount}`;
    },
    { name: "refund", description: "Refunds an amount.", schema: z.object({ amount: z.number() }) },
  );
  const billingTools = [withApproval(refund)];
  const billingModel = new ScriptedChatModel({
    streaming: true,
    responses: [
      { toolCalls: [{ name: "refund", args: { amount: 10 }, ...(billingCallId ? { id: billingCallId } : {}) }] },
      ...(askAgain ? [{ toolCalls: [{ name: "refund", args: { amount: 20 } }] }] : []),
      (messages: BaseMessage[]) => `Billing: ${messages.filter((message) => message.getType() === "tool").map((message) => message.text).join("; ")}`,
    ],
  });
  const billing = new AgentExecutor({ agent: createToolCallingAgent({ llm: billingModel, tools: billingTools, prompt }), tools: billingTools, store: new MemoryRunStore() });
  const tools = [handoff(billing, { name: "transfer_to_billing", description: "Refunds." })];
  const llm = new ScriptedChatModel({ streaming: true, responses: [{ content: "Handing over. ", toolCalls: [{ name: "transfer_to_billing", args: {} }] }] });
  const store = new MemoryRunStore();
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, store });
  return { executor, store, tools, refunded };
}
