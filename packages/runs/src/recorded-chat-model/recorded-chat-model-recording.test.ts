// What RecordedChatModel says of the recorded run besides its replies: the reply its next call
// replays (which a tool-calling agent reads to place a tool's images) and the model name each
// recorded call was priced by (its `ls_model_name`, which the executor prices a nameless reply by).
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentExecutorOptions } from "@agentrx/executors";
import { AIMessage } from "@langchain/core/messages";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { MemoryRunStore } from "../memory/memory-run-store";
import { collect, toolPrompt, weatherExecutor, weatherScript, weatherTools } from "../replay/replay-test-fixtures";
import { RecordedChatModel } from "./recorded-chat-model";

const INPUT = "Weather in Paris and Lyon?";

/** Records the weather run with a ScriptedChatModel that reports its name as `model` (its replies name none). */
async function recordNamedRun(store: MemoryRunStore, model: string | undefined, how: "stream" | "invoke" = "stream") {
  const llm = new ScriptedChatModel({ responses: weatherScript(), ...(model === undefined ? {} : { model }) });
  const { executor } = weatherExecutor(llm, { store });
  return how === "stream" ? collect(executor.stream({ input: INPUT }, { runId: "r" })) : lastValueFrom(executor.invoke({ input: INPUT }, { runId: "r" }));
}

describe("RecordedChatModel.nextRecordedReply", () => {
  it("is the reply the next call replays, a copy, and past the end undefined; it takes no call's place", async () => {
    const store = new MemoryRunStore();
    await recordNamedRun(store, undefined);
    const llm = new RecordedChatModel({ store, runId: "r" });
    const first = await llm.nextRecordedReply();
    expect(first).toBeInstanceOf(AIMessage);
    expect(first?.text).toBe("Let me check Paris.");
    expect(llm.callCount).toBe(0);
    first!.content = "changed";
    expect((await llm.nextRecordedReply())?.text).toBe("Let me check Paris.");

    const { executor } = weatherExecutor(llm);
    await lastValueFrom(executor.invoke({ input: INPUT }));
    expect(llm.callCount).toBe(3);
    expect(await llm.nextRecordedReply()).toBeUndefined();
  });

  it("rejects as a call would for a run the store does not have", async () => {
    const llm = new RecordedChatModel({ store: new MemoryRunStore(), runId: "nope" });
    await expect(llm.nextRecordedReply()).rejects.toMatchObject({ name: "RunNotFoundError" });
  });
});

describe("RecordedChatModel's ls_model_name", () => {
  it("is the name each recorded call was priced by, from its call's start (before the first call, none)", async () => {
    const store = new MemoryRunStore();
    await recordNamedRun(store, "scripted-pro");
    const llm = new RecordedChatModel({ store, runId: "r" });
    expect(llm.getLsParams({} as never).ls_model_name).toBeUndefined();
    const names: unknown[] = [];
    await lastValueFrom(
      weatherExecutor(llm).executor.invoke(
        { input: INPUT },
        { callbacks: [{ handleChatModelStart: (_llm: unknown, _messages: unknown, _runId: string, _parent?: string, _extra?: unknown, _tags?: unknown, metadata?: Record<string, unknown>) => void names.push(metadata?.["ls_model_name"]) }] },
      ),
    );
    expect(names).toEqual(["scripted-pro", "scripted-pro", "scripted-pro"]);
    // Past the end: the last name the run was priced by.
    expect(llm.getLsParams({} as never).ls_model_name).toBe("scripted-pro");
  });

  it.each(["stream", "invoke"] as const)("prices a run recorded through %s() as it was priced, through stream() and invoke()", async (how) => {
    const store = new MemoryRunStore();
    const prices: AgentExecutorOptions["prices"] = { "scripted-pro": { input: 1, output: 2 } };
    // Streaming inside the model either way: a reply it builds unstreamed keeps its usage out of its stored form.
    const llm = new ScriptedChatModel({ responses: weatherScript(), model: "scripted-pro", streaming: true });
    const executor = (model: ScriptedChatModel | RecordedChatModel, recorded: boolean) => {
      const { tools } = weatherTools();
      return new AgentExecutor({ agent: createToolCallingAgent({ llm: model, tools, prompt: toolPrompt }), tools, prices, ...(recorded ? { store } : {}) });
    };
    const live = how === "stream" ? (await collect(executor(llm, true).stream({ input: INPUT }, { runId: "r" }))).at(-1) : await lastValueFrom(executor(llm, true).invoke({ input: INPUT }, { runId: "r" }));
    const usage = (live as { usage?: { cost?: unknown; unpricedCalls?: number } }).usage;
    expect(usage?.cost).toBeDefined();
    expect(usage?.unpricedCalls).toBeUndefined();
    const viaInvoke = await lastValueFrom(executor(new RecordedChatModel({ store, runId: "r" }), false).invoke({ input: INPUT }));
    expect(viaInvoke.usage).toEqual(usage);
    const viaStream = (await collect(executor(new RecordedChatModel({ store, runId: "r" }), false).stream({ input: INPUT }))).at(-1);
    expect((viaStream as { usage?: unknown }).usage).toEqual(usage);
  });

  it("is none when the recorded run's calls had no name", async () => {
    const store = new MemoryRunStore();
    await recordNamedRun(store, undefined, "invoke");
    const llm = new RecordedChatModel({ store, runId: "r" });
    await llm.nextRecordedReply();
    expect(llm.getLsParams({} as never).ls_model_name).toBeUndefined();
  });
});
