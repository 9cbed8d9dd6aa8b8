import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, deferred } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { withApproval } from "@agentrx/tools";
import { RunnableLambda } from "@langchain/core/runnables";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** A `work` tool: answers `<name> done` at once, or (`slowMs`) after that long unless its call is aborted. */
export function workTool(options: { returnDirect?: boolean; slowMs?: number } = {}): StructuredToolInterface {
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

/**
 * A `work` tool that waits, once started (`running` resolves), until `release()`: while it waits,
 * its run is between turns soon after (a task is `working`, a thread has a run going on).
 */
export function gatedWorkTool(): { work: StructuredToolInterface; running: Promise<void>; release: () => void } {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const work = tool(
    async ({ name }: { name: string }) => {
      started();
      await gate;
      return `${name} done`;
    },
    { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
  );
  return { work, running, release };
}

/** A tool-calling agent's executor with one tool, on a streaming scripted model that cycles through `responses`. */
export function workExecutor(tool: StructuredToolInterface, responses: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"], options: Partial<ConstructorParameters<typeof AgentExecutor>[0]> = {}): AgentExecutor {
  const llm = new ScriptedChatModel({ streaming: true, onExhausted: "cycle", responses });
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [tool], prompt }), tools: [tool], ...options });
}

/** The prompt of the `work` executors, for agents built next to them. */
export { prompt as workPrompt };

/**
 * An executor whose custom agent asks, in one turn and without tool call ids, for `work { n: 1 }`
 * (answers `worked 1`) and `pay { n: 2 }` (needs approval; answers `paid 2`), then answers
 * "Both done.": its calls are named `call-0-0` and `call-0-1` by their place in the turn.
 */
export function untaggedTurnExecutor(store: RunStore): AgentExecutor {
  const work = tool(async ({ n }: { n: number }) => `worked ${n}`, { name: "work", description: "Works.", schema: z.object({ n: z.number() }) });
  const pay = withApproval(tool(async ({ n }: { n: number }) => `paid ${n}`, { name: "pay", description: "Pays.", schema: z.object({ n: z.number() }) }));
  const agent = RunnableLambda.from((input: { steps: unknown[] }) =>
    input.steps.length === 0
      ? [
          { tool: "work", toolInput: { n: 1 }, log: "" },
          { tool: "pay", toolInput: { n: 2 }, log: "" },
        ]
      : { returnValues: { output: "Both done." }, log: "" },
  );
  return new AgentExecutor({ agent, tools: [work, pay], store });
}

/**
 * An executor recording to a `MemoryRunStore`, with `inDoubt: "interrupt"`, whose one `work` call
 * (`{ name: "a" }`) waits for its cancellation the first time and answers `a done` after; then
 * "Done.". Cancel a run while that call waits (`started` resolves when it does) and the call is in
 * doubt. `calls()` counts the tool's calls.
 */
export function inDoubtWorkExecutor(): { executor: AgentExecutor; store: MemoryRunStore; started: Promise<void>; calls: () => number } {
  const store = new MemoryRunStore();
  const started = deferred<void>();
  let calls = 0;
  const work = tool(
    async ({ name }: { name: string }, config) => {
      calls++;
      started.resolve();
      if (calls === 1) await new Promise((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
      return `${name} done`;
    },
    { name: "work", description: "Works.", schema: z.object({ name: z.string() }) },
  );
  const executor = workExecutor(work, [{ toolCalls: [{ name: "work", args: { name: "a" } }] }, "Done."], { store, inDoubt: "interrupt" });
  return { executor, store, started: started.promise, calls: () => calls };
}
