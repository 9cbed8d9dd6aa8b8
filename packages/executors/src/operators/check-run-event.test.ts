import { InvalidArgumentError } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { checkRunEvent, checkRunEventStream } from "./check-run-event";
import { all, setup } from "./executor-fixtures";
import { printTrace } from "./print-trace";

const refusal = (check: () => void): InvalidArgumentError => {
  try {
    check();
  } catch (error) {
    if (InvalidArgumentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("no error");
};

describe("checkRunEventStream", () => {
  it("passes an executor's stream() and invoke() (both Observables), and names anything else with what to pass", async () => {
    const { executor } = setup(["Done.", "Done."]);
    checkRunEventStream("serve", "events", executor.stream({ input: "hi" }));
    checkRunEventStream("serve", "events", executor.invoke({ input: "hi" })); // only its values tell it apart
    const got = (value: unknown) => refusal(() => checkRunEventStream("serve", "events", value)).message;
    const prefix = "serve: `events` must be a run's event stream, such as executor.stream({ input }), got ";
    expect(got(executor)).toBe(`${prefix}an AgentExecutor: pass executor.stream(inputs), not the executor.`);
    const result = await executor.invoke({ input: "hi" });
    expect(got(result)).toBe(`${prefix}a run's result: pass executor.stream(inputs), not the result of executor.invoke(inputs).`);
    expect(got(Promise.resolve(result))).toBe(`${prefix}a Promise: pass executor.stream(inputs) itself (an awaited run gives its result, not its events).`);
    expect(got(await all(executor.stream({ input: "hi" })))).toBe(`${prefix}an array: pass executor.stream(inputs), or from(events) (rxjs) for events you hold.`);
    expect(got(() => undefined)).toBe(`${prefix}a function: pass executor.stream(inputs), the events of a run, not a function.`);
    expect(got({})).toBe(`${prefix}an object that is not an Observable.`);
    expect(got(null)).toBe(`${prefix}null.`);
    expect(got("events")).toBe(`${prefix}a string.`);
    const error = refusal(() => checkRunEventStream("serve", "events$", executor));
    expect([error.argument, error.value]).toEqual(["events$", executor]);
  });

  it("is printTrace's check of its argument", () => {
    const { executor } = setup(["Done.", "Done."]);
    expect(() => printTrace(executor as never)).toThrowError("printTrace: `events` must be a run's event stream, such as executor.stream({ input }), got an AgentExecutor: pass executor.stream(inputs), not the executor.");
  });
});

describe("checkRunEvent", () => {
  it("passes every event of a run and refuses its result, as executor.invoke(...) emits it", async () => {
    const { executor } = setup(["Done.", "Done."]);
    for (const event of await all(executor.stream({ input: "hi" }))) checkRunEvent("serve", "events", event);
    const [result] = await all(executor.invoke({ input: "hi" }));
    const error = refusal(() => checkRunEvent("serve", "events", result));
    expect(error.message).toBe("serve: `events` emitted a run's result (what executor.invoke(...) emits), not its events: pass `executor.stream(...)`, not `executor.invoke(...)`.");
    expect([error.argument, error.value]).toEqual(["events", result]);
  });

  it("refuses any other value, naming it", () => {
    const got = (value: unknown) => refusal(() => checkRunEvent("serve", "events", value)).message.replace(", which is not a run event (an AgentStreamEvent, as executor.stream(...) emits): pass a run's events.", "");
    expect(got({ type: "model_call" })).toBe('serve: `events` emitted an object of type "model_call"');
    expect(got({ output: "x" })).toBe("serve: `events` emitted an object without a `type`");
    expect(got([])).toBe("serve: `events` emitted an array");
    expect(got(undefined)).toBe("serve: `events` emitted undefined");
    expect(got(42)).toBe("serve: `events` emitted a number");
  });
});
