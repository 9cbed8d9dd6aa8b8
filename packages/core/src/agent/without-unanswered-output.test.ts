import { describe, expect, it } from "vitest";
import { withoutUnansweredOutput } from "./without-unanswered-output";

describe("withoutUnansweredOutput", () => {
  const message = { type: "message", id: "msg_1", role: "assistant", content: [{ type: "output_text", text: "Checking.", annotations: [] }] };
  const call = (n: number) => ({ type: "function_call", id: `fc_${n}`, call_id: `call_${n}`, name: "weather", arguments: "{}" });

  it("keeps only the function calls `kept` accepts, and the other items as they are", () => {
    const metadata = { model: "gpt-4.1", output: [message, call(1), call(2)] };
    const result = withoutUnansweredOutput(metadata, (id) => id === "call_2");
    expect(result).toEqual({ model: "gpt-4.1", output: [message, call(2)] });
    expect(withoutUnansweredOutput(metadata, () => false).output).toEqual([message]);
    // Nothing is changed in place.
    expect(metadata.output).toEqual([message, call(1), call(2)]);
  });

  it("drops the reasoning items and the ids of the items left when the output has reasoning", () => {
    const reasoning = { type: "reasoning", id: "rs_1", summary: [] };
    const { id: _message, ...messageWithoutId } = message;
    const { id: _call, ...callWithoutId } = call(2);
    expect(withoutUnansweredOutput({ output: [reasoning, message, call(1), call(2)] }, (id) => id === "call_2").output).toEqual([messageWithoutId, callWithoutId]);
  });

  it("returns metadata without an output array as it is", () => {
    const metadata = { model_name: "gpt-4.1" };
    expect(withoutUnansweredOutput(metadata, () => false)).toBe(metadata);
    expect(withoutUnansweredOutput(undefined as never, () => false)).toBeUndefined();
  });
});
