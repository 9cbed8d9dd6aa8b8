// Input that fails a tool's JSON schema (an MCP tool's): the observation names each field at fault,
// as it does for a zod schema, so the model can fix the call.
import { AgentExecutor } from "@agentrx/executors";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { act, finish, scriptedAgent } from "./test-helpers";

const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
  name: "add",
  description: "Adds two numbers.",
  schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" }, unit: { enum: ["m", "s"] } }, required: ["a", "b"] },
});

async function observationOf(input: unknown): Promise<string> {
  const { agent } = scriptedAgent([act("add", input as never), finish("done")]);
  const result = await new AgentExecutor({ agent, tools: [add], returnIntermediateSteps: true }).invoke({ input: "go" });
  return String(result.intermediateSteps[0]?.observation);
}

describe("input that fails a tool's JSON schema", () => {
  it.each([
    ["a field of the wrong type", { a: "1", b: 2 }, '✖ Instance type "string" is invalid. Expected "number".\n  → at a'],
    ["a missing field", { a: 1 }, '✖ Instance does not have required property "b".'],
    ["a value not in the enum", { a: 1, b: 2, unit: "h" }, '✖ Instance does not match any of ["m","s"].\n  → at unit'],
    ["a JSON string of arguments that still fails", '{"a": 1, "b": "2"}', '✖ Instance type "string" is invalid. Expected "number".\n  → at b'],
  ])("names the problem and where: %s", async (_name, input, problem) => {
    const observation = await observationOf(input);
    expect(observation).toContain('Invalid input for tool "add": Received tool input did not match expected schema');
    expect(observation).toContain(problem);
    expect(observation.endsWith('Fix the arguments and call "add" again.')).toBe(true);
  });

  it("leaves a valid call alone", async () => {
    expect(await observationOf({ a: 1, b: 2 })).toBe("3");
  });
});
