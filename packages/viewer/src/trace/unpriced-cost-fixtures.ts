// Test-only (not exported by the package): a run whose cost leaves calls out, for the trace page's tests.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type PriceTable, type RunStore } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";

/**
 * Records a supervisor run (model `gpt-4o`, priced) that calls a researcher executor as a tool
 * whose model (`local-llama`) has no price: of its four model calls, the researcher's two have no
 * cost. With `researcherPrices`, the researcher has them too, so its calls are counted unpriced
 * (`usage.unpricedCalls`); without, the supervisor prices them with its own `prices`, which do not
 * know `local-llama` either, so they are counted unpriced too. Resolves with the run id.
 */
export async function recordPartlyPricedRun(store: RunStore, runId = "partly-priced", researcherPrices?: PriceTable): Promise<string> {
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const lookup = tool(async ({ q }: { q: string }) => `facts about ${q}`, { name: "lookup", description: "Looks facts up.", schema: z.object({ q: z.string() }) });
  const researcherModel = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "lookup", args: { q: "tides" } }] }, "The moon."], model: "local-llama" });
  const researcher = new AgentExecutor({ agent: createToolCallingAgent({ llm: researcherModel, tools: [lookup], prompt }), tools: [lookup], ...(researcherPrices === undefined ? {} : { prices: researcherPrices }) });
  const research = researcher.asTool({ name: "researcher", description: "Researches a topic." });
  const supervisorModel = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "researcher", args: { input: "tides?" } }] }, "Tides follow the moon."], model: "gpt-4o" });
  const supervisor = new AgentExecutor({ agent: createToolCallingAgent({ llm: supervisorModel, tools: [research], prompt }), tools: [research], store, prices: { "gpt-4o": { input: 2.5, output: 10 } } });
  await lastValueFrom(supervisor.stream({ input: "Explain tides." }, { runId }));
  return runId;
}

/**
 * Records a run of an executor whose `prices` do not know its model (`local-llama`): neither of its
 * two model calls is priced, so its usage has no `cost` and `unpricedCalls: 2`. Resolves with the run id.
 */
export async function recordUnpricedRun(store: RunStore, runId = "unpriced"): Promise<string> {
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const lookup = tool(async ({ q }: { q: string }) => `facts about ${q}`, { name: "lookup", description: "Looks facts up.", schema: z.object({ q: z.string() }) });
  const llm = new ScriptedChatModel({ responses: [{ toolCalls: [{ name: "lookup", args: { q: "tides" } }] }, "The moon."], model: "local-llama" });
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], store, prices: { "gpt-4o": { input: 2.5, output: 10 } } });
  await lastValueFrom(executor.stream({ input: "Explain tides." }, { runId }));
  return runId;
}
