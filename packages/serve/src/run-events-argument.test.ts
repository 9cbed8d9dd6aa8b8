// What the functions that take a run's events do with something else: the executor itself, a
// Promise, an array, an `executor.invoke(...)` observable (the run's result, not its events).
import { InvalidArgumentError } from "@agentrx/core";
import type { AgentStreamEvent } from "@agentrx/executors";
import { Observable, concat, lastValueFrom, of, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { toAGUIEvents } from "./ag-ui/to-ag-ui-events";
import { weatherExecutor } from "./test-helpers/weather-executor";
import { toUIMessageChunks } from "./ui-message-stream/to-ui-message-chunks";
import { toUIMessageStream } from "./ui-message-stream/to-ui-message-stream";
import { toUIMessageStreamResponse } from "./ui-message-stream/to-ui-message-stream-response";

const INVOKE = "pass `executor.stream(...)`, not `executor.invoke(...)`";

/** Each function, called on `events` as far as its first output (each throws before it when it throws). */
const functions: [string, (events: Observable<AgentStreamEvent>) => unknown][] = [
  ["toUIMessageStreamResponse", (events) => toUIMessageStreamResponse(events)],
  ["toUIMessageStream", (events) => toUIMessageStream(events)],
  ["toUIMessageChunks", (events) => toUIMessageChunks()(events)],
  ["toAGUIEvents", (events) => toAGUIEvents(events, { threadId: "t1", runId: "r1" })],
];

async function readAll(stream: ReadableStream<unknown>): Promise<unknown[]> {
  const chunks: unknown[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<unknown>) chunks.push(chunk);
  return chunks;
}

describe("the functions that take a run's events", () => {
  it.each(functions)("%s refuses what is not an Observable, naming what it got and what to pass", async (name, call) => {
    const executor = weatherExecutor();
    const refusal = (value: unknown) => {
      try {
        call(value as Observable<AgentStreamEvent>);
      } catch (error) {
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        return (error as Error).message;
      }
      throw new Error(`${name} took ${String(value)}`);
    };
    const argument = name === "toUIMessageChunks" ? "source" : "events$";
    expect(refusal(executor)).toBe(
      `${name}: \`${argument}\` must be a run's event stream, such as executor.stream({ input }), got an AgentExecutor: pass executor.stream(inputs), not the executor.`,
    );
    const result = await executor.invoke({ input: "Weather and time in Paris?" });
    expect(refusal(Promise.resolve(result))).toMatch(/got a Promise: pass executor\.stream\(inputs\) itself \(an awaited run gives its result, not its events\)\.$/);
    expect(refusal(result)).toMatch(/got a run's result: pass executor\.stream\(inputs\), not the result of executor\.invoke\(inputs\)\.$/);
    expect(refusal([])).toMatch(/got an array: pass executor\.stream\(inputs\), or from\(events\) \(rxjs\) for events you hold\.$/);
    expect(refusal(undefined)).toMatch(/got undefined\.$/);
    expect(refusal(executor.stream.bind(executor))).toMatch(/got a function: pass executor\.stream\(inputs\), the events of a run, not a function\.$/);
  });

  it("toUIMessageStreamResponse fails the body of an executor.invoke(...) observable: no empty, successful message", async () => {
    const response = toUIMessageStreamResponse(weatherExecutor().invoke({ input: "Weather and time in Paris?" }) as never);
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    const failure = await (async () => {
      for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(decoder.decode(bytes));
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(chunks).toEqual([]); // no `finish` chunk, no `[DONE]`
    expect(InvalidArgumentError.isInstance(failure)).toBe(true);
    expect((failure as InvalidArgumentError).argument).toBe("events$");
    expect((failure as Error).message).toBe(`toUIMessageStreamResponse: \`events$\` emitted a run's result (what executor.invoke(...) emits), not its events: ${INVOKE}.`);
  });

  it("toUIMessageStream and toUIMessageChunks fail on an executor.invoke(...) observable, naming themselves", async () => {
    const invoked = () => weatherExecutor().invoke({ input: "Weather and time in Paris?" }) as unknown as Observable<AgentStreamEvent>;
    await expect(readAll(toUIMessageStream(invoked()))).rejects.toThrowError(`toUIMessageStream: \`events$\` emitted a run's result (what executor.invoke(...) emits), not its events: ${INVOKE}.`);
    const chunks: unknown[] = [];
    const failure = await new Promise<unknown>((resolve) => invoked().pipe(toUIMessageChunks()).subscribe({ next: (chunk) => chunks.push(chunk), error: resolve, complete: () => resolve(undefined) }));
    expect(chunks).toEqual([]); // no `finish` chunk
    expect(InvalidArgumentError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toBe(`toUIMessageChunks: \`source\` emitted a run's result (what executor.invoke(...) emits), not its events: ${INVOKE}.`);
  });

  it("toAGUIEvents fails on an executor.invoke(...) observable before any event: no RUN_STARTED, no RUN_FINISHED", async () => {
    const events: unknown[] = [];
    const failure = await new Promise<unknown>((resolve) =>
      toAGUIEvents(weatherExecutor().invoke({ input: "Weather and time in Paris?" }) as never, { threadId: "t1", runId: "r1" }).subscribe({
        next: (event) => events.push(event),
        error: resolve,
        complete: () => resolve(undefined),
      }),
    );
    expect(events).toEqual([]);
    expect(InvalidArgumentError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toBe(`toAGUIEvents: \`events$\` emitted a run's result (what executor.invoke(...) emits), not its events: ${INVOKE}.`);
  });

  it("fails at a value that is not a run event instead of leaving it out, and unsubscribes from the run", async () => {
    let unsubscribed = false;
    const run: Observable<AgentStreamEvent> = weatherExecutor().stream({ input: "Weather and time in Paris?" });
    const events = concat(run, of("a stray value" as unknown as AgentStreamEvent));
    const tracked = new Observable<AgentStreamEvent>((subscriber) => {
      const subscription = events.subscribe(subscriber);
      return () => {
        unsubscribed = true;
        subscription.unsubscribe();
      };
    });
    const seen: string[] = [];
    const failure = await new Promise<unknown>((resolve) =>
      toAGUIEvents(tracked, { threadId: "t1", runId: "r1" }).subscribe({ next: (event) => seen.push(event.type), error: resolve, complete: () => resolve(undefined) }),
    );
    expect(seen.at(-1)).toBe("STEP_FINISHED"); // the run's events were mapped; the stray value ended it, with no RUN_FINISHED
    expect((failure as Error).message).toBe(
      "toAGUIEvents: `events$` emitted a string, which is not a run event (an AgentStreamEvent, as executor.stream(...) emits): pass a run's events.",
    );
    expect(unsubscribed).toBe(true);
    const chunks = await lastValueFrom(of({ type: "no-such-event" } as unknown as AgentStreamEvent).pipe(toUIMessageChunks(), toArray())).catch((error: Error) => error.message);
    expect(chunks).toBe('toUIMessageChunks: `source` emitted an object of type "no-such-event", which is not a run event (an AgentStreamEvent, as executor.stream(...) emits): pass a run\'s events.');
  });
});
