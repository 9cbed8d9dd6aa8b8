import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentAction, getIdempotencyKey } from "@agentrx/core";
import { AgentExecutor, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { SqliteRunStore } from "../sqlite/index";
import { delegate, slowStore } from "./durable-test-fixtures";

const dir = mkdtempSync(join(tmpdir(), "agentrx-tool-write-ahead-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stores: [string, () => RunStore][] = [
  ["memory", () => new MemoryRunStore()],
  ["sqlite", () => new SqliteRunStore({ path: join(dir, `runs-${Math.random().toString(36).slice(2)}.db`) })],
];

/** An agent that asks for one turn of `width` `t` calls (ids `c0`, `c1`, ...), then answers. */
function turnAgent(width: number) {
  return RunnableLambda.from(async (input: { steps: unknown[] }) =>
    input.steps.length === 0
      ? Array.from({ length: width }, (_, n): AgentAction => ({ tool: "t", toolInput: { n }, log: "", toolCallId: `c${n}` } as AgentAction))
      : { returnValues: { output: "done" }, log: "" },
  );
}

describe.each(stores)("write-ahead within a turn (%s)", (_name, makeStore) => {
  it("with maxConcurrency 1, a tool starts only once every call that finished before it is recorded", async () => {
    const inner = makeStore();
    const store = slowStore(inner, { delayMs: 10 });
    const seen: string[] = [];
    const finished: number[] = [];
    const t = tool(
      async ({ n }: { n: number }) => {
        const steps = (await inner.readEvents("s")).filter((event) => event.type === "step").map((event) => event.data["index"]);
        seen.push(`tool ${n}: finished before ${JSON.stringify(finished)}, recorded ${JSON.stringify(steps)}`);
        finished.push(n);
        return `r${n}`;
      },
      { name: "t", description: "t", schema: z.object({ n: z.number() }) },
    );
    const executor = new AgentExecutor({ agent: turnAgent(3), tools: [t], store, maxConcurrency: 1 });
    const result = await executor.invoke({ input: "x" }, { runId: "s" });
    expect(result.output).toBe("done");
    expect(seen).toEqual(["tool 0: finished before [], recorded []", "tool 1: finished before [0], recorded [0]", "tool 2: finished before [0,1], recorded [0,1]"]);
    await store.close?.();
  });

  it("with maxConcurrency 2 of 4, each start waits for the steps that finished before it; those that finished together go in one write", async () => {
    const inner = makeStore();
    const writes: (readonly StoredRunEvent[])[] = [];
    const store = delegate(inner);
    store.write = async (runId, write) => {
      writes.push(write.events);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return inner.write(runId, write);
    };
    const violations: string[] = [];
    const finished = new Set<number>();
    const t = tool(
      async ({ n }: { n: number }) => {
        const before = [...finished];
        const steps = new Set((await inner.readEvents("p")).filter((event) => event.type === "step").map((event) => event.data["index"]));
        for (const done of before) if (!steps.has(done)) violations.push(`tool ${n} started with call ${done} finished and unrecorded`);
        finished.add(n);
        return `r${n}`;
      },
      { name: "t", description: "t", schema: z.object({ n: z.number() }) },
    );
    const executor = new AgentExecutor({ agent: turnAgent(4), tools: [t], store, maxConcurrency: 2 });
    expect((await executor.invoke({ input: "x" }, { runId: "p" })).output).toBe("done");
    expect(violations).toEqual([]);
    // Calls 0 and 1 start together and finish together (each reads the store once): their steps share a write.
    const stepWrites = writes.map((events) => events.filter((event) => event.type === "step").map((event) => event.data["index"])).filter((indexes) => indexes.length > 0);
    expect(stepWrites[0]).toEqual([0, 1]);
    await store.close?.();
  });
});

describe("idempotency keys", () => {
  /** A `charge` tool that notes each call's key and amount; it hangs while `hang.on` (until aborted). */
  function chargeTool(keys: string[], hang: { on: boolean; started?: () => void }) {
    return tool(
      async ({ cents }: { cents: number }, config) => {
        keys.push(`${getIdempotencyKey(config)} cents=${cents}`);
        if (hang.on) {
          hang.started?.();
          await new Promise((_, reject) => config?.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
        }
        return "ok";
      },
      { name: "charge", description: "Charges.", schema: z.object({ cents: z.number() }) },
    );
  }

  /** A provider that numbers tool-call ids per response: `call_0` in every turn. */
  const perResponseIds = RunnableLambda.from(async (input: { steps: unknown[] }) =>
    input.steps.length < 2
      ? ({ tool: "charge", toolInput: { cents: 100 * (input.steps.length + 1) }, log: "", toolCallId: "call_0" } as AgentAction)
      : { returnValues: { output: "done" }, log: "" },
  );

  it("gives two calls of one run with the same toolCallId (ids numbered per response) different keys", async () => {
    const keys: string[] = [];
    await new AgentExecutor({ agent: perResponseIds, tools: [chargeTool(keys, { on: false })] }).invoke({ input: "x" }, { runId: "r1" });
    expect(keys).toHaveLength(2);
    expect(new Set(keys.map((entry) => entry.split(" ")[0])).size).toBe(2);
  });

  /** Runs `perResponseIds` into `store` and cancels it while the second charge is in flight. */
  async function cancelledInSecondCharge(store: RunStore, keys: string[]) {
    const hang = { on: false, started: undefined as (() => void) | undefined };
    const charge = chargeTool(keys, hang);
    let calls = 0;
    const agent = RunnableLambda.from(async (input: { steps: unknown[] }) => {
      if (++calls === 2) hang.on = true; // the second turn's charge hangs
      return perResponseIds.invoke(input);
    });
    const started = new Promise<void>((resolve) => (hang.started = resolve));
    const executor = new AgentExecutor({ agent, tools: [charge], store });
    const subscription = executor.invoke({ input: "x" }, { runId: "r1" }).subscribe({ error: () => undefined });
    await started;
    subscription.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 10));
    hang.on = false;
    return executor;
  }

  it("retries a call in doubt after a resume with the key it had (and records the key with its action)", async () => {
    const store = new MemoryRunStore();
    const keys: string[] = [];
    const executor = await cancelledInSecondCharge(store, keys);
    const result = await executor.resume("r1");
    expect(result.output).toBe("done");
    expect(keys).toHaveLength(3);
    const [first, second, retried] = keys.map((entry) => entry.split(" ")[0]);
    expect(keys[2]).toBe(keys[1]); // same key, same amount
    expect(retried).toBe(second);
    expect(second).not.toBe(first);
    const recorded = (await store.readEvents("r1")).filter((event) => event.type === "action").map((event) => event.data["idempotencyKey"]);
    expect(recorded).toEqual([first, second]);
  });

  it("retries a call in doubt recorded by the previous release (no key with its action) with the key that release gave it", async () => {
    const store = new MemoryRunStore();
    const keys: string[] = [];
    await cancelledInSecondCharge(store, keys);
    // The record as the previous release wrote it: its action events carry no key.
    const events = await store.readEvents("r1");
    const old = delegate(store);
    old.readEvents = async (...args: Parameters<RunStore["readEvents"]>) =>
      (await store.readEvents(...args)).map((event) => {
        if (event.type !== "action") return event;
        const { idempotencyKey: _key, ...data } = event.data;
        return { ...event, data };
      });
    expect(events.some((event) => event.type === "action")).toBe(true);
    const resumed = new AgentExecutor({ agent: perResponseIds, tools: [chargeTool(keys, { on: false })], store: old });
    expect((await resumed.resume("r1")).output).toBe("done");
    expect(keys.at(-1)).toBe("r1:call_0 cents=200");
  });

  it("gives an early call (eagerTools) the key its confirmed action records, unique across turns with the same id", async () => {
    const store = new MemoryRunStore();
    const keys: string[] = [];
    const charge = chargeTool(keys, { on: false });
    const llm = new ScriptedChatModel({
      tokenDelayMs: 5,
      responses: [{ toolCalls: [{ name: "charge", args: { cents: 100 }, id: "call_0" }] }, { toolCalls: [{ name: "charge", args: { cents: 200 }, id: "call_0" }] }, "Done."],
    });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const agent = createToolCallingAgent({ llm, tools: [charge], prompt });
    const events = await new AgentExecutor({ agent, tools: [charge], store, eagerTools: true }).invoke({ input: "x" }, { runId: "e1" });
    expect(events.output).toBe("Done.");
    const recorded = await store.readEvents("e1");
    const actions = recorded.filter((event) => event.type === "action").map((event) => event.data["idempotencyKey"]);
    const intents = recorded.filter((event) => event.type === "tool_intent").map((event) => event.data["idempotencyKey"]);
    expect(intents).toHaveLength(2); // both calls started early
    expect(keys.map((entry) => entry.split(" ")[0])).toEqual(actions);
    expect(intents).toEqual(actions);
    expect(new Set(actions).size).toBe(2);
  });
});
