// AgentExecutor.fork refuses bad arguments at once, naming the argument and the value it got.
import { InvalidArgumentError } from "@agentrx/core";
import { RunnableLambda } from "@langchain/core/runnables";
import { lastValueFrom } from "rxjs";
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
    [{ inputs: ["go"] }, "inputs", /`inputs` must be an object such as \{ input: "\.\.\." \}, got an array\./],
    [{ inputs: Promise.resolve({ input: "go" }) }, "inputs", /got a Promise \(did you forget to `await` the inputs\?\)\./],
    [{ edit: { observation: 7 } }, "edit", /`edit` must be \{ observation\?: string \}/],
    [{ edit: { observaton: "rain" } }, "edit.observaton", /unknown key `observaton` in `edit`/],
    [{ runId: "" }, "runId", /`runId` \(the fork's id\) must be a non-empty string, got ""\./],
    [{ runId: 5 }, "runId", /`runId` \(the fork's id\) must be a non-empty string, got 5\./],
    ["at 2", "options", /`options` must be an object such as \{ at: 1 \}, got "at 2"\./],
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

describe("AgentExecutor.resume's options", () => {
  it("refuses options that are not an object, naming them", () => {
    let thrown: unknown;
    try {
      executor.resume("run", "approve" as never);
    } catch (error) {
      thrown = error;
    }
    expect(InvalidArgumentError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ argument: "options" });
    expect((thrown as Error).message).toMatch(/`options` must be an object such as \{ decisions: .*\}, got "approve"\./);
  });
});

describe("AgentExecutor.resume's and fork's config", () => {
  it.each([
    ["resume", { signal: "stop" }, "options.signal"],
    ["fork", { signal: {} }, "options.signal"],
    ["resume", { configurable: 5 }, "options.configurable"],
  ] as const)("%s refuses %j, naming the setting", async (operation, options, argument) => {
    const thrown = await lastValueFrom(executor[operation]("run", options as never)).catch((error: unknown) => error);
    expect(InvalidArgumentError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ argument });
  });
});
