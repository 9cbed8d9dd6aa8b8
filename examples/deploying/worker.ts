// worker.ts: one worker process of the support agent. Start as many as you need, on any machine:
//   REDIS_URL=redis://127.0.0.1:6379 DATABASE_URL=postgres://postgres@127.0.0.1:5432/app npx tsx worker.ts
import { createRunWorker } from "@agentrx/bullmq";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { type AgentExecutor, createAgentExecutor } from "@agentrx/executors";
import { PostgresRunStore } from "@agentrx/runs";
import { type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

const lookup = tool(
  async ({ order }) => {
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // a slow order system
    return `order ${order}: shipped`;
  },
  { name: "lookup_order", description: "Looks an order up.", schema: z.object({ order: z.string() }) },
);

/**
 * The model of this example: a scripted one (your chat model in production) that answers from the
 * conversation, as a real model does: it looks the order up unless the lookup's result is there,
 * then answers from it. So a run another worker takes over repeats nothing that was recorded.
 */
function answerFromConversation(messages: BaseMessage[]) {
  const result = messages.find((message) => ToolMessage.isInstance(message));
  if (result) return `Your ${result.text.replace(": ", " has ")}.`;
  const question = messages.find((message) => HumanMessage.isInstance(message))?.text ?? "";
  return { toolCalls: [{ name: "lookup_order", args: { order: /\b[A-Z]\d+\b/.exec(question)?.[0] ?? "unknown" } }] };
}

/** The support agent: called once per job. */
function supportExecutor(): AgentExecutor {
  const model = new ScriptedChatModel({ streaming: true, latencyMs: 200, responses: [answerFromConversation], onExhausted: "repeat-last" });
  return createAgentExecutor({ model, tools: [lookup], system: "You answer questions about orders.", leaseMs: 30_000 });
}

const store = new PostgresRunStore({ connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/app" });
const worker = createRunWorker({
  connection: { url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" },
  store,
  executors: { support: supportExecutor },
  concurrency: 20, // runs at once in this process
});
// A deploy stops workers with SIGTERM: finish what can finish, hand the rest back to the queue.
// close() rejects (RunWorkerCloseError) when Redis keeps it waiting 20 s more (forceAfterMs).
process.on("SIGTERM", () => {
  void worker
    .close({ gracePeriodMs: 20_000 })
    .then(() => 0, (error: unknown) => (console.error(error), 1))
    .then(async (code) => {
      await store.close();
      process.exit(code);
    });
});
await worker.ready();
console.log("worker ready");
