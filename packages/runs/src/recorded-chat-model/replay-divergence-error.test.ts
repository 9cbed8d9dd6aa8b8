import { AgentRxError } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { ReplayDivergenceError, type MessageDifference } from "./replay-divergence-error";

const expected = { inputCount: 4, inputDigest: "aaaaaaaaaaaaaaaa" };

describe("ReplayDivergenceError", () => {
  it("says whether the count or the content of the messages differs", () => {
    const count = new ReplayDivergenceError({ runId: "r1", call: 2, iteration: 1, expected, actual: { inputCount: 3, inputDigest: "b" }, recordedCalls: 3 });
    expect(count.reason).toBe("count");
    expect(count.message).toBe(
      'RecordedChatModel: model call 2 (0-based, iteration 1) of the re-run of run "r1" diverges from the recording: it was sent 3 messages, the recorded call was sent 4. ' +
        "The record keeps only a digest of the messages sent: record the run with `recordPrompts: true` (on by default for stream(), resume and fork) for this error to name the message that differs, and readPrompts(store, runId) to read them. " +
        "Re-run with the recorded inputs, prompt, agent and tools (tools that return what they returned then), or record the run again.",
    );
    const content = new ReplayDivergenceError({ runId: "r1", call: 0, iteration: 0, expected, actual: { inputCount: 4, inputDigest: "bbbbbbbbbbbbbbbb" }, recordedCalls: 3 });
    expect(content.reason).toBe("content");
    expect(content.message).toContain("model call 0 (0-based, iteration 0)");
    expect(content.message).toContain("it was sent 4 messages, as the recorded call was, but their content differs (digest bbbbbbbbbbbbbbbb, recorded aaaaaaaaaaaaaaaa)");
  });

  it("names the first message that differs, when the recorded call's prompt was recorded", () => {
    const content = (firstDifference: MessageDifference, inputCount = 4) =>
      new ReplayDivergenceError({ runId: "r1", call: 1, iteration: 1, expected, actual: { inputCount, inputDigest: "b" }, recordedCalls: 3, firstDifference, promptRecorded: true });
    const tool = content({ index: 3, actual: { role: "tool", text: "Cloudy" }, recorded: { role: "tool", text: "Sunny" } });
    expect(tool.firstDifference).toEqual({ index: 3, actual: { role: "tool", text: "Cloudy" }, recorded: { role: "tool", text: "Sunny" } });
    expect(tool.message).toContain('it was sent 4 messages, as the recorded call was, but their content differs: message 3 (tool) is "Cloudy", the recorded call\'s was "Sunny". Re-run with');
    expect(tool.message).not.toContain("digest");
    const role = content({ index: 0, actual: { role: "human", text: "Hi" }, recorded: { role: "system", text: "Be brief." } }, 3);
    expect(role.message).toContain('it was sent 3 messages, the recorded call was sent 4. The first message that differs: message 0 (human) is "Hi", the recorded call\'s message 0 (system) was "Be brief.".');
    const fewer = content({ index: 3, actual: undefined, recorded: { role: "tool", text: "Sunny" } }, 3);
    expect(fewer.message).toContain(`The first message that differs: the recorded call's message 3 (tool), "Sunny", was not sent.`);
    const more = content({ index: 4, actual: { role: "human", text: "And Lyon?" }, recorded: undefined }, 5);
    expect(more.message).toContain(`The first message that differs: message 4 (human), "And Lyon?", is not in the recorded call.`);
    const calls = content({ index: 2, actual: { role: "ai", text: "" }, recorded: { role: "ai", text: "" } });
    expect(calls.message).toContain("their content differs: message 2 (ai) has the recorded text but other tool calls, name or tool-call id.");
    // Long texts are cut around where they start to differ.
    const long = content({ index: 0, actual: { role: "system", text: `${"x".repeat(300)}A${"y".repeat(300)}` }, recorded: { role: "system", text: `${"x".repeat(300)}B${"y".repeat(300)}` } });
    expect(long.message).toContain(`message 0 (system) is …"${"x".repeat(20)}A${"y".repeat(79)}"… (601 characters), the recorded call's was …"${"x".repeat(20)}B${"y".repeat(79)}"… (601 characters).`);
  });

  it("points to readPrompts when the prompt was recorded but the error cannot name the message", () => {
    const error = new ReplayDivergenceError({ runId: "r1", call: 0, expected, actual: { inputCount: 4, inputDigest: "b" }, recordedCalls: 1, promptRecorded: true });
    expect(error.firstDifference).toBeUndefined();
    expect(error.message).toContain("(digest b, recorded aaaaaaaaaaaaaaaa). readPrompts(store, runId) gives the messages the recorded call was sent.");
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
