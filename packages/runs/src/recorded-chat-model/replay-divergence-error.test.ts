import { AgentRxError } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { ReplayDivergenceError } from "./replay-divergence-error";

const expected = { inputCount: 4, inputDigest: "aaaaaaaaaaaaaaaa" };

describe("ReplayDivergenceError", () => {
  it("says whether the count or the content of the messages differs", () => {
    const count = new ReplayDivergenceError({ runId: "r1", call: 2, iteration: 1, expected, actual: { inputCount: 3, inputDigest: "b" }, recordedCalls: 3 });
    expect(count.reason).toBe("count");
    expect(count.message).toBe(
      'RecordedChatModel: model call 2 (0-based, iteration 1) of the re-run of run "r1" diverges from the recording: it was sent 3 messages, the recorded call was sent 4. ' +
        "Re-run with the recorded inputs, prompt, agent and tools (tools that return what they returned then), or record the run again.",
    );
    const content = new ReplayDivergenceError({ runId: "r1", call: 0, iteration: 0, expected, actual: { inputCount: 4, inputDigest: "bbbbbbbbbbbbbbbb" }, recordedCalls: 3 });
    expect(content.reason).toBe("content");
    expect(content.message).toContain("model call 0 (0-based, iteration 0)");
    expect(content.message).toContain("it was sent 4 messages, as the recorded call was, but their content differs (digest bbbbbbbbbbbbbbbb, recorded aaaaaaaaaaaaaaaa)");
  });

  it("says how many calls the recording has when a call goes past its end", () => {
    const error = new ReplayDivergenceError({ runId: "r1", call: 3, actual: { inputCount: 6, inputDigest: "c" }, recordedCalls: 3 });
    expect(error).toMatchObject({ name: "ReplayDivergenceError", runId: "r1", call: 3, iteration: undefined, expected: undefined, reason: "exhausted" });
    expect(error.message).toContain("model call 3 (0-based) of the re-run of run \"r1\" goes past the end of the recording: the recording has only 3 model calls.");
  });

  it("says when a matching call's recorded reply is held only in part; a count that differs still says so first", () => {
    const leftOut = "[message.tool_calls[0].args.query.a… is nested more than 100 levels deep: left out of the run record]";
    const incomplete = new ReplayDivergenceError({ runId: "r1", call: 1, iteration: 1, expected, actual: expected, recordedCalls: 3, leftOut });
    expect(incomplete).toMatchObject({ reason: "incomplete", leftOut });
    expect(incomplete.message).toContain(`model call 1 (0-based, iteration 1) of the re-run of run "r1" cannot be answered as recorded: the record holds only part of the model's reply (${leftOut})`);
    const count = new ReplayDivergenceError({ runId: "r1", call: 1, expected, actual: { inputCount: 2, inputDigest: "b" }, recordedCalls: 3, leftOut });
    expect(count).toMatchObject({ reason: "count", leftOut: undefined });
  });

  it("is recognised by its marker, from any copy of the package", () => {
    const error = new ReplayDivergenceError({ runId: "r1", call: 0, actual: { inputCount: 1, inputDigest: "d" }, recordedCalls: 0 });
    expect(ReplayDivergenceError.isInstance(error)).toBe(true);
    expect(AgentRxError.isInstance(error)).toBe(true);
    expect(ReplayDivergenceError.isInstance(new Error("x"))).toBe(false);
    expect(ReplayDivergenceError.isInstance({ [Symbol.for("agentrx.error.ReplayDivergenceError")]: true })).toBe(true);
  });
});
