import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentExecutor } from "../executor/agent-executor";
import { ofType } from "./of-type";

const echo = tool(async ({ text }) => `echo: ${text}`, { name: "echo", description: "Echoes.", schema: z.object({ text: z.string() }) });
const agent = RunnableLambda.from((input: { steps: unknown[] }) =>
  input.steps.length === 0
    ? [
        { tool: "echo", toolInput: { text: "a" }, log: "" },
        { tool: "echo", toolInput: { text: "b" }, log: "" },
      ]
    : { returnValues: { output: "done" }, log: "" },
);

describe("ofType", () => {
  it("keeps only the events of the given types, in order", async () => {
    const executor = new AgentExecutor({ agent, tools: [echo] });
    const steps = await lastValueFrom(executor.stream({ input: "x" }).pipe(ofType("step"), toArray()));
    expect(steps.map((event) => event.step.observation).sort()).toEqual(["echo: a", "echo: b"]);

    const kinds = await lastValueFrom(executor.stream({ input: "x" }).pipe(ofType("action", "output"), toArray()));
    expect(kinds.map((event) => event.type)).toEqual(["action", "action", "output"]);
  });

  it("refuses to be called without a type", () => {
    expect(() => (ofType as (...types: string[]) => unknown)()).toThrow(/give one or more event types/);
  });
});
