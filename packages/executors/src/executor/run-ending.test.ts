// RunEnding alone, over a plain fake of its narrow context (RunEndingContext): a real RunState
// changed through the real transitions; a subscriber, chain run, recorder and memory that record
// what they are told, in one shared log (so the order of the end is visible).
//
// When the chain run, the memory or the recorder refuses the end, the run that had finished fails
// after all: its state says `failed`, as its record does.
import { AbortError } from "@agentrx/core";
import type { AgentAction, AgentStep } from "@agentrx/core";
import type { CallbackManagerForChainRun } from "@langchain/core/callbacks/manager";
import type { BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import type { RunRecorder } from "../runs/run-recorder";
import type { ConversationMemory } from "./conversation-memory";
import type { AgentStreamEvent, InterruptEvent, OutputEvent } from "./events";
import { RunEnding, type RunEndingContext, type RunSubscriber } from "./run-ending";
import { type RunState, type RunTransition, initialRunState, transition } from "./run-state";

const act = (tool: string): AgentAction => ({ tool, toolInput: {}, log: "" });
const finishWith = (output: unknown, extra: Record<string, unknown> = {}) => ({ returnValues: { output, ...extra }, log: String(output) });

interface Options {
  returnIntermediateSteps?: boolean;
  chainRun?: "ok" | "refuses";
  recorder?: "ok" | "refuses";
  memory?: "ok" | "refuses" | "hangs";
  /** When the run is cancelled, as `onCancel` hears of it: before the end began (`already`), or while the memory writes. */
  cancel?: { when: "already" | "writing"; notify: boolean };
  threadId?: string;
}

function fakeRun(options: Options = {}) {
  const log: string[] = [];
  const events: AgentStreamEvent[] = [];
  const errors: unknown[] = [];
  const recorded: { event: AgentStreamEvent; update?: unknown }[] = [];
  const flushes: unknown[] = [];
  const remembered: { threadId: string; messages: BaseMessage[]; runId: string }[] = [];
  const chainEnds: unknown[] = [];
  const aborted: unknown[] = [];
  let cancelled: ((error: AbortError, notify: boolean) => void) | undefined;
  const state: RunState = initialRunState("run-1", options.threadId, { input: "hello" });
  const subscriber = {
    closed: false as boolean,
    next(event: AgentStreamEvent) {
      log.push(`next ${event.type}`);
      events.push(event);
    },
    error(error: unknown) {
      log.push("error");
      errors.push(error);
      subscriber.closed = true;
    },
    complete() {
      log.push("complete");
      subscriber.closed = true;
    },
  } satisfies RunSubscriber;
  const chainRun =
    options.chainRun === undefined
      ? undefined
      : ({
          handleAgentEnd() {
            log.push("handleAgentEnd");
            return Promise.resolve();
          },
          handleChainEnd(outputs: unknown) {
            log.push("handleChainEnd");
            chainEnds.push(outputs);
            return options.chainRun === "refuses" ? Promise.reject(new Error("handler refused")) : Promise.resolve();
          },
          handleChainError(error: unknown) {
            log.push(`handleChainError ${(error as Error).message}`);
            return Promise.resolve();
          },
        } as unknown as CallbackManagerForChainRun);
  const recorder =
    options.recorder === undefined
      ? undefined
      : ({
          record(event: AgentStreamEvent) {
            log.push(`record ${event.type}`);
            recorded.push({ event });
          },
          flush(update: unknown) {
            log.push("flush");
            flushes.push(update);
            return options.recorder === "refuses" ? Promise.reject(new Error("store down")) : Promise.resolve();
          },
          stop() {
            log.push("recorder.stop");
          },
        } as unknown as RunRecorder);
  const memory =
    options.memory === undefined
      ? undefined
      : {
          historyKey: "history",
          inputKey: "input",
          memory: {
            getMessages: () => Promise.resolve([]),
            addMessages(threadId: string, messages: BaseMessage[], context: { runId: string }) {
              log.push("addMessages");
              remembered.push({ threadId, messages, runId: context.runId });
              if (options.memory === "hangs") {
                if (options.cancel?.when === "writing") setTimeout(() => cancelled?.(new AbortError({ message: "stop it" }), options.cancel?.notify ?? false), 0);
                return new Promise<void>(() => undefined);
              }
              return options.memory === "refuses" ? Promise.reject(new Error("memory full")) : Promise.resolve();
            },
          } as unknown as ConversationMemory,
        };
  const run = {
    state,
    options: { returnIntermediateSteps: options.returnIntermediateSteps ?? false, memory },
    subscriber,
    chainRun,
    recorder,
    telemetry: undefined,
    dispatch(event: RunTransition) {
      log.push(`dispatch ${event.type}`);
      transition(state, event);
    },
    cleanup() {
      log.push("cleanup");
    },
    abortAll(error: unknown) {
      log.push("abortAll");
      aborted.push(error);
    },
    onCancel(callback: (error: AbortError, notify: boolean) => void) {
      if (options.cancel?.when === "already") {
        callback(new AbortError({ message: "stop it" }), options.cancel.notify);
        return () => undefined;
      }
      cancelled = callback;
      return () => {
        log.push("unwatch");
        cancelled = undefined;
      };
    },
  } satisfies RunEndingContext;
  return { run, state, log, events, errors, recorded, flushes, remembered, chainEnds, aborted };
}

const output = (events: AgentStreamEvent[]) => events.find((e): e is OutputEvent => e.type === "output");
const flushPromises = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("RunEnding.complete", () => {
  it("ends the run with its output: the state is done, cleanup runs, then the subscriber gets the output event and completes", async () => {
    const fake = fakeRun();
    await new RunEnding(fake.run).complete(finishWith("the answer", { extra: 1 }), "finish");
    expect(fake.state.phase).toBe("done");
    expect(fake.state.stopReason).toBe("finish");
    expect(fake.log).toEqual(["dispatch finished", "cleanup", "next output", "complete"]);
    const event = output(fake.events);
    expect(event).toMatchObject({ type: "output", runId: "run-1", output: "the answer", returnValues: { output: "the answer", extra: 1 }, stopReason: "finish" });
    expect(event?.intermediateSteps).toBeUndefined();
    expect(event?.stoppedBy).toBeUndefined();
  });

  it("makes a non-string output a string (JSON); keeps structuredOutput", async () => {
    const fake = fakeRun();
    await new RunEnding(fake.run).complete(finishWith({ a: 1 }, { structuredOutput: { a: 1 } }), "finish");
    expect(output(fake.events)).toMatchObject({ output: '{"a":1}', structuredOutput: { a: 1 } });
  });

  it("does nothing once the run has ended", async () => {
    const fake = fakeRun();
    fake.run.dispatch({ type: "cancelled" });
    fake.log.length = 0;
    await new RunEnding(fake.run).complete(finishWith("late"), "finish");
    expect(fake.log).toEqual([]);
    expect(fake.events).toEqual([]);
  });

  it("with returnIntermediateSteps: the run's steps, and for a cut-short turn the calls of it that ran", async () => {
    const fake = fakeRun({ returnIntermediateSteps: true });
    const done: AgentStep = { action: act("a"), observation: "A" };
    fake.state.steps = [done];
    fake.run.dispatch({ type: "agentCalled" });
    fake.run.dispatch({ type: "turnStarted", actions: [act("b"), act("c")] });
    const ran: AgentStep = { action: act("c"), observation: "C" };
    fake.run.dispatch({ type: "toolFinished", index: 1, step: ran });
    await new RunEnding(fake.run).complete(finishWith("stopped"), "max_iterations");
    expect(output(fake.events)?.intermediateSteps).toEqual([done, ran]);
  });

  it("reports stoppedBy only for a run a budget, guardrail or repeated call stopped; usage and generateError when there are", async () => {
    for (const [reason, shown] of [
      ["budget", true],
      ["guardrail", true],
      ["repeated_call", true],
      ["max_iterations", false],
    ] as const) {
      const fake = fakeRun();
      fake.run.dispatch({ type: "halted", reason, stoppedBy: { why: reason } });
      fake.run.dispatch({ type: "usageReported", usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } });
      fake.run.dispatch({ type: "generateFailed", message: "model down" });
      await new RunEnding(fake.run).complete(finishWith("stopped"), reason);
      const event = output(fake.events);
      expect(event?.stoppedBy).toEqual(shown ? { why: reason } : undefined);
      expect(event?.usage).toEqual({ input_tokens: 1, output_tokens: 2, total_tokens: 3 });
      expect(event?.generateError).toBe("model down");
    }
  });

  it("a pause: the state is interrupted, the interrupt event comes before the output", async () => {
    const fake = fakeRun();
    const interrupts = [{ id: "call-0-0", tool: "pay", toolInput: {}, iteration: 0, index: 0, reason: "approval" as const }];
    const interrupt: InterruptEvent = { type: "interrupt", runId: "run-1", interrupts, at: 1 };
    await new RunEnding(fake.run).complete(finishWith(""), "interrupted", interrupt);
    expect(fake.state.phase).toBe("interrupted");
    expect(fake.state.interrupts).toEqual(interrupts);
    expect(fake.log).toEqual(["dispatch paused", "cleanup", "next interrupt", "next output", "complete"]);
    expect(fake.events[0]).toBe(interrupt);
  });

  it("tells the chain run, records the output, gives the memory its messages, then flushes and releases the record before the subscriber sees the output", async () => {
    const fake = fakeRun({ chainRun: "ok", recorder: "ok", memory: "ok", threadId: "t-1" });
    fake.state.iteration = 2;
    await new RunEnding(fake.run).complete(finishWith("the answer"), "finish");
    // The answer is durable before the thread gets it (docs/memory.md): a resume completes a run stopped in between.
    // (The run is watched for a cancellation while the memory writes: see the tests of a cancelled end.)
    expect(fake.log).toEqual(["dispatch finished", "cleanup", "handleAgentEnd", "handleChainEnd", "record output", "flush", "addMessages", "unwatch", "flush", "recorder.stop", "next output", "complete"]);
    expect(fake.chainEnds).toEqual([{ output: "the answer", stopReason: "finish" }]);
    expect(fake.remembered).toHaveLength(1);
    expect(fake.remembered[0]?.threadId).toBe("t-1");
    expect(fake.remembered[0]?.runId).toBe("run-1");
    expect(fake.remembered[0]?.messages.map((m) => m.content)).toEqual(["hello", "the answer"]);
    expect(fake.recorded[0]?.event).toMatchObject({ type: "output", output: "the answer", iterations: 2 });
    expect(fake.flushes).toEqual([undefined, { status: "finished", stopReason: "finish", release: true }]);
  });

  it("a pause is recorded (interrupt, then output, status interrupted) and not put in the memory", async () => {
    const fake = fakeRun({ recorder: "ok", memory: "ok", threadId: "t-1" });
    const interrupt: InterruptEvent = { type: "interrupt", runId: "run-1", interrupts: [], at: 1 };
    await new RunEnding(fake.run).complete(finishWith(""), "interrupted", interrupt);
    expect(fake.recorded.map((r) => r.event.type)).toEqual(["interrupt", "output"]);
    expect(fake.flushes).toEqual([{ status: "interrupted", stopReason: "interrupted", release: true }]);
    expect(fake.remembered).toEqual([]);
  });

  it("a chain-run handler that refuses the end fails the run with its error: no output", async () => {
    const fake = fakeRun({ chainRun: "refuses", recorder: "ok" });
    await new RunEnding(fake.run).complete(finishWith("x"), "finish");
    expect(fake.log).toContain("dispatch endRefused");
    expect(fake.state.phase).toBe("failed"); // the state agrees with the record
    expect(fake.events).toEqual([]);
    expect((fake.errors[0] as Error).message).toBe("handler refused");
    expect(fake.flushes).toEqual([{ status: "failed", error: "Error: handler refused", release: true }]);
  });

  it("a memory that refuses the run's messages fails the run: the record (which has the output) says why; the subscriber sees no output", async () => {
    const fake = fakeRun({ memory: "refuses", recorder: "ok", threadId: "t-1" });
    await new RunEnding(fake.run).complete(finishWith("x"), "finish");
    expect(fake.log).toContain("dispatch endRefused");
    expect(fake.state.phase).toBe("failed"); // the state agrees with the record
    expect(fake.events).toEqual([]);
    expect((fake.errors[0] as Error).message).toBe("memory full");
    expect(fake.flushes).toEqual([undefined, { status: "failed", error: "the conversation memory refused the run's messages: Error: memory full", release: true }]);
  });

  it.each([true, false])(
    "a run cancelled while its memory's write hangs (notify: %s) ends at once, cancelled: the record (which has the output) says why, the subscriber sees no output",
    async (notify) => {
      const fake = fakeRun({ memory: "hangs", recorder: "ok", threadId: "t-1", cancel: { when: "writing", notify } });
      await new RunEnding(fake.run).complete(finishWith("x"), "finish");
      expect(fake.log).toEqual(["dispatch finished", "cleanup", "record output", "flush", "addMessages", "dispatch endCancelled", "recorder.stop", "flush", ...(notify ? ["error"] : [])]);
      expect(fake.state.phase).toBe("cancelled"); // the state agrees with the record
      expect(fake.events).toEqual([]);
      expect(fake.flushes).toEqual([
        undefined,
        { status: "cancelled", error: "stop it (while the conversation memory took the run's messages; the answer is recorded, and resuming the run appends them)", release: true },
      ]);
      expect(fake.errors.map((error) => (error as Error).message)).toEqual(notify ? ["stop it"] : []);
    },
  );

  it("a run cancelled before its memory's write began: the memory is not called, the run is cancelled", async () => {
    const fake = fakeRun({ memory: "ok", recorder: "ok", threadId: "t-1", cancel: { when: "already", notify: true } });
    await new RunEnding(fake.run).complete(finishWith("x"), "finish");
    expect(fake.remembered).toEqual([]);
    expect(fake.state.phase).toBe("cancelled");
    expect(fake.flushes.at(-1)).toMatchObject({ status: "cancelled" });
    expect(fake.errors.map((error) => (error as Error).message)).toEqual(["stop it"]);
  });

  it("a recorder whose final write fails fails the run: the subscriber never sees an output that is not durable", async () => {
    const fake = fakeRun({ recorder: "refuses" });
    await new RunEnding(fake.run).complete(finishWith("x"), "finish");
    expect(fake.log).toContain("dispatch endRefused");
    expect(fake.state.phase).toBe("failed"); // the state agrees with the record
    expect(fake.events).toEqual([]);
    expect((fake.errors[0] as Error).message).toBe("store down");
    expect(fake.log).toContain("recorder.stop");
  });

  it("tells nobody once the subscriber is closed (unsubscribed meanwhile)", async () => {
    const fake = fakeRun();
    fake.run.subscriber.closed = true;
    await new RunEnding(fake.run).complete(finishWith("x"), "finish");
    expect(fake.events).toEqual([]);
    expect(fake.state.phase).toBe("done");
  });
});

describe("RunEnding.fail and cancel", () => {
  it("fail: the state is failed, everything in flight is aborted, the record says why, then the subscriber errors", async () => {
    const fake = fakeRun({ recorder: "ok" });
    const error = new Error("boom");
    new RunEnding(fake.run).fail(error);
    expect(fake.state.phase).toBe("failed");
    expect(fake.aborted).toEqual([error]);
    expect(fake.flushes).toEqual([{ status: "failed", error: "Error: boom", release: true }]);
    // Not before the write of `failed` settled: a caller who sees the error reads the same from the store.
    expect(fake.errors).toEqual([]);
    await flushPromises();
    expect(fake.errors).toEqual([error]);
  });

  it("fail with a recorder whose write fails: the subscriber still errors, with the run's error", async () => {
    const fake = fakeRun({ recorder: "refuses" });
    const error = new Error("boom");
    new RunEnding(fake.run).fail(error);
    await flushPromises();
    expect(fake.errors).toEqual([error]);
  });

  it("fail without a recorder errors the subscriber at once", () => {
    const fake = fakeRun();
    const error = new Error("boom");
    new RunEnding(fake.run).fail(error);
    expect(fake.errors).toEqual([error]);
  });

  it("fail with a chain run: the subscriber errors after the chain run was told", async () => {
    const fake = fakeRun({ chainRun: "ok" });
    const error = new Error("boom");
    new RunEnding(fake.run).fail(error);
    expect(fake.errors).toEqual([]);
    await flushPromises();
    expect(fake.log.slice(-2)).toEqual(["handleChainError boom", "error"]);
    expect(fake.errors).toEqual([error]);
  });

  it("cancel: the state is cancelled, everything is aborted; notify errors the subscriber once the record says so, else it is left alone", async () => {
    const notified = fakeRun({ recorder: "ok" });
    const error = new AbortError({ message: "stop it" });
    new RunEnding(notified.run).cancel(error, true);
    expect(notified.state.phase).toBe("cancelled");
    expect(notified.aborted).toEqual([error]);
    expect(notified.flushes).toEqual([{ status: "cancelled", error: "stop it", release: true }]);
    await flushPromises();
    expect(notified.errors).toEqual([error]);
    const quiet = fakeRun();
    new RunEnding(quiet.run).cancel(error, false);
    expect(quiet.state.phase).toBe("cancelled");
    expect(quiet.errors).toEqual([]);
  });

  it("neither does anything once the run has ended", () => {
    const fake = fakeRun({ recorder: "ok" });
    const ending = new RunEnding(fake.run);
    fake.run.dispatch({ type: "finished", stopReason: "finish" });
    fake.log.length = 0;
    ending.fail(new Error("late"));
    ending.cancel(new AbortError({ message: "late" }), true);
    expect(fake.log).toEqual([]);
    expect(fake.state.phase).toBe("done");
  });
});
