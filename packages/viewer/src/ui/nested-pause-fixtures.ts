// Test-only (not exported by the package): a calling run paused on another agent's call, a
// `handoff`'s or an `asTool`'s (docs/approval.md, "A pause inside a handoff"), for the `ui`'s
// nested-pause tests.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, handoff } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** Options of {@link nestedPauseExecutors}. */
export interface NestedPauseOptions {
  /** Billing asks again (refund 20) once its first refund is decided. @default false */
  askAgain?: boolean;
  /** How the caller runs billing: `handoff` (`transfer_to_billing`) or `asTool` (`billing`). @default "handoff" */
  via?: "handoff" | "asTool";
  /** Billing records its runs in the caller's store (the `ui`'s), not a store of its own. @default false */
  sharedStore?: boolean;
}

/**
 * A caller that runs billing at once; billing refunds 10 (with approval), then 20 (with approval)
 * when `askAgain`, then answers `Billing: <what its refunds said>`. A handoff's answer ends the
 * calling run; an `asTool` call's goes back to the caller's model, which answers `Caller: <it>`.
 */
export function nestedPauseExecutors({ askAgain = false, via = "handoff", sharedStore = false }: NestedPauseOptions = {}) {
  const refunded: number[] = [];
  const refund = withApproval(
    tool(
      async ({ amount }: { amount: number }) => {
        refunded.push(amount);
        return `refunded ${amount}`;
      },
      { name: "refund", description: "Refunds an amount.", schema: z.object({ amount: z.number() }) },
    ),
  );
  const billingModel = new ScriptedChatModel({
    responses: [
      { toolCalls: [{ name: "refund", args: { amount: 10 } }] },
      ...(askAgain ? [{ toolCalls: [{ name: "refund", args: { amount: 20 } }] }] : []),
      (messages) => `Billing: ${messages.filter((message) => message.getType() === "tool").map((message) => message.text).join("; ")}`,
    ],
  });
  const store = new MemoryRunStore();
  const billingStore = sharedStore ? store : new MemoryRunStore();
  const billing = new AgentExecutor({ agent: createToolCallingAgent({ llm: billingModel, tools: [refund], prompt }), tools: [refund], store: billingStore });
  const tools = [via === "handoff" ? handoff(billing, { name: "transfer_to_billing", description: "Refunds." }) : billing.asTool({ name: "billing", description: "Refunds." })];
  const callerModel = new ScriptedChatModel({
    responses: [
      { toolCalls: [via === "handoff" ? { name: "transfer_to_billing", args: {} } : { name: "billing", args: { input: "Refund me" } }] },
      (messages) => `Caller: ${messages.at(-1)?.text}`,
    ],
  });
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm: callerModel, tools, prompt }), tools, store });
  return { executor, billing, store, billingStore, refunded };
}
