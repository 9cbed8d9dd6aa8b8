// A `resume` or `fork` whose signal aborts while the store is claiming the run (or making the
// fork) gives the claim back before it rejects with an AbortError: the run is left as it was,
// free for anyone to resume at once, and nothing of it ran.
import { isAbortError } from "@agentrx/core";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, deferred } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import { withApproval } from "@agentrx/tools";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryRunStore } from "../memory/index";
import { SqliteRunStore } from "../sqlite/index";

/**
 * `inner`, but the first call of `method` is held after the store has done it: `reached` resolves
 * then, and the call returns once `release()` is called. The test aborts in between.
 */
function holdFirst(inner: RunStore, method: "claimRun" | "createRun" | "readEvents") {
  const reached = deferred<void>();
  const gate = deferred<void>();
  let held = false;
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== "function") return value;
      const call = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
      if (name !== method || held) return call;
      return async (...args: unknown[]) => {
        held = true;
        const result = await call(...args);
        reached.resolve();
        await gate.promise;
        return result;
      };
    },
  });
  return { store, reached: reached.promise, release: () => gate.resolve() };
}

/** An executor whose `send` tool needs approval, on a scripted model: it asks to send, then answers. */
function mailer(store: RunStore, responses: ConstructorParameters<typeof ScriptedChatModel>[0]["responses"] = [{ toolCalls: [{ name: "send", args: { to: "ana" } }] }, "mailed ana"]) {
  const sent: string[] = [];
  const send = withApproval(
    tool(async ({ to }: { to: string }) => (sent.push(to), `sent to ${to}`), { name: "send", description: "Sends an email.", schema: z.object({ to: z.string() }) }),
  );
  const llm = new ScriptedChatModel({ responses });
  const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [send], prompt }), tools: [send], store });
  return { executor, sent, llm };
}

const opened: RunStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const stores: [string, () => RunStore][] = [
  ["memory", () => new MemoryRunStore()],
  ["sqlite", () => new SqliteRunStore({ path: ":memory:" })],
];

describe.each(stores)("a resume aborted while it claims the run (%s store)", (_name, makeStore) => {
  const newStore = () => {
    const store = makeStore();
    opened.push(store);
    return store;
  };

  it.each(["claimRun", "readEvents"] as const)("gives a paused run back paused, with no new event, and another resume claims it at once (aborted during %s)", async (method) => {
    const inner = newStore();
    const paused = await mailer(inner).executor.invoke({ input: "mail ana" }, { runId: "mail" });
    expect(paused.stopReason).toBe("interrupted");
    const interruptId = paused.interrupts?.[0]?.id as string;
    const before = await inner.getRun("mail");

    const { store, reached, release } = holdFirst(inner, method);
    const { executor, sent, llm } = mailer(store);
    const controller = new AbortController();
    const resumed = executor.resume("mail", { decisions: { [interruptId]: "approve" }, signal: controller.signal });
    const outcome = resumed.then(
      () => undefined,
      (error: unknown) => error,
    );
    await reached; // the store has done the call; it has not returned yet
    if (method === "claimRun") expect((await inner.getRun("mail"))?.status).toBe("running");
    controller.abort(new Error("the user left"));
    release();
    const error = await outcome;
    expect(isAbortError(error), String(error)).toBe(true);

    const after = await inner.getRun("mail");
    expect(after).toMatchObject({ status: "interrupted", eventCount: before?.eventCount });
    expect(after?.owner).toBeUndefined();
    expect(after?.leaseExpiresAt).toBeUndefined();
    expect(after?.error).toBeUndefined();
    expect(sent).toEqual([]);
    expect(llm.calls).toHaveLength(0);

    // Right away, not once a lease lapses: another process resumes it.
    const other = mailer(inner, ["mailed ana"]);
    const done = await other.executor.resume("mail", { decisions: { [interruptId]: "approve" } });
    expect(done).toMatchObject({ output: "mailed ana", stopReason: "finish" });
    expect(other.sent).toEqual(["ana"]);
  });

  it("does the same when the subscriber unsubscribes while the run is claimed: the paused run stays paused, free to resume", async () => {
    const inner = newStore();
    const paused = await mailer(inner).executor.invoke({ input: "mail ana" }, { runId: "mail" });
    const interruptId = paused.interrupts?.[0]?.id as string;
    const before = await inner.getRun("mail");

    const { store, reached, release } = holdFirst(inner, "claimRun");
    const { executor, sent, llm } = mailer(store);
    const events: unknown[] = [];
    const subscription = executor.resume("mail", { decisions: { [interruptId]: "approve" } }).subscribe({ next: (event) => events.push(event), error: (error: unknown) => events.push(error) });
    await reached;
    subscription.unsubscribe();
    release();
    await expect.poll(async () => (await inner.getRun("mail"))?.owner).toBeUndefined();

    const after = await inner.getRun("mail");
    expect(after).toMatchObject({ status: "interrupted", eventCount: before?.eventCount });
    expect(after?.error).toBeUndefined();
    expect(events).toEqual([]);
    expect(sent).toEqual([]);
    expect(llm.calls).toHaveLength(0);
    const other = mailer(inner, ["mailed ana"]);
    expect(await other.executor.resume("mail", { decisions: { [interruptId]: "approve" } })).toMatchObject({ output: "mailed ana", stopReason: "finish" });
    expect(other.sent).toEqual(["ana"]);
  });

  it("says once, in one sentence, why a crashed run whose record cannot be read was given back", async () => {
    const store = newStore();
    const at = Date.now() - 60_000;
    await store.createRun({ runId: "crashed", inputs: { input: "mail ana" }, status: "running", owner: "a-dead-process", leaseMs: 1_000, at });
    // An action event that cannot be decoded: the resume cannot go on from the record.
    await store.write("crashed", { owner: "a-dead-process", leaseMs: 1_000, at: at + 1, events: [{ seq: 1, type: "action", at: at + 1, data: { type: "action", at: at + 1, iteration: 0, index: 0, action: "garbage" } }] });
    const { executor, llm } = mailer(store);
    await expect(executor.resume("crashed")).rejects.toThrow();
    expect(llm.calls).toHaveLength(0);
    const crashed = await store.getRun("crashed");
    expect(crashed).toMatchObject({ status: "cancelled" });
    expect(crashed?.error).toMatch(/^The run had been left running by a process that stopped; a resume could not read its record: .+[^.]\.$/);
  });

  it("gives a queued run back queued, and a crashed one (running under a lapsed lease) back cancelled, saying why", async () => {
    const inner = newStore();
    const at = Date.now();
    await inner.createRun({ runId: "queued", inputs: { input: "mail ana" }, status: "queued", at });
    await inner.createRun({ runId: "crashed", inputs: { input: "mail ana" }, status: "running", owner: "a-dead-process", leaseMs: 1, at: at - 60_000 });
    for (const runId of ["queued", "crashed"]) {
      const { store, reached, release } = holdFirst(inner, "claimRun");
      const { executor, llm } = mailer(store);
      const controller = new AbortController();
      const outcome = executor.resume(runId, { signal: controller.signal }).then(
        () => undefined,
        (error: unknown) => error,
      );
      await reached;
      controller.abort();
      release();
      expect(isAbortError(await outcome)).toBe(true);
      expect(llm.calls).toHaveLength(0);
    }
    expect(await inner.getRun("queued")).toMatchObject({ status: "queued", eventCount: 0 });
    expect((await inner.getRun("queued"))?.owner).toBeUndefined();
    const crashed = await inner.getRun("crashed");
    expect(crashed).toMatchObject({ status: "cancelled", eventCount: 0 });
    expect(crashed?.owner).toBeUndefined();
    expect(crashed?.error).toMatch(/left running by a process that stopped; a resume of it was aborted before it went on/);

    const other = mailer(inner);
    expect((await other.executor.invoke({ input: "x" }, { runId: "other" })).stopReason).toBe("interrupted"); // the store still works as usual
    for (const runId of ["queued", "crashed"]) {
      await expect(inner.claimRun(runId, { owner: "someone-else", leaseMs: 30_000, at: Date.now() })).resolves.toMatchObject({ runId });
    }
  });

  it("gives a cancelled run back cancelled, keeping the reason it was cancelled for", async () => {
    const inner = newStore();
    await mailer(inner).executor.invoke({ input: "mail ana" }, { runId: "mail" });
    await inner.cancelRun?.("mail", { reason: "Cancelled by ops.", at: Date.now() });
    const { store, reached, release } = holdFirst(inner, "claimRun");
    const { executor } = mailer(store);
    const controller = new AbortController();
    const outcome = executor.resume("mail", { signal: controller.signal }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await reached;
    controller.abort();
    release();
    expect(isAbortError(await outcome)).toBe(true);
    const after = await inner.getRun("mail");
    expect(after).toMatchObject({ status: "cancelled", error: "Cancelled by ops." });
    expect(after?.owner).toBeUndefined();
  });
});

describe.each(stores)("a fork aborted while it is made (%s store)", (_name, makeStore) => {
  it.each([
    ["aborted", "createRun"],
    ["aborted", "readEvents"],
    ["unsubscribed", "createRun"],
  ] as const)("leaves no run behind when %s during %s, and the source as it was", async (how, method) => {
    const inner = makeStore();
    try {
      const source = mailer(inner);
      const paused = await source.executor.invoke({ input: "mail ana" }, { runId: "source" });
      await source.executor.resume("source", { decisions: { [paused.interrupts?.[0]?.id as string]: "approve" } });
      const before = await inner.getRun("source");
      expect(before?.status).toBe("finished");

      const { store, reached, release } = holdFirst(inner, method);
      const { executor, sent, llm } = mailer(store);
      const controller = new AbortController();
      const forked = executor.fork("source", { at: 1, runId: "fork", signal: controller.signal });
      const outcome = how === "aborted" ? forked.then(() => undefined, (error: unknown) => error) : undefined;
      const subscription = how === "unsubscribed" ? forked.subscribe({ error: () => undefined }) : undefined;
      await reached;
      if (method === "createRun") expect(await inner.getRun("fork")).toBeDefined(); // made, its copy not yet written
      if (how === "aborted") controller.abort();
      subscription?.unsubscribe();
      release();
      if (outcome !== undefined) expect(isAbortError(await outcome)).toBe(true);
      await expect.poll(() => inner.getRun("fork")).toBeUndefined();
      expect(await inner.getRun("source")).toEqual(before);
      expect(sent).toEqual([]);
      expect(llm.calls).toHaveLength(0);

      // The same fork id can be used again at once.
      const again = mailer(inner, ["mailed ana"]);
      expect((await again.executor.fork("source", { at: 1, runId: "fork" })).output).toBe("mailed ana");
    } finally {
      await inner.close();
    }
  });
});
