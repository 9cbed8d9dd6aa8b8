import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentStreamEvent } from "@agentrx/executors";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { type UIMessage, readUIMessageStream, validateUIMessages } from "ai";
import { type Observable, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toUIMessageChunks } from "./to-ui-message-chunks";
import type { UIMessageChunk } from "./ui-message-chunk";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** A `work` tool: answers at once, or (`slowMs`) after that long unless its call is aborted. */
function workTool(options: { returnDirect?: boolean; slowMs?: number } = {}): StructuredToolInterface {
  const { returnDirect = false, slowMs = 0 } = options;
  return tool(
    async ({ name }: { name: string }, config) => {
      if (slowMs > 0) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, slowMs);
          config?.signal?.addEventListener("abort", () => (clearTimeout(timer), reject(new Error("aborted"))));
        });
      }
      return `${name} done`;
    },
    { name: "work", description: "Works.", schema: z.object({ name: z.string() }), returnDirect },
  );
}

function executor(tool: StructuredToolInterface, responses: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"], options: Partial<ConstructorParameters<typeof AgentExecutor>[0]> = {}): AgentExecutor {
  const llm = new ScriptedChatModel({ streaming: true, onExhausted: "cycle", responses });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [tool], prompt }), tools: [tool], ...options });
}

/** The chunks of a run, and the message the `ai` package's reader makes of them (validated). */
async function read(events$: Observable<AgentStreamEvent>): Promise<{ chunks: UIMessageChunk[]; message: UIMessage }> {
  const chunks = await lastValueFrom(events$.pipe(toUIMessageChunks(), toArray()));
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream: stream as never, terminateOnError: true })) message = snapshot;
  if (message === undefined) throw new Error("no message");
  await validateUIMessages({ messages: [message] });
  return { chunks, message };
}

const textOf = (message: UIMessage) => message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");

describe("toUIMessageChunks, with the executor's other features", () => {
  it("sends the answer of a returnDirect tool, or of force early stopping, as text after text the model wrote before its calls", async () => {
    const direct = executor(workTool({ returnDirect: true }), [{ content: "Working on it. ", toolCalls: [{ name: "work", args: { name: "a" } }] }]);
    const { message } = await read(direct.stream({ input: "go" }));
    expect(message.metadata).toMatchObject({ stopReason: "return_direct" });
    expect(textOf(message)).toBe("Working on it. a done");

    const forced = executor(workTool(), [{ content: "Working on it. ", toolCalls: [{ name: "work", args: { name: "a" } }] }], { maxIterations: 1, earlyStoppingMethod: "force", earlyStopOutput: "Stopped: too many steps." });
    const stopped = await read(forced.stream({ input: "go" }));
    expect(stopped.message.metadata).toMatchObject({ stopReason: "max_iterations" });
    expect(textOf(stopped.message)).toBe("Working on it. Stopped: too many steps.");
  });

  it("does not send a streamed answer twice (generate early stopping streams its own answer)", async () => {
    const generating = executor(workTool(), [{ content: "Working on it. ", toolCalls: [{ name: "work", args: { name: "a" } }] }, "Here is what I found."], { maxIterations: 1, earlyStoppingMethod: "generate" });
    const { message } = await read(generating.stream({ input: "go" }));
    expect(textOf(message)).toBe("Working on it. Here is what I found.");
  });

  it("ends the calls a run stopped before they finished (maxExecutionTime) with tool-output-error, not open parts", async () => {
    const slow = executor(workTool({ slowMs: 2_000 }), [{ toolCalls: [{ name: "work", args: { name: "a" } }, { name: "work", args: { name: "b" } }] }], { maxExecutionTime: 100 });
    const { chunks, message } = await read(slow.stream({ input: "go" }));
    expect(message.metadata).toMatchObject({ stopReason: "max_execution_time" });
    const tools = message.parts.filter((part) => part.type === "dynamic-tool");
    expect(tools.map((part) => [part.toolName, part.state])).toEqual([
      ["work", "output-error"],
      ["work", "output-error"],
    ]);
    expect(tools[0]).toMatchObject({ errorText: expect.stringContaining("max_execution_time") });
    // The errors come before the step ends and the message finishes.
    const types = chunks.map((chunk) => chunk.type);
    expect(types.lastIndexOf("tool-output-error")).toBeLessThan(types.lastIndexOf("finish-step"));
  });
});

describe("toUIMessageChunks, with an executor as a tool (sub-runs)", () => {
  it("shows the sub-run as one tool call, and counts its model calls in the usage so far", async () => {
    const usage = { inputTokens: 10, outputTokens: 5 };
    const work = workTool();
    const researcherLlm = new ScriptedChatModel({ streaming: true, responses: [{ toolCalls: [{ name: "work", args: { name: "s" } }], usage }, { content: "Sub answer.", usage }] });
    const researcher = new AgentExecutor({ agent: createToolCallingAgent({ llm: researcherLlm, tools: [work], prompt }), tools: [work] });
    const research = researcher.asTool({ name: "researcher", description: "Researches." });
    const supervisor = executor(research, [{ toolCalls: [{ name: "researcher", args: { input: "x" } }], usage }, { content: "Top answer.", usage }]);
    const { chunks, message } = await read(supervisor.stream({ input: "go" }));
    expect(message.parts.filter((part) => part.type === "dynamic-tool")).toMatchObject([{ toolName: "researcher", state: "output-available", output: "Sub answer." }]);
    expect(textOf(message)).toBe("Top answer.");
    const totals = chunks.flatMap((chunk) => (chunk.type === "message-metadata" ? [chunk.messageMetadata.usage?.total_tokens] : []));
    // Four model calls of 15 tokens: the supervisor's two and the researcher's two.
    expect(message.metadata).toMatchObject({ usage: { total_tokens: 60 } });
    expect(totals.at(-1)).toBe(60);
    expect(totals).toEqual([...totals].sort((a, b) => (a ?? 0) - (b ?? 0)));
  });
});
