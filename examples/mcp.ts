// Tools from an MCP server: @langchain/mcp-adapters starts a local MCP server over stdio
// (examples/lib/travel-mcp-server.ts) and turns its tools into @langchain/core tools. The agent
// uses them like any other tool: the read-only forecast is cached and timed out, the booking waits
// for a person's approval, and every call listens to the run's signal.
//
//   npx tsx examples/mcp.ts
//
// With OPENAI_API_KEY set (and optionally OPENAI_BASE_URL, OPENAI_MODEL) it talks to that endpoint;
// without it, it runs offline on a ScriptedChatModel and says so.
import { fileURLToPath } from "node:url";
import { createToolCallingAgent } from "@agentrx/agents";
import { endpointModel } from "./lib/endpoint-model";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, printTrace, type AgentStreamEvent, type Interrupt } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { cachePolicy, concurrencyLimitPolicy, timeoutPolicy, withApproval, withPolicies } from "@agentrx/tools";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { tap } from "rxjs";

function chooseModel(): BaseChatModel {
  const real = endpointModel({ temperature: 0 });
  if (real) return real;
  return new ScriptedChatModel({
    streaming: true,
    responses: [
      { toolCalls: [{ name: "get_forecast", args: { city: "Lisbon", days: 3 } }, { name: "get_forecast", args: { city: "Porto", days: 3 } }] },
      { toolCalls: [{ name: "book_hotel", args: { city: "Lisbon", nights: 3, guest: { name: "Ada", email: "ada@example.com" } } }] },
      "Lisbon looks sunny (Porto has showers), so I booked 3 nights in Lisbon for Ada.",
    ],
  });
}

const llm = chooseModel();

// 1. Connect. The server is a child process; `client.close()` ends it.
const root = fileURLToPath(new URL("..", import.meta.url));
const client = new MultiServerMCPClient({
  mcpServers: {
    travel: { transport: "stdio", command: process.execPath, args: ["--import", "tsx", "examples/lib/travel-mcp-server.ts"], cwd: root },
  },
});

try {
  const mcpTools = await client.getTools();
  console.log(`The MCP server lists: ${mcpTools.map((tool) => tool.name).join(", ")}\n`);

  // 2. Policies, chosen from the server's annotations: read-only tools are cached; the others
  //    need a person's approval. One concurrency limit for the whole server.
  const serverLimit = concurrencyLimitPolicy({ maxConcurrent: 4 });
  const tools: StructuredToolInterface[] = mcpTools.map((tool) => {
    const readOnly = (tool.metadata?.annotations as { readOnlyHint?: boolean } | undefined)?.readOnlyHint === true;
    const guarded = withPolicies(tool, [...(readOnly ? [cachePolicy({ ttlMs: 600_000 })] : []), timeoutPolicy({ ms: 10_000 }), serverLimit]);
    return readOnly ? guarded : withApproval(guarded);
  });

  // 3. An agent and an executor, as with any tools. Approval needs a store to pause in.
  const prompt = ChatPromptTemplate.fromMessages([
    ["system", "You are a travel assistant. Check the weather, then book where it is best."],
    ["human", "{input}"],
    ["placeholder", "{agent_scratchpad}"],
  ]);
  const agent = createToolCallingAgent({ llm, tools, prompt });
  const executor = new AgentExecutor({ agent, tools, store: new MemoryRunStore(), maxExecutionTime: 60_000 });

  // 4. Run: the booking pauses the run; "a person" approves it, and the run goes on.
  const runId = "mcp-trip";
  let waiting: Interrupt[] = [];
  const keepInterrupts = tap((event: AgentStreamEvent) => {
    if (event.type === "interrupt") waiting = event.interrupts;
  });
  const input = "Lisbon or Porto for 3 nights? Book the sunnier one for Ada (ada@example.com).";
  let result = await printTrace(executor.stream({ input }, { runId }).pipe(keepInterrupts));
  for (let round = 1; result.stopReason === "interrupted" && round <= 3; round++) {
    const decisions = Object.fromEntries(waiting.map((interrupt) => [interrupt.id, "approve" as const]));
    console.log(`\na person approves: ${waiting.map((interrupt) => `${interrupt.tool} ${JSON.stringify(interrupt.toolInput)}`).join(", ")}\n`);
    result = await printTrace(executor.resume(runId, { decisions }).pipe(keepInterrupts));
  }
  console.log(`\nstopReason=${result.stopReason}`);
} finally {
  await client.close();
}
