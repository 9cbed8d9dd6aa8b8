// Calls that would queue a job that cannot do what was asked are refused at the call, before
// anything is recorded or queued: inputs JSON would change, resumes with nothing to resume.
import { InvalidArgumentError } from "@agentrx/core";
import { MAX_RECORDED_IMAGE_CHARS, type NewRun, RunBusyError, type RunStore } from "@agentrx/executors";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { startJobId } from "../internal/queue-names";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { seeingExecutor } from "../test-helpers/seeing-agent";
import { useQueueFixture } from "../test-helpers/queue-fixture";
import { testServers, until } from "../test-helpers/test-servers";
import type { RunClient } from "./run-client";
import { z } from "zod";

const servers = await testServers("RunClient refusals");

describe.skipIf(servers.skip)("RunClient refuses what a queued job cannot carry out (Redis, PostgreSQL)", () => {
  const fixture = useQueueFixture(servers, "refusals-test");

  /** Every job of the current queue, whatever its state. */
  const jobCount = async () => Object.values(await fixture.queue().getJobCounts()).reduce((sum, count) => sum + count, 0);
  const fresh = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}`;

  it("submit refuses inputs JSON would change or drop, naming the path, and records and queues nothing", async () => {
    const client = fixture.client();
    const cyclic: Record<string, unknown> = { input: "double 1" };
    cyclic["self"] = cyclic;
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ input: "double 1", options: { limit: 10n } }, "inputs.options.limit", /inputs\.options\.limit is a BigInt \(pass it as a string or a number\), which a queued run's inputs cannot carry \(they travel as JSON\)/],
      [{ input: "double 1", onDone: () => undefined }, "inputs.onDone", /inputs\.onDone is a function, which/],
      [{ input: "double 1", kind: Symbol("k") }, "inputs.kind", /inputs\.kind is a Symbol, which/],
      [{ input: "double 1", ids: ["a", undefined] }, "inputs.ids[1]", /inputs\.ids\[1\] is undefined \(in an array it would arrive as null/],
      [{ input: "double 1", since: new Date("2025-01-02T03:04:05Z") }, "inputs.since", /inputs\.since is a Date \(it would arrive as a string; pass date\.toISOString\(\)/],
      [{ input: "double 1", seen: new Map([["a", 1]]) }, "inputs.seen", /inputs\.seen is a Map \(it would arrive as \{\}/],
      [{ input: "double 1", tags: new Set(["a"]) }, "inputs.tags", /inputs\.tags is a Set/],
      [{ input: "double 1", score: Number.NaN }, "inputs.score", /inputs\.score is NaN/],
      [cyclic, "inputs.self", /inputs\.self contains a circular reference \(it is inputs again\)/],
      // A message is recorded field by field: a Date in one would arrive as {}.
      [
        { input: "double 1", chat_history: [new AIMessage({ content: "hi", additional_kwargs: { sentAt: new Date(0) } })] },
        "inputs.chat_history[0].additional_kwargs.sentAt",
        /inputs\.chat_history\[0\]\.additional_kwargs\.sentAt is a Date/,
      ],
    ];
    for (const [inputs, path, message] of cases) {
      const runId = fresh("refused");
      const error = await client.submit("double", inputs, { runId }).catch((caught: unknown) => caught);
      expect(InvalidArgumentError.isInstance(error) && error.argument, path).toBe(path);
      expect((error as Error).message).toMatch(/^RunClient\.submit: /);
      expect((error as Error).message).toMatch(message);
      expect(await fixture.store.getRun(runId)).toBeUndefined();
    }
    expect(await jobCount()).toBe(0);
  });

  it("submit accepts plain data and messages, leaves undefined properties out, and the worker gets them as given", async () => {
    const client = fixture.client();
    fixture.worker({ double: () => doublingExecutor() });
    const inputs = { input: "double 3", since: "2025-01-02T03:04:05.000Z", options: { limit: 10, note: undefined }, ids: ["a", null], chat_history: [new HumanMessage("earlier")] };
    const runId = await client.submit("double", inputs);
    expect((await client.result(runId)).output).toBe("3 doubled is 6.");
    const [start] = await fixture.store.readEvents(runId, { limit: 1 });
    const recorded = start?.data["inputs"] as Record<string, unknown>;
    expect(recorded).toMatchObject({ input: "double 3", since: "2025-01-02T03:04:05.000Z", options: { limit: 10 }, ids: ["a", null] });
    expect(Object.keys(recorded["options"] as object)).toEqual(["limit"]);
    expect(JSON.stringify(recorded["chat_history"])).toContain("earlier");
  });

  it("an image larger than a run's events keep (MAX_RECORDED_IMAGE_CHARS of base64) reaches the worker whole, not as a text in its place", async () => {
    const client = fixture.client();
    const seen: BaseMessage[][] = [];
    fixture.worker({ see: () => seeingExecutor(seen) });
    const photo = "iVBORw0KGgo".padEnd(MAX_RECORDED_IMAGE_CHARS + 1000, "A");
    const scan = "JVBERi0xLjcK".padEnd(MAX_RECORDED_IMAGE_CHARS * 2, "B");
    const content = [
      { type: "text", text: "What is in these?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${photo}` } },
      { type: "image", source_type: "base64", mime_type: "image/jpeg", data: scan },
    ];
    const runId = await client.submit("see", { input: "Describe them.", chat_history: [new HumanMessage({ content })] });
    expect((await client.result(runId)).output).toBe("Seen.");
    const [history] = seen[0] ?? [];
    expect(history?.getType()).toBe("human");
    expect(history?.content).toEqual(content);
    // The job in Redis carries a text that names each large image (for queue tools), not a second copy.
    const job = await fixture.queue().getJob(`run-${runId}`);
    expect(JSON.stringify(job?.data).length).toBeLessThan(MAX_RECORDED_IMAGE_CHARS);
    expect(JSON.stringify(job?.data)).toMatch(/image\/png image of \d+ KB, sha256 [0-9a-f]{64}, left out of the run record/);
  });

  it("messages reach the worker with every field: tool calls, metadata, usage, ids, names, artifacts, content blocks", async () => {
    const client = fixture.client();
    const seen: BaseMessage[][] = [];
    fixture.worker({ see: () => seeingExecutor(seen) });
    const history = [
      new HumanMessage({ content: [{ type: "text", text: "Look:" }, { type: "image", source_type: "base64", mime_type: "image/png", data: "iVBORw0KGgo=" }], id: "h1", name: "ada" }),
      new AIMessage({
        content: [{ type: "text", text: "Looking it up." }],
        tool_calls: [{ id: "call-1", name: "lookup", args: { order: "A1", filters: { since: "2025-01-01", tags: ["x", null] } }, type: "tool_call" }],
        invalid_tool_calls: [{ id: "call-2", name: "lookup", args: "{\"order\":", error: "Unexpected end of JSON input", type: "invalid_tool_call" }],
        additional_kwargs: { refusal: null, reasoning: { summary: ["checked the order"] } },
        response_metadata: { model_name: "gpt-x", finish_reason: "tool_calls", model_provider: "openai" },
        usage_metadata: { input_tokens: 12, output_tokens: 7, total_tokens: 19, input_token_details: { cache_read: 4 } },
        id: "ai-1",
        name: "helper",
      }),
      new ToolMessage({ content: "shipped", tool_call_id: "call-1", name: "lookup", artifact: { raw: { status: 200 } }, status: "success", id: "t1" }),
    ];
    const runId = await client.submit("see", { input: "And now?", chat_history: history });
    expect((await client.result(runId)).output).toBe("Seen.");
    const received = (seen[0] ?? []).slice(0, history.length);
    const fields = ["content", "tool_calls", "invalid_tool_calls", "additional_kwargs", "response_metadata", "usage_metadata", "id", "name", "tool_call_id", "artifact", "status"];
    const view = (message: BaseMessage) => ({ type: message.getType(), ...Object.fromEntries(fields.map((field) => [field, (message as unknown as Record<string, unknown>)[field]])) });
    expect(received.map(view)).toEqual(history.map(view));
    expect(received.map((message) => message.constructor.name)).toEqual(["HumanMessage", "AIMessage", "ToolMessage"]);
  });

  it("resume refuses a finished run, and queues nothing", async () => {
    const client = fixture.client();
    fixture.worker({ double: () => doublingExecutor() });
    const runId = await client.submit("double", { input: "double 2" });
    await client.result(runId);
    const jobs = await jobCount();
    const error = await client.resume(runId).catch((caught: unknown) => caught);
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("runId");
    expect((error as Error).message).toBe(`RunClient.resume: run "${runId}" is finished: there is nothing to resume (\`result(runId)\` gives its output; submit a new run to ask again).`);
    expect(await jobCount()).toBe(jobs);
    expect(await fixture.store.getRun(runId)).toMatchObject({ status: "finished" });
  });

  it("resume refuses a paused run without decisions (only decisions move it on), and queues nothing", async () => {
    const client = fixture.client();
    fixture.worker({ approve: () => doublingExecutor({ approval: true }) });
    const runId = await client.submit("approve", { input: "double 2" });
    expect((await client.result(runId)).stopReason).toBe("interrupted");
    const jobs = await jobCount();
    const error = await client.resume(runId).catch((caught: unknown) => caught);
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("decisions");
    expect((error as Error).message).toMatch(/RunClient\.resume: run ".*" is paused for approval: only `decisions` for its interrupts move it on/);
    expect(await jobCount()).toBe(jobs);
  });

  it("resume refuses decisions JSON would change (an edit with a Date), naming the path, and queues nothing", async () => {
    const client = fixture.client();
    fixture.worker({ approve: () => doublingExecutor({ approval: true }) });
    const runId = await client.submit("approve", { input: "double 2" });
    const { interrupts } = await client.result(runId);
    const id = interrupts?.[0]?.id as string;
    const jobs = await jobCount();
    const error = await client.resume(runId, { decisions: { [id]: { type: "edit", toolInput: { n: 2, at: new Date(0) } } } }).catch((caught: unknown) => caught);
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe(`decisions["${id}"].toolInput.at`);
    expect((error as Error).message).toMatch(/is a Date .*which decisions for a queued run cannot carry \(they travel as JSON\)\. Nothing was queued\./);
    expect(await jobCount()).toBe(jobs);
    expect((await fixture.store.getRun(runId))?.status).toBe("interrupted");
  });

  it("resume refuses a queued run whose job is waiting (a worker will take it), and queues nothing; it takes one whose job Redis lost", async () => {
    const client = fixture.client();
    const runId = await client.submit("double", { input: "double 3" }); // no worker yet: its job waits
    const jobs = await jobCount();
    const error = await client.resume(runId).catch((caught: unknown) => caught);
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("runId");
    expect((error as Error).message).toBe(
      `RunClient.resume: run "${runId}" is queued, its job is waiting: a worker will take it, so there is nothing to resume (a resume without decisions is for a queued run whose job Redis lost; cancel the run to stop it).`,
    );
    expect(await jobCount()).toBe(jobs);
    // Redis loses the job of a run queued over a second ago: now the resume queues one, and a
    // worker runs the run once.
    await fixture.queue().remove(startJobId(runId));
    const lost = fresh("lost");
    await fixture.store.createRun({ runId: lost, inputs: { input: "double 3" }, status: "queued", metadata: { executor: "double", queue: fixture.queueName }, at: Date.now() - 5000 });
    await client.resume(lost);
    expect(await jobCount()).toBe(jobs);
    fixture.worker({ double: () => doublingExecutor() });
    expect((await client.result(lost)).output).toBe("3 doubled is 6.");
  });

  it("resume refuses a run that submit recorded and is still queuing (within a second, no job yet), and the run gets one job", async () => {
    let client!: RunClient;
    let refused: unknown;
    // Between submit recording the run and queuing its job, a resume without decisions comes.
    const store = new Proxy(fixture.store, {
      get(target, name, receiver) {
        if (name === "createRun") {
          return async (run: NewRun) => {
            await target.createRun(run);
            refused = await client.resume(run.runId).catch((caught: unknown) => caught);
          };
        }
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as RunStore;
    client = fixture.client({ store });
    const runId = await client.submit("double", { input: "double 4" });
    expect(InvalidArgumentError.isInstance(refused) && refused.argument).toBe("runId");
    expect((refused as Error).message).toBe(
      `RunClient.resume: run "${runId}" was queued less than a second ago and has no job yet. If \`submit\` or a resume with decisions queued it, its job is being queued (the run is recorded first, then its job) and a worker will take it: there is nothing to resume. If its decisions were recorded with \`recordDecisions\`, which queues no job, call resume(runId) again once it has been queued for a second (\`reconcile()\`, or a follower of the run, queues it then too); a resume with decisions records them and queues the job in one call. Cancel the run to stop it.`,
    );
    expect(await jobCount()).toBe(1);
    fixture.worker({ double: () => doublingExecutor() });
    expect((await client.result(runId)).output).toBe("4 doubled is 8.");
  });

  it("resume, given the workers' tools, refuses an edit its tool's schema refuses, naming the tool, and records and queues nothing", async () => {
    const double = tool(async ({ n }) => String(n * 2), { name: "double", description: "Doubles n.", schema: z.object({ n: z.number() }) });
    const client = fixture.client({ tools: [double] });
    fixture.worker({ approve: () => doublingExecutor({ approval: true }) });
    const runId = await client.submit("approve", { input: "double 2" });
    const { interrupts } = await client.result(runId);
    const id = interrupts?.[0]?.id as string;
    const jobs = await jobCount();
    const events = (await fixture.store.readEvents(runId)).length;
    const error = await client.resume(runId, { decisions: { [id]: { type: "edit", toolInput: { n: "two" } } } }).catch((caught: unknown) => caught);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/RunClient\.resume: .*the edited input for ".*" \(tool "double"\) does not fit the tool's schema: n: /);
    expect(await jobCount()).toBe(jobs);
    expect((await fixture.store.readEvents(runId)).length).toBe(events);
    expect((await fixture.store.getRun(runId))?.status).toBe("interrupted");
    // An edit that fits goes through, and the worker runs the tool with it.
    await client.resume(runId, { decisions: { [id]: { type: "edit", toolInput: { n: 5 } } } });
    expect((await client.result(runId)).output).toContain("10");
  });

  it("refuses tools that are not an array of named tools", () => {
    expect(() => fixture.client({ tools: {} as never })).toThrow(/RunClient: `tools` must be an array of tools/);
    expect(() => fixture.client({ tools: [{}] as never })).toThrow(InvalidArgumentError);
  });

  it("resume refuses a run running on a worker with RunBusyError naming its lease holder, and queues nothing", async () => {
    const client = fixture.client();
    let started = false;
    fixture.worker({ hang: () => doublingExecutor({ toolMs: 60_000, onTool: (what) => void (what === "start" && (started = true)) }) });
    const runId = await client.submit("hang", { input: "double 1" });
    await until(() => started, "the tool to start");
    const info = await fixture.store.getRun(runId);
    const jobs = await jobCount();
    const error = await client.resume(runId).catch((caught: unknown) => caught);
    expect(RunBusyError.isInstance(error) && error.owner).toBe(info?.owner);
    expect((error as Error).message).toMatch(/is running in another process .* Wait for it to end, or for the lease to expire if that process died, then resume\./);
    expect(await jobCount()).toBe(jobs);
    await client.cancel(runId);
    await until(async () => (await fixture.store.getRun(runId))?.status === "cancelled", "the cancel");
  });

  it("resume still takes a run whose worker died (its lease expired), and a failed run", async () => {
    const client = fixture.client();
    fixture.worker({ double: () => doublingExecutor() });
    const crashed = fresh("crashed");
    await fixture.store.createRun({ runId: crashed, inputs: { input: "double 4" }, status: "running", owner: "dead", leaseMs: 1000, metadata: { executor: "double" }, at: Date.now() - 5000 });
    await client.resume(crashed);
    expect((await client.result(crashed)).output).toBe("4 doubled is 8.");
    const failed = await client.submit("nope", { input: "double 5" }); // no worker has "nope": it fails
    await expect(client.result(failed)).rejects.toThrow(/No executor named "nope"/);
    await expect(client.resume(failed)).resolves.toBeUndefined();
  });
});
