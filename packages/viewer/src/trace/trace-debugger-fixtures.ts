// Test-only (not exported by the package): recorded runs for the trace page's debugger views
// (sub-runs, cost and recorded prompts, images) and for the screenshots in docs/trace-viewer.md.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { z } from "zod";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const usage = { inputTokens: 120, outputTokens: 30 };

/**
 * Records a supervisor run into `store`: its model asks the `researcher` tool (an executor called
 * as a tool, `asTool`) about tides; the researcher calls `lookup` twice, in two turns, and answers;
 * the supervisor then answers. Resolves with the run id.
 */
export async function recordSupervisorRun(store: RunStore, runId = "supervisor", options: { delayMs?: number } = {}): Promise<string> {
  const { delayMs = 20 } = options;
  const prompt = ChatPromptTemplate.fromMessages([["system", "You answer with facts."], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const lookup = tool(
    async ({ q }) => {
      await sleep(delayMs);
      return `facts about ${q}: the moon's pull raises the sea twice a day`;
    },
    { name: "lookup", description: "Looks facts up.", schema: z.object({ q: z.string() }) },
  );
  const researcherModel = new ScriptedChatModel({
    streaming: true,
    latencyMs: delayMs,
    responses: [
      { toolCalls: [{ name: "lookup", args: { q: "tides" } }], usage },
      { toolCalls: [{ name: "lookup", args: { q: "spring tides" } }], usage },
      { content: "Tides follow the moon; spring tides come at new and full moon.", usage },
    ],
  });
  const researcher = new AgentExecutor({ agent: createToolCallingAgent({ llm: researcherModel, tools: [lookup], prompt }), tools: [lookup] });
  const research = researcher.asTool({ name: "researcher", description: "Researches a topic." });
  const supervisorModel = new ScriptedChatModel({
    streaming: true,
    latencyMs: delayMs,
    responses: [{ toolCalls: [{ name: "researcher", args: { input: "How do tides work?" } }], usage }, { content: "Tides follow the moon (researched).", usage }],
  });
  const supervisor = new AgentExecutor({ agent: createToolCallingAgent({ llm: supervisorModel, tools: [research], prompt }), tools: [research], store });
  await lastValueFrom(supervisor.stream({ input: "Explain tides." }, { runId }));
  return runId;
}
