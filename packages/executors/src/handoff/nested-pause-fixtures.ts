// A test fixture of the nested-pause tests: an agent whose tool needs approval, to run as the
// sub-run of a `handoff` or an `asTool` call (see docs/agent-types.md, "Pauses inside a handoff").
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { AgentExecutor } from "../executor/agent-executor";
import type { RunStore } from "../runs/run-store";

/** The prompt of the tests' agents: a handoff passes the conversation as `chat_history`. */
export const prompt = ChatPromptTemplate.fromMessages([
  ["system", "You help."],
  new MessagesPlaceholder({ variableName: "chat_history", optional: true }),
  ["human", "{input}"],
  ["placeholder", "{agent_scratchpad}"],
]);

/** The billing agent: asks to refund `amounts` (each needs approval), then answers with what its tools said. */
export function billingAgent(store: RunStore | undefined, amounts: number[] = [10]) {
  const refunded: number[] = [];
  const refund = tool(
    async ({ amount }: { amount: number }) => {
      refunded.push(amount);
      return `refunded ${amount}`;
    },
    { name: "refund", description: "Refunds an amount.", schema: z.object({ amount: z.number() }) },
  );
  const llm = new ScriptedChatModel({
    responses: [
      { toolCalls: amounts.map((amount) => ({ name: "refund", args: { amount } })) },
      (messages) => `Billing: ${messages.filter((message) => message.getType() === "tool").map((message) => message.text).join("; ")}`,
    ],
  });
  const tools = [withApproval(refund)];
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, ...(store ? { store } : {}) });
  return { executor, refunded, llm };
}
