import { AbortError, AgentRxError, InvalidArgumentError } from "@agentrx/core";
import { NEVER, Subject, concat, from, of, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentStreamEvent } from "../executor/events";
import { searchCall, setup } from "./executor-fixtures";
import { printTrace } from "./print-trace";
import { actionEvent, outputEvent, stepEvent, tokenEvent } from "./test-events";

function capture(): { write: (text: string) => void; text: () => string } {
  let text = "";
  return { write: (chunk) => void (text += chunk), text: () => text };
}

const run: AgentStreamEvent[] = [
  actionEvent(0, "search", { query: "Paris" }),
  stepEvent(0, "search", "Sunny", 3),
  tokenEvent(1, "It is sunny."),
  outputEvent("It is sunny."),
];

describe("printTrace", () => {
  it("resolves with the output event once the run has been printed", async () => {
    const out = capture();
    const result = await printTrace(from(run), { write: out.write });
    expect(result).toEqual(run.at(-1));
    expect(out.text()).toContain("answer  It is sunny");
  });

  it("rejects with the run's error", async () => {
    const out = capture();
    const boom = new Error("tool exploded");
    await expect(printTrace(throwError(() => boom), { write: out.write })).rejects.toBe(boom);
    expect(out.text()).toBe("error   Error: tool exploded\n");
  });

  it("refuses what is not a run's stream, options that are not an object and unknown options, naming them", () => {
    expect(() => printTrace({} as never)).toThrowError("printTrace: `events` must be a run's event stream, such as executor.stream({ input }), got an object that is not an Observable.");
    expect(() => printTrace(Promise.resolve(1) as never)).toThrowError(InvalidArgumentError);
    expect(() => printTrace(undefined as never)).toThrowError(/got undefined/);
    expect(() => printTrace(from(run), null as never)).toThrowError("printTrace: `options` must be an object such as { colors: false }, got null.");
    // A misspelt signal would leave the run impossible to cancel.
    expect(() => printTrace(from(run), { sigal: AbortSignal.timeout(10) } as never)).toThrowError(/unknown option `sigal`; did you mean `signal`\?/);
  });

  it("rejects clearly when the stream has no output event", async () => {
    const rejection = printTrace(of(tokenEvent(0, "x")), { write: () => undefined });
    await expect(rejection).rejects.toSatisfy((error) => AgentRxError.isInstance(error));
    await expect(rejection).rejects.toThrowError(/executor\.stream/);
  });

  it("cancels the run when its signal aborts", async () => {
    const controller = new AbortController();
    const events = new Subject<AgentStreamEvent>();
    const printing = printTrace(concat(events, NEVER), { write: () => undefined, signal: controller.signal });
    expect(events.observed).toBe(true);
    controller.abort("stop");
    await expect(printing).rejects.toSatisfy((error) => AbortError.isInstance(error));
    expect(events.observed).toBe(false);
    await expect(printTrace(of(outputEvent("x")), { write: () => undefined, signal: controller.signal })).rejects.toSatisfy((error) =>
      AbortError.isInstance(error),
    );
  });

  it("ends the trace with an error line when its signal cancels the run", async () => {
    const out = capture();
    const controller = new AbortController();
    const events = new Subject<AgentStreamEvent>();
    const printing = printTrace(concat(events, NEVER), { write: out.write, signal: controller.signal });
    events.next(tokenEvent(0, "Half a"));
    controller.abort("user pressed stop");
    await expect(printing).rejects.toSatisfy((error) => AbortError.isInstance(error));
    expect(out.text()).toMatchInlineSnapshot(`
      "model   Half a
      error   AbortError: The run was aborted: user pressed stop
      "
    `);
    const late = capture();
    await expect(printTrace(of(outputEvent("x")), { write: late.write, signal: controller.signal })).rejects.toThrow();
    expect(late.text()).toBe("error   AbortError: The run was aborted: user pressed stop\n");
  });

  it("validates its options before anything runs", () => {
    const events = new Subject<AgentStreamEvent>();
    expect(() => printTrace(events, { maxLength: 0 })).toThrowError(/printTrace: `maxLength`/);
    expect(() => printTrace(events, { signal: {} as AbortSignal })).toThrowError(/printTrace: `signal` must be an AbortSignal/);
    expect(() => printTrace(events, { signal: "stop" as never })).toThrowError(InvalidArgumentError);
    expect(events.observed).toBe(false);
  });
});

describe("printTrace with the executor", () => {
  it("prints the run and resolves with its output", async () => {
    const { executor } = setup([searchCall("Paris"), "It is sunny in Paris."]);
    let text = "";
    const output = await printTrace(executor.stream({ input: "Weather?" }), { write: (chunk) => (text += chunk) });
    expect(output.output).toBe("It is sunny in Paris.");
    expect(text.replace(/\(\d+ ms\)/g, "(n ms)")).toMatchInlineSnapshot(`
      "action  search {"query":"Paris"}
      step    search (n ms) Sunny in Paris
      model   It is sunny in Paris.
      answer  It is sunny in Paris. (finish)
      "
    `);
  });
});

describe("printTrace of events that end without an answer", () => {
  it("says the run has no answer (a replay of a failed run), not to use stream() instead of invoke()", async () => {
    const lines: string[] = [];
    const events = from([{ type: "start", runId: "r1", inputs: { input: "x" }, resumed: false, at: 1 }, actionEvent(0, "search", { query: "x" })] as AgentStreamEvent[]);
    const error = await printTrace(events, { write: (line: string) => void lines.push(line), colors: false }).then(() => undefined, (thrown: unknown) => thrown as Error);
    expect(error?.message).toMatch(/^printTrace: the run's events ended without an "output" event: the run has no answer/);
    const none = await printTrace(from([] as AgentStreamEvent[]), { write: () => undefined, colors: false }).then(() => undefined, (thrown: unknown) => thrown as Error);
    expect(none?.message).toContain("pass `executor.stream(...)`, not `executor.invoke(...)`");
  });
});
