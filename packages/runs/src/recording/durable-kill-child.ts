// Test-only: one process of the steering, fork and memory kill tests (steering-kill.test.ts,
// fork-kill.test.ts, memory-kill.test.ts). It runs, resumes or forks a recorded run of a tool-calling agent on a
// scripted model, or sends a message to a run. Where the parent wants it killed, it writes a marker
// file and blocks its event loop for good (nothing more of it reaches the store), and the parent
// SIGKILLs it. Every model call and tool effect is appended to the effects file, one line each,
// labelled with this process's `label`.
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createToolCallingAgent } from "@agentrx/agents";
import { getIdempotencyKey } from "@agentrx/core";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore, runInboxId } from "@agentrx/executors";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ThreadMemory } from "../thread-memory/index";
import { openChildStore, whenLeaseFree } from "./child-store";
import type { ChildArgs } from "./durable-kill-harness";

const args = JSON.parse(process.argv[2] as string) as ChildArgs;
const effect = (line: string) => appendFileSync(join(args.dir, "effects.log"), `${args.label} ${line}\n`);
const blocks = new Set(args.blocks ?? []);
/** Tells the parent that this process reached `point` (see `Args.blocks`). */
const marker = (point: string, what: unknown) => writeFileSync(join(args.dir, `${args.label}.${point.replace(/[^A-Za-z0-9-]/g, "_")}.blocked`), JSON.stringify(what));

/** Tells the parent, then blocks the event loop for good: no timer, I/O or write of this process runs after it. */
function blockForever(point: string, what: unknown): never {
  marker(point, what);
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

async function fileExists(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 5));
}

const work = tool(
  async ({ job }: { job: string }, config) => {
    effect(`start ${job} ${String(getIdempotencyKey(config))}`);
    if (blocks.has(`tool:${job}`)) blockForever(`tool:${job}`, { tool: job });
    if (blocks.has(`tool-wait:${job}`)) {
      marker(`tool-wait:${job}`, { tool: job });
      await fileExists(join(args.dir, `${args.label}.release`));
    }
    effect(`done ${job}`);
    return `${job} ok`;
  },
  { name: "work", description: "Does a job.", schema: z.object({ job: z.string() }) },
);

/** What a model call was sent: its tool results, and the user's messages after the input. */
function seen(messages: BaseMessage[]): { results: string[]; told: string[] } {
  const results = messages.filter((message) => message.getType() === "tool").map((message) => message.text);
  const told = messages.filter((message) => message.getType() === "human").slice(1).map((message) => message.text);
  return { results, told };
}

// Two jobs, one a turn, then an answer with what it was told: the reply is a function of what the
// call was sent, so that any process answers a call as any other would.
let modelCalls = 0;
const llm = new ScriptedChatModel({
  onExhausted: "repeat-last",
  responses: [
    (messages) => {
      const call = modelCalls++;
      const { results, told } = seen(messages);
      effect(`model ${JSON.stringify({ results, told })}`);
      if (blocks.has(`model:${call}`)) blockForever(`model:${call}`, { model: call, results, told });
      if (blocks.has("model-with-message") && told.length > 0) blockForever("model-with-message", { model: call, results, told });
      if (results.length < 2) return { toolCalls: [{ name: "work", args: { job: `j${results.length}` }, id: `c${results.length}` }] };
      return `${results.join(", ")}; told: ${told.join(" | ") || "nothing"}`;
    },
  ],
});
const prompt = ChatPromptTemplate.fromMessages([["placeholder", "{chat_history}"], ["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** The store, with the blocks that stop this process inside a store call. */
function blockingStore(store: RunStore): RunStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name === "readThreadMessages" && blocks.has("inbox-read")) {
        return (threadId: string, options?: object) => {
          if (threadId === runInboxId(args.runId)) blockForever("inbox-read", { inboxRead: threadId });
          return target.readThreadMessages(threadId, options);
        };
      }
      if (name === "appendThreadMessages" && (blocks.has("memory-append") || blocks.has("memory-appended"))) {
        return async (threadId: string, messages: Parameters<RunStore["appendThreadMessages"]>[1]) => {
          if (threadId !== args.threadId) return target.appendThreadMessages(threadId, messages);
          if (blocks.has("memory-append")) blockForever("memory-append", { append: threadId, output: (await target.readEvents(args.runId)).some((event) => event.type === "output") });
          const seqs = await target.appendThreadMessages(threadId, messages);
          if (blocks.has("memory-appended")) blockForever("memory-appended", { appended: seqs });
          return seqs;
        };
      }
      if (name === "write" && blocks.has("fork-copy")) {
        return async (runId: string, write: Parameters<RunStore["write"]>[1]) => {
          if (runId === args.runId && write.events.some((event) => event.type === "start")) {
            blockForever("fork-copy", { forkCopy: runId, created: (await target.getRun(runId)) !== undefined, events: write.events.length });
          }
          return target.write(runId, write);
        };
      }
      return typeof value === "function" ? (value as (...rest: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const store = openChildStore(args.store);
const blocking = blockingStore(store);
const executor = new AgentExecutor({
  agent: createToolCallingAgent({ llm, tools: [work], prompt }),
  tools: [work],
  store: blocking,
  leaseMs: 1000,
  ...(args.inDoubt === undefined ? {} : { inDoubt: args.inDoubt }),
  ...(args.threadId === undefined ? {} : { memory: { memory: new ThreadMemory({ store: blocking, maxTokens: 100_000, includeToolMessages: true }) } }),
});

/** Resumes the run, waiting out the lease a killed process left behind. */
function resumeWhenFree(): Promise<unknown> {
  return whenLeaseFree(() => executor.resume(args.runId, args.decisions === undefined ? {} : { decisions: args.decisions }));
}

let result: unknown;
try {
  if (args.mode === "run") result = await executor.invoke({ input: "Two jobs, please." }, { runId: args.runId, ...(args.threadId === undefined ? {} : { threadId: args.threadId }) });
  else if (args.mode === "resume") result = await resumeWhenFree();
  else if (args.mode === "fork") result = await executor.fork(args.fork?.sourceId as string, { runId: args.runId, ...(args.fork?.at === undefined ? {} : { at: args.fork.at }) });
  else {
    writeFileSync(join(args.dir, `${args.label}.ready`), "");
    await fileExists(join(args.dir, args.go as string));
    result = await executor.send(args.runId, args.message as string);
  }
} catch (error) {
  result = { error: (error as Error).name, message: (error as Error).message };
}
process.stdout.write(JSON.stringify(result));
await store.close();
