// AgentExecutor.fork refuses bad arguments at once, naming the argument and the value it got.
import { InvalidArgumentError } from "@agentrx/core";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { AgentExecutor } from "./agent-executor";

const executor = new AgentExecutor({
  agent: RunnableLambda.from(() => ({ returnValues: { output: "-" }, log: "" })),
  tools: [],
  store: new InProcessRunStore(),
});

describe("AgentExecutor.fork's arguments", () => {
  it.each([
    [{ at: Number.NaN }, "at", /`at` must be an integer >= 0 \(an iteration\), got NaN\./],
    [{ at: -1 }, "at", /got -1\./],
    [{ at: 1.5 }, "at", /got 1\.5\./],
    [{ at: "1" }, "at", /got "1"\./],
    [{ inputs: ["go"] }, "inputs", /`inputs` must be an object/],
    [{ edit: { observation: 7 } }, "edit", /`edit` must be \{ observation\?: string \}/],
  ])("refuses %j", (options, argument, message) => {
    let thrown: unknown;
    try {
      executor.fork("run", options as never);
    } catch (error) {
      thrown = error;
    }
    expect(InvalidArgumentError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ argument });
    expect((thrown as Error).message).toMatch(message);
  });
});
