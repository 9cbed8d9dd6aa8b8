// The package's public errors: built from what they are given, and refusing arguments that would
// make them say something wrong (or throw a TypeError) with an InvalidArgumentError naming them.
import { InvalidArgumentError } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { RunStoppedError } from "./run-stopped-error";
import { RunWorkerCloseError } from "./run-worker-close-error";

/** The InvalidArgumentError `make` throws, or fails. */
function refusal(make: () => unknown): InvalidArgumentError {
  try {
    make();
  } catch (error) {
    if (InvalidArgumentError.isInstance(error)) return error;
    throw new Error(`expected an InvalidArgumentError, got ${String(error)}`);
  }
  throw new Error("expected an InvalidArgumentError, nothing was thrown");
}

describe("RunStoppedError", () => {
  it("carries the run, how it ended and why", () => {
    const error = new RunStoppedError({ runId: "r1", status: "cancelled", reason: "cancelled while queued.", executor: "double" });
    expect([error.runId, error.status, error.reason, error.executor, RunStoppedError.isInstance(error)]).toEqual(["r1", "cancelled", "cancelled while queued.", "double", true]);
    expect(error.message).toBe('Run "r1" was cancelled: cancelled while queued. It has no output; `RunClient.resume(runId)` continues it from its record.');
    expect(new RunStoppedError({ runId: "r2", status: "failed" }).reason).toBeUndefined();
  });

  it("sends a run whose record names no executor to the executor that recorded it: RunClient.resume refuses such a run", () => {
    const error = new RunStoppedError({ runId: "r3", status: "cancelled", reason: "The client disconnected." });
    expect(error.executor).toBeUndefined();
    expect(error.message).toBe(
      'Run "r3" was cancelled: The client disconnected. It has no output; `RunClient.resume` refuses it, as its record names no executor (it was not submitted through RunClient.submit): the executor that recorded it continues it, with `executor.resume(runId, { store })` on the same store.',
    );
    expect(error.message).not.toMatch(/RunClient.resume\(runId\)/);
  });

  it.each([
    [undefined, "options", /`options` must be an object/],
    [{ runId: "", status: "failed" }, "runId", /`runId` must be a non-empty string, got ""/],
    [{ runId: 5, status: "failed" }, "runId", /`runId` must be a non-empty string, got 5/],
    [{ runId: "r", status: "weird" }, "status", /`status` must be "failed" or "cancelled", got "weird"/],
    [{ runId: "r" }, "status", /`status` must be "failed" or "cancelled", got undefined/],
    [{ runId: "r", status: "failed", reason: 42 }, "reason", /`reason` must be a string or undefined, got 42/],
    [{ runId: "r", status: "failed", executor: "" }, "executor", /`executor` must be a non-empty string or undefined, got ""/],
    [{ runId: "r", status: "failed", executor: 7 }, "executor", /`executor` must be a non-empty string or undefined, got 7/],
  ])("refuses %j", (options, argument, message) => {
    const error = refusal(() => new RunStoppedError(options as never));
    expect(error.argument).toBe(argument);
    expect(error.message).toMatch(/^RunStoppedError: /);
    expect(error.message).toMatch(message);
  });
});

describe("RunWorkerCloseError", () => {
  it("names the runs left in progress and how long the worker waited", () => {
    const error = new RunWorkerCloseError({ runIds: ["r1", "r2"], forceAfterMs: 500 });
    expect([error.runIds, error.forceAfterMs, RunWorkerCloseError.isInstance(error)]).toEqual([["r1", "r2"], 500, true]);
    expect(error.message).toMatch(/gave up 500 ms .* runs still in progress here: "r1", "r2"/);
    expect(new RunWorkerCloseError({ runIds: [], forceAfterMs: 0 }).message).toMatch(/Redis did not answer \(the jobs' last moves/);
  });

  it.each([
    [null, "options", /`options` must be an object, got null/],
    [{ runIds: "x", forceAfterMs: 10 }, "runIds", /`runIds` must be an array of run ids \(strings\), got "x"/],
    [{ runIds: [1], forceAfterMs: 10 }, "runIds", /`runIds` must be an array of run ids/],
    [{ runIds: [], forceAfterMs: -1 }, "forceAfterMs", /`forceAfterMs` must be a number of milliseconds >= 0, got -1/],
    [{ runIds: [], forceAfterMs: Number.NaN }, "forceAfterMs", /`forceAfterMs` must be a number of milliseconds >= 0, got NaN/],
    [{ runIds: [] }, "forceAfterMs", /`forceAfterMs` must be a number/],
  ])("refuses %j", (options, argument, message) => {
    const error = refusal(() => new RunWorkerCloseError(options as never));
    expect(error.argument).toBe(argument);
    expect(error.message).toMatch(/^RunWorkerCloseError: /);
    expect(error.message).toMatch(message);
  });
});
