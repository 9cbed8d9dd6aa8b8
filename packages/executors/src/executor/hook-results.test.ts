import { InvalidArgumentError } from "@agentrx/core";
import { AgentExecutor } from "@agentrx/executors";
import { OutputParserException } from "@langchain/core/output_parsers";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { act, echoTool, finish, scriptedAgent, unhandledDuring } from "./test-helpers";

const boom = tool(
  async () => {
    throw new Error("tool broke");
  },
  { name: "boom", description: "Fails.", schema: z.object({}) },
);
const rejecting = () => Promise.reject(new Error("hook rejected"));

describe("a hook that returns a rejected promise", () => {
  it("handleToolRuntimeErrors: the run fails naming the option, and the rejection is not left unhandled", async () => {
    const { agent } = scriptedAgent([act("boom"), finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [boom], handleToolRuntimeErrors: rejecting as never });
    const { unhandled, error } = await unhandledDuring(() => executor.invoke({ input: "go" }));
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("handleToolRuntimeErrors");
    expect(unhandled).toEqual([]);
  });

  it("handleParsingErrors: the run fails naming the option, and the rejection is not left unhandled", async () => {
    const { agent } = scriptedAgent([new OutputParserException("bad", "llm said x"), finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [], handleParsingErrors: rejecting as never });
    const { unhandled, error } = await unhandledDuring(() => executor.invoke({ input: "go" }));
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("handleParsingErrors");
    expect(unhandled).toEqual([]);
  });

  it("trimIntermediateSteps: the run fails naming the option and saying it got a Promise, and the rejection is not left unhandled", async () => {
    const { agent } = scriptedAgent([finish("never")]);
    const executor = new AgentExecutor({ agent, tools: [], trimIntermediateSteps: rejecting as never });
    const { unhandled, error } = await unhandledDuring(() => executor.invoke({ input: "go" }));
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("trimIntermediateSteps");
    expect((error as Error).message).toContain("got a Promise");
    expect(unhandled).toEqual([]);
  });
});

describe("earlyStopOutput as a function", () => {
  const stopped = (earlyStopOutput: unknown) => {
    const { agent } = scriptedAgent([act("echo", { text: "a" })]);
    return new AgentExecutor({ agent, tools: [echoTool], maxIterations: 1, earlyStopOutput: earlyStopOutput as never }).invoke({ input: "go" });
  };

  it.each([
    ["an async function", async (reason: string) => `stopped: ${reason}`, "a Promise"],
    ["a function that returns nothing", () => undefined, "undefined"],
  ])("%s fails the run with an InvalidArgumentError naming the option, rather than end it with \"{}\" or \"\"", async (_, earlyStopOutput, got) => {
    const error = await stopped(earlyStopOutput).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("earlyStopOutput");
    expect((error as Error).message).toContain(`\`earlyStopOutput\` must return the run's output text (synchronously), got ${got}`);
  });

  it("one that rejects fails the run naming the option, and the rejection is not left unhandled", async () => {
    const { unhandled, error } = await unhandledDuring(() => stopped(rejecting));
    expect(InvalidArgumentError.isInstance(error) && error.argument).toBe("earlyStopOutput");
    expect(unhandled).toEqual([]);
  });

  it("a string is the output; another value is written as JSON, as handleParsingErrors' is", async () => {
    expect((await stopped((reason: string) => `stopped: ${reason}`)).output).toBe("stopped: max_iterations");
    expect((await stopped(() => ({ stopped: true }))).output).toBe('{"stopped":true}');
  });

  it("an error it throws fails the run as it is (the same error)", async () => {
    const thrown = new Error("no output for you");
    await expect(
      stopped(() => {
        throw thrown;
      }),
    ).rejects.toBe(thrown);
  });
});
