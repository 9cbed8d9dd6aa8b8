// Test-only: an executor that doubles a number with a tool, on a scripted model that streams its
// answer word by word. "double 21" -> tool call double({ n: 21 }) -> "21 doubled is 42."
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";

export interface DoublingOptions {
  /** Model latency per call (ms). */
  latencyMs?: number;
  /** How long the tool takes (ms); it ends early when its signal aborts. */
  toolMs?: number;
  /** Called when a tool call starts and when it finishes (its side effects). */
  onTool?: (what: "start" | "done", n: number, callId: string) => void;
  /** Called when the tool's signal aborts. */
  onAbort?: (n: number) => void;
  /** Every tool call waits for a person's approval (the executor's `needsApproval`). */
  approval?: boolean;
  leaseMs?: number;
  /** The agent's first call waits for this (a test opens it once its client follows the run). */
  gate?: Promise<void>;
  /** What resuming does with a tool call that started and has no recorded result (the executor's `inDoubt`). */
  inDoubt?: "retry" | "interrupt" | "fail";
}

const prompt = ChatPromptTemplate.fromMessages([
  ["human", "{input}"],
  ["placeholder", "{agent_scratchpad}"],
]);

function textOf(message: BaseMessage | undefined): string {
  return typeof message?.content === "string" ? message.content : "";
}

export function doublingExecutor(options: DoublingOptions = {}): AgentExecutor {
  const { latencyMs = 0, toolMs = 0, onTool, onAbort, approval = false, leaseMs, gate, inDoubt } = options;
  const double = tool(
    async ({ n }, config) => {
      const callId = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id ?? `n${n}`;
      onTool?.("start", n, callId);
      if (toolMs > 0) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, toolMs);
          config?.signal?.addEventListener(
            "abort",
            () => {
              clearTimeout(timer);
              onAbort?.(n);
              reject(new Error("aborted"));
            },
            { once: true },
          );
        });
      }
      onTool?.("done", n, callId);
      return String(n * 2);
    },
    { name: "double", description: "Doubles a number.", schema: z.object({ n: z.number() }) },
  );
  const llm = new ScriptedChatModel({
    streaming: true,
    latencyMs,
    onExhausted: "repeat-last",
    responses: [
      (messages) => {
        const n = Number(/double (-?\d+)/.exec(textOf(messages.find((message) => message.getType() === "human")))?.[1] ?? 0);
        const result = messages.find((message) => message.getType() === "tool");
        if (result === undefined) return { content: `Doubling ${n}.`, toolCalls: [{ name: "double", args: { n }, id: `double-${n}` }] };
        // Messages sent to the run while it ran (RunClient.send) come after the input.
        const said = messages.filter((message) => message.getType() === "human").slice(1).map(textOf);
        return `${n} doubled is ${textOf(result)}.${said.length > 0 ? ` You also said: ${said.join(" ")}` : ""}`;
      },
    ],
  });
  const tools = [double];
  const inner = createToolCallingAgent({ llm, tools, prompt });
  const agent = gate === undefined ? inner : RunnableLambda.from(async (input: Record<string, unknown>, config) => (await gate, inner.invoke(input as never, config)));
  return new AgentExecutor({
    agent,
    tools,
    ...(approval ? { needsApproval: () => true } : {}),
    ...(leaseMs === undefined ? {} : { leaseMs }),
    ...(inDoubt === undefined ? {} : { inDoubt }),
  });
}
