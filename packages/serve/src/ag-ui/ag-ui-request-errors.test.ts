import { HttpAgent } from "@ag-ui/client";
import { type AgentExecutor, type AgentStreamEvent, sendRunMessage } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { tool } from "@langchain/core/tools";
import { Observable } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";
import { ANSWER, weatherExecutor } from "../test-helpers/weather-executor";
import { gatedWorkTool, workExecutor } from "../test-helpers/work-executor";
import { createAGUIHandler } from "./create-ag-ui-handler";
import { BAD_INPUTS_HOOKS, unhandledRejectionsDuring } from "../test-helpers/bad-inputs-hooks";

afterEach(closeLoopback);

const serve = async (executor: AgentExecutor) => `${await startLoopback(createAGUIHandler(executor))}/agent`;

const post = (url: string, body: unknown) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** A response's status, its content-type's type and its text. */
async function answer(response: Response): Promise<[number, string, string]> {
  return [response.status, (response.headers.get("content-type") ?? "").split(";")[0] ?? "", await response.text()];
}

/** The AG-UI events of an event-stream body. */
const eventsOf = (text: string) => text.split("\n\n").filter((frame) => frame.startsWith("data: ")).map((frame) => JSON.parse(frame.slice("data: ".length)) as { type: string; message?: string });

const question = [{ id: "u1", role: "user", content: "Weather and time in Paris?" }];

/** Pauses run `runId` for approval of get_time; returns the interrupt's id. */
async function pause(url: string, runId: string): Promise<string> {
  const events = eventsOf(await (await post(url, { threadId: `thread-${runId}`, runId, messages: question })).text());
  const finished = events.at(-1) as { type: string; outcome?: { type: string; interrupts: { id: string }[] } };
  expect(finished.outcome?.type).toBe("interrupt");
  return finished.outcome?.interrupts[0]?.id ?? "";
}

const resume = (url: string, pausedRunId: string, interruptId: string) =>
  post(url, { threadId: `thread-${pausedRunId}`, runId: `${pausedRunId}-again`, messages: [], state: { agentrx: { runId: pausedRunId } }, resume: [{ interruptId, status: "resolved", payload: { approved: true } }] });

describe("createAGUIHandler, requests whose run cannot start", () => {
  it("answers 409 to a RunAgentInput whose runId names a recorded run: HttpAgent's runAgent rejects naming it, and the recorded run is untouched", async () => {
    const store = new MemoryRunStore();
    const url = await serve(weatherExecutor({ store }));
    const first = new HttpAgent({ url, threadId: "thread-a" });
    first.messages = [{ id: "u1", role: "user", content: "Weather and time in Paris?" }];
    expect((await first.runAgent({ runId: "run-dup" })).result).toBe(ANSWER);
    const before = await store.getRun("run-dup");

    const second = new HttpAgent({ url, threadId: "thread-b" });
    second.messages = [{ id: "u2", role: "user", content: "And in Rome?" }];
    const events: string[] = [];
    const error = await second.runAgent({ runId: "run-dup" }, { onEvent: ({ event }) => void events.push(event.type) }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ status: 409, message: 'HTTP 409: Run "run-dup" exists already: a new run needs a new `runId` (a paused run is answered with `resume` entries and its state).\n' });
    expect(events).toEqual([]); // no stream was opened
    expect(await store.getRun("run-dup")).toEqual(before);
  });

  it("answers 404 to a resume of a run the store does not have, and 409 to a second resume of a pause already answered", async () => {
    const url = await serve(weatherExecutor({ approval: true, store: new MemoryRunStore() }));
    expect(await answer(await resume(url, "no-such-run", "call-0-0"))).toEqual([404, "text/plain", 'No run "no-such-run" is recorded: `state.agentrx.runId` must name the paused run to resume.\n']);

    const interruptId = await pause(url, "run-p");
    const [status, type, text] = await answer(await resume(url, "run-p", interruptId));
    expect([status, type, eventsOf(text).at(-1)]).toEqual([200, "text/event-stream", expect.objectContaining({ type: "RUN_FINISHED", result: ANSWER })]);
    expect(await answer(await resume(url, "run-p", interruptId))).toEqual([409, "text/plain", 'Run "run-p" is finished, not paused: there is nothing to resume (a pause is answered once).\n']);
  });

  it("answers 400 naming the interrupt to resume entries the paused run does not wait for; the run stays paused and takes the right ones", async () => {
    const store = new MemoryRunStore();
    const url = await serve(weatherExecutor({ approval: true, store }));
    const interruptId = await pause(url, "run-q");
    const [status, type, text] = await answer(await resume(url, "run-q", "no-such-interrupt"));
    expect([status, type]).toEqual([400, "text/plain"]);
    expect(text).toBe(`The resume entries do not fit the paused run: run "run-q" has no interrupt "no-such-interrupt" waiting for a decision (waiting: ${interruptId}).\n`);
    expect((await store.getRun("run-q"))?.status).toBe("interrupted");
    expect(eventsOf(await (await resume(url, "run-q", interruptId)).text()).at(-1)).toMatchObject({ type: "RUN_FINISHED", result: ANSWER });
  });

  it("answers 409 naming the pause the run waits on now to resume entries for an earlier pause, after another answer resumed it and it paused again", async () => {
    const store = new MemoryRunStore();
    const url = await serve(weatherExecutor({ approval: true, askAgain: true, store }));
    const first = await pause(url, "run-s");
    const resumed = eventsOf(await (await resume(url, "run-s", first)).text()).at(-1) as { type: string; outcome?: { type: string; interrupts: { id: string }[] } };
    expect(resumed.outcome?.type).toBe("interrupt");
    const waiting = resumed.outcome?.interrupts[0]?.id as string;
    expect(waiting).not.toBe(first);
    expect(await answer(await resume(url, "run-s", first))).toEqual([
      409,
      "text/plain",
      `Run "run-s" paused again: "${first}" answers an earlier pause, which is over. It waits on ${waiting} (get_time) now: answer that pause.\n`,
    ]);
    expect((await store.getRun("run-s"))?.status).toBe("interrupted");
    expect(eventsOf(await (await resume(url, "run-s", waiting)).text()).at(-1)).toMatchObject({ type: "RUN_FINISHED", result: ANSWER });
  });

  it("answers 409 to the second of two requests for the same new runId that both passed the check: the store refuses its record, and the first runs to its end", async () => {
    // Both requests find no run "run-race" before either starts it.
    let checked = 0;
    let release!: () => void;
    const bothChecked = new Promise<void>((resolve) => (release = resolve));
    class CheckedTogether extends MemoryRunStore {
      override async getRun(runId: string) {
        if (checked < 2 && ++checked === 2) release();
        if (checked <= 2) await bothChecked;
        return super.getRun(runId);
      }
    }
    const store = new CheckedTogether();
    const url = await serve(weatherExecutor({ store }));
    const answers = await Promise.all(["thread-1", "thread-2"].map(async (threadId) => answer(await post(url, { threadId, runId: "run-race", messages: question }))));
    expect(checked).toBe(2);
    answers.sort(([a], [b]) => a - b);
    const [[okStatus, okType, okText], refused] = answers as [[number, string, string], [number, string, string]];
    expect([okStatus, okType, eventsOf(okText).at(-1)]).toEqual([200, "text/event-stream", expect.objectContaining({ type: "RUN_FINISHED", result: ANSWER })]);
    expect(refused).toEqual([409, "text/plain", 'Run "run-race" exists already: a new run needs a new `runId` (a paused run is answered with `resume` entries and its state).\n']);
    expect(await store.getRun("run-race")).toMatchObject({ status: "finished" });
  });

  it("answers 409 to a new input on a thread whose run is going on, when the executor's followUp is reject", async () => {
    const { work: slow, running: toolStarted, release: finishTool } = gatedWorkTool();
    const executor = workExecutor(slow, [{ toolCalls: [{ name: "work", args: { name: "a" } }] }, "All done."], { store: new MemoryRunStore(), followUp: "reject" });
    const url = await serve(executor);
    const running = post(url, { threadId: "thread-busy", runId: "run-a", messages: [{ id: "u1", role: "user", content: "work" }] });
    await toolStarted;
    expect(await answer(await post(url, { threadId: "thread-busy", runId: "run-b", messages: [{ id: "u2", role: "user", content: "more" }] }))).toEqual([
      409,
      "text/plain",
      'Thread "thread-busy" has a run going on ("run-a"): wait for it to end before starting another.\n',
    ]);
    finishTool();
    expect(eventsOf(await (await running).text()).at(-1)).toMatchObject({ type: "RUN_FINISHED", result: "All done." });
  });

  it("answers 429 with Retry-After to a new input sent to a thread's running run (followUp interrupt) whose inbox is full", async () => {
    const { work: slow, running: toolStarted, release: finishTool } = gatedWorkTool();
    const store = new MemoryRunStore();
    const executor = workExecutor(slow, [{ toolCalls: [{ name: "work", args: { name: "a" } }] }, "All done."], { store, followUp: "interrupt" });
    const url = await serve(executor);
    const running = post(url, { threadId: "thread-full", runId: "run-full", messages: [{ id: "u1", role: "user", content: "work" }] });
    await toolStarted;
    for (let i = 0; i < 100; i++) await sendRunMessage("run-full", `note ${i}`, { store, operation: "test" });
    const refused = await post(url, { threadId: "thread-full", runId: "run-more", messages: [{ id: "u2", role: "user", content: "more" }] });
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await answer(refused)).toEqual([
      429,
      "text/plain",
      'Thread "thread-full" has a run going on ("run-full") with 100 messages waiting to join it, the most it holds (maxPendingMessages 100): send the input again once the run has taken them.\n',
    ]);
    finishTool();
    expect(eventsOf(await (await running).text()).at(-1)).toMatchObject({ type: "RUN_FINISHED" });
  });

  it("answers RUN_ERROR naming `inputs` when it returns no inputs object (undefined, a number, a Promise), leaving no rejection unhandled", async () => {
    const unhandled = await unhandledRejectionsDuring(async () => {
      for (const [inputs, shown] of BAD_INPUTS_HOOKS) {
        const url = `${await startLoopback(createAGUIHandler(weatherExecutor(), { inputs: inputs as never }))}/agent`;
        const [status, , text] = await answer(await post(url, { threadId: "t", runId: "r", messages: question }));
        expect([status, eventsOf(text).map((event) => [event.type, event.message])]).toEqual([
          200,
          [
            ["RUN_STARTED", undefined],
            ["RUN_ERROR", `createAGUIHandler: \`inputs\` must return the run's inputs, an object such as { input: "..." }, synchronously; got ${shown}.`],
          ],
        ]);
        await closeLoopback();
      }
    });
    expect(unhandled).toEqual([]);
  });

  it("answers a valid request whose run fails before it starts with RUN_ERROR in a 200 stream, whatever fails: the store's check, the memory, inputs; HttpAgent hears it as a run error", async () => {
    class UnreachableStore extends MemoryRunStore {
      override async getRun(): Promise<never> {
        throw new Error("The run store is unreachable.");
      }
    }
    const failingMemory = {
      getMessages: async (): Promise<never> => {
        throw new Error("The memory is unreachable.");
      },
      addMessages: async () => undefined,
    };
    const cases: [string, () => Promise<string>, string][] = [
      ["the store's check of the run id", () => serve(weatherExecutor({ store: new UnreachableStore() })), "The run store is unreachable."],
      ["the store's check of the paused run", async () => `${await startLoopback(createAGUIHandler(weatherExecutor({ approval: true, store: new UnreachableStore() })))}/agent`, "The run store is unreachable."],
      ["the thread's memory", () => serve(workExecutor(tool(async () => "done", { name: "work", description: "Works.", schema: z.object({}) }), ["Done."], { memory: { memory: failingMemory } })), "The memory is unreachable."],
      [
        "inputs",
        async () =>
          `${await startLoopback(
            createAGUIHandler(weatherExecutor(), {
              inputs: () => {
                throw new Error("No input for this request.");
              },
            }),
          )}/agent`,
        "No input for this request.",
      ],
    ];
    for (const [what, start, message] of cases) {
      const url = await start();
      const resuming = what === "the store's check of the paused run";
      const resumeEntries = [{ interruptId: "i", status: "resolved" as const, payload: { approved: true } }];
      const state = { agentrx: { runId: "paused" } };
      const body = { threadId: "t", runId: "r", messages: question, ...(resuming ? { state, resume: resumeEntries } : {}) };
      const [status, type, text] = await answer(await post(url, body));
      expect([what, status, type, eventsOf(text).map((event) => [event.type, event.message])]).toEqual([
        what,
        200,
        "text/event-stream",
        [
          ["RUN_STARTED", undefined],
          ["RUN_ERROR", message],
        ],
      ]);
      // What an AG-UI client sees: a run error, with the message, not a failed HTTP request.
      const agent = new HttpAgent({ url, threadId: "t", ...(resuming ? { initialState: state } : {}) });
      agent.messages = [{ id: "u1", role: "user", content: "Weather and time in Paris?" }];
      const heard: string[] = [];
      const outcome = await agent
        .runAgent(resuming ? { runId: "r2", resume: resumeEntries } : { runId: "r2" }, {
          onRunErrorEvent: ({ event }) => void heard.push(`RUN_ERROR: ${event.message}`),
          onRunFailed: ({ error }) => void heard.push(`failed: ${error.message}`),
        })
        .then(
          () => "resolved",
          () => "rejected",
        );
      expect([what, heard, outcome]).toEqual([what, [`RUN_ERROR: ${message}`], "resolved"]);
      await closeLoopback();
    }
  });

  it("sends an error of the run itself as RUN_ERROR in a 200 stream, whether it comes before the run's first event or after", async () => {
    const failing = (withStart: boolean) =>
      ({
        stream: (_inputs: unknown, config: { runId: string }) =>
          new Observable<AgentStreamEvent>((subscriber) => {
            if (withStart) subscriber.next({ type: "start", runId: config.runId, inputs: {}, resumed: false, at: 0 });
            subscriber.error(new Error("The model is unavailable."));
          }),
      }) as unknown as AgentExecutor;
    for (const withStart of [false, true]) {
      const url = await serve(failing(withStart));
      const [status, type, text] = await answer(await post(url, { threadId: "t", runId: "r", messages: question }));
      expect([withStart, status, type]).toEqual([withStart, 200, "text/event-stream"]);
      expect(eventsOf(text).at(-1)).toMatchObject({ type: "RUN_ERROR", message: "The model is unavailable." });
      await closeLoopback();
    }
  });
});
