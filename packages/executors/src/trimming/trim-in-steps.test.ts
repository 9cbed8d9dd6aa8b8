import type { AgentStep } from "@agentrx/core";
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { trimInSteps } from "./trim-in-steps";

/** Steps of turns of the given sizes; each turn's calls share one model message. */
function turns(...sizes: number[]): AgentStep[] {
  return sizes.flatMap((size, turn) => {
    const message = new AIMessage({ content: "", id: `m${turn}` });
    return Array.from({ length: size }, (_, call) => ({
      action: { tool: "t", toolInput: {}, log: "", toolCallId: `c${turn}-${call}`, messageLog: [message] },
      observation: `${turn}.${call}`,
    })) as AgentStep[];
  });
}

describe("trimInSteps", () => {
  it("moves its cut by `every` steps, keeping between keep and keep + every - 1", () => {
    const trim = trimInSteps({ keep: 4, every: 4 });
    const seen = Array.from({ length: 16 }, (_, n) => trim(turns(...Array(n + 1).fill(1))).map((step) => step.observation));
    expect(seen.map((kept) => kept.length)).toEqual([1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4]);
    // Between two moves of the cut, each call's steps start with the previous call's.
    expect(seen[8]?.slice(0, seen[7]?.length)).toEqual(seen[7]);
    expect(seen[9]?.slice(0, seen[8]?.length)).toEqual(seen[8]);
  });

  it("never splits the calls of one turn", () => {
    const trim = trimInSteps({ keep: 2, every: 2 });
    // turns of 3, 3 and 1 calls: the cut at 4 would split the second turn, so it moves back to 3.
    expect(trim(turns(3, 3, 1)).map((step) => step.observation)).toEqual(["1.0", "1.1", "1.2", "2.0"]);
  });

  it("checks its options", () => {
    expect(() => trimInSteps({ keep: 0 })).toThrow(/`keep` must be an integer >= 1/);
    expect(() => trimInSteps({ keep: 2, every: 1.5 })).toThrow(/`every` must be an integer >= 1/);
  });
});

describe("trimInSteps on a run rebuilt from its record", () => {
  it("never splits a turn whose steps each hold a copy of its message without an id (a resume, a fork)", () => {
    // A turn of two calls, then one of three, each step with its own copy of the model's message.
    const copy = (ids: string[]) => new AIMessage({ content: "", tool_calls: ids.map((id) => ({ id, name: "t", args: {} })) });
    const turn = (ids: string[]) => ids.map((id) => ({ action: { tool: "t", toolInput: {}, log: "", toolCallId: id, messageLog: [copy(ids)] }, observation: id }));
    const steps = [...turn(["a1", "a2"]), ...turn(["b1", "b2", "b3"])] as AgentStep[];
    // keep 2, every 1: the cut at 3 would split the second turn, so it moves back to 2.
    expect(trimInSteps({ keep: 2, every: 1 })(steps).map((step) => step.observation)).toEqual(["b1", "b2", "b3"]);
  });
});
