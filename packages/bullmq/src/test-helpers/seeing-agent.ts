// Test-only: an executor whose model keeps the messages it is given (the run's `chat_history`,
// then its `input`) and answers "Seen.", so a test can compare what the worker ran on with what
// the client submitted.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

const prompt = ChatPromptTemplate.fromMessages([
  ["placeholder", "{chat_history}"],
  ["human", "{input}"],
  ["placeholder", "{agent_scratchpad}"],
]);

/** An executor whose model pushes the messages of each call onto `seen`. */
export function seeingExecutor(seen: BaseMessage[][]): AgentExecutor {
  const noop = tool(async () => "nothing", { name: "noop", description: "Does nothing.", schema: z.object({}) });
  const llm = new ScriptedChatModel({
    onExhausted: "repeat-last",
    responses: [
      (messages) => {
        seen.push(messages);
        return "Seen.";
      },
    ],
  });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [noop], prompt }), tools: [noop] });
}
