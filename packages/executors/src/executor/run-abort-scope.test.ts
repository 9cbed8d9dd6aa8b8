// RunAbortScope alone: which of a run's controllers a halt, a failure or a cancellation aborts.
import { describe, expect, it } from "vitest";
import { RunAbortScope } from "./run-abort-scope";

describe("RunAbortScope", () => {
  it("a halt aborts the loop's signal and its children, with the halt's reason, but not the generate call's signal", () => {
    const scope = new RunAbortScope();
    const { controller } = scope.child();
    const final = scope.finalSignal();
    const reason = new Error("halted");
    scope.halt(reason);
    expect(scope.signal.aborted).toBe(true);
    expect(scope.signal.reason).toBe(reason);
    expect(controller.signal.reason).toBe(reason);
    expect(final.aborted).toBe(false);
  });

  it("abortAll (a failure, a cancellation) aborts the loop's signal, its children and the generate call's signal, with one reason", () => {
    const scope = new RunAbortScope();
    const { controller } = scope.child();
    const final = scope.finalSignal();
    const reason = new Error("cancelled");
    scope.abortAll(reason);
    expect([scope.signal.reason, controller.signal.reason, final.reason]).toEqual([reason, reason, reason]);
  });

  it("an unlinked child no longer aborts with the run; a child made after the run aborted is aborted at once", () => {
    const scope = new RunAbortScope();
    const kept = scope.child();
    const unlinked = scope.child();
    unlinked.unlink();
    scope.halt(new Error("halted"));
    expect(kept.controller.signal.aborted).toBe(true);
    expect(unlinked.controller.signal.aborted).toBe(false);
    expect(scope.child().controller.signal.aborted).toBe(true);
  });

  it("finalSignal gives a new signal each time, and abortAll aborts the latest", () => {
    const scope = new RunAbortScope();
    const first = scope.finalSignal();
    const second = scope.finalSignal();
    expect(second).not.toBe(first);
    scope.abortAll(new Error("cancelled"));
    expect(second.aborted).toBe(true);
  });
});
