import { describe, expect, it } from "vitest";
import { EARLY_STOP_OUTPUT, EXCEPTION_TOOL_NAME, FORCE_FINAL_ANSWER_INSTRUCTION, invalidToolObservation } from "./constants";
import { STEP_METADATA_KEY, getStepMetadata } from "./step-metadata";
import { isAgentAction, isAgentFinish, isToolAgentAction } from "./types";

describe("agent constants", () => {
  it("keep the texts LangChain users rely on", () => {
    expect(EARLY_STOP_OUTPUT).toBe("Agent stopped due to iteration limit or time limit.");
    expect(FORCE_FINAL_ANSWER_INSTRUCTION).toBe("I now need to return a final answer based on the previous steps:");
    expect(EXCEPTION_TOOL_NAME).toBe("_Exception");
  });

  it("invalidToolObservation names the tool and lists the valid ones", () => {
    expect(invalidToolObservation("serch", ["search", "calc"])).toBe("serch is not a valid tool, try one of [search, calc].");
    expect(invalidToolObservation("x", [])).toBe("x is not a valid tool, try one of [].");
  });
});

describe("agent output guards", () => {
  const action = { tool: "search", toolInput: { q: "x" }, log: "" };
  const toolAction = { ...action, toolCallId: "call_1", messageLog: [] };
  const finish = { returnValues: { output: "done" }, log: "" };

  it("tell actions, tool actions and finishes apart", () => {
    expect([isAgentAction(action), isAgentAction(toolAction), isAgentAction(finish), isAgentAction([action])]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect([isToolAgentAction(action), isToolAgentAction(toolAction)]).toEqual([false, true]);
    expect([isAgentFinish(finish), isAgentFinish(action), isAgentFinish(null), isAgentFinish({ returnValues: "x" })]).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });

  it("accepts an action whose input is a string", () => {
    expect(isAgentAction({ tool: "search", toolInput: "paris", log: "" })).toBe(true);
    expect(isAgentAction({ tool: 1, toolInput: "paris" })).toBe(false);
  });
});

describe("getStepMetadata", () => {
  it("returns the record the executor passed, so policies can write into it", () => {
    const record = {};
    const metadata = getStepMetadata({ configurable: { [STEP_METADATA_KEY]: record } });
    expect(metadata).toBe(record);
    if (metadata) metadata.attempts = 2;
    expect(record).toEqual({ attempts: 2 });
  });

  it("returns undefined outside an executor", () => {
    expect(getStepMetadata(undefined)).toBeUndefined();
    expect(getStepMetadata({})).toBeUndefined();
    expect(getStepMetadata({ configurable: { [STEP_METADATA_KEY]: "nope" } })).toBeUndefined();
  });
});
