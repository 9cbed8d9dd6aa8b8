// What the model reads of a tool's result or error, when it is not a string.
import { AgentExecutor } from "@agentrx/executors";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { lastValueFrom, toArray } from "rxjs";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { act, finish, scriptedAgent } from "./test-helpers";

const failing = tool(
  async () => {
    throw new Error("down");
  },
  { name: "flaky", description: "Always fails.", schema: z.object({}) },
);

async function run(tools: StructuredToolInterface[], options: Record<string, unknown> = {}) {
  const { agent } = scriptedAgent([act(tools[0]?.name ?? "x"), finish("done")]);
  return new AgentExecutor({ agent, tools, returnIntermediateSteps: true, ...options }).invoke({ input: "go" });
}

describe("a handleToolRuntimeErrors handler", () => {
  it.each([
    ["returns nothing", () => undefined, /`handleToolRuntimeErrors` must return the text the model reads \(synchronously\), got undefined/],
    ["is async", async () => "later", /got a Promise/],
  ])("that %s fails the run naming the option", async (_name, handler, message) => {
    const error = await run([failing], { handleToolRuntimeErrors: handler }).then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toMatchObject({ name: "InvalidArgumentError", argument: "handleToolRuntimeErrors" });
    expect((error as Error).message).toMatch(message);
  });

  it("that returns an object gives its JSON", async () => {
    const result = await run([failing], { handleToolRuntimeErrors: () => ({ retry: false }) });
    expect(result.intermediateSteps[0]?.observation).toBe('{"retry":false}');
  });
});

describe("a tool result JSON cannot hold as it is", () => {
  it("writes a cycle as [Circular] and a BigInt as its digits, not [object Object]", async () => {
    const circular: Record<string, unknown> = { name: "root", count: 2n, shared: { a: 1 } };
    circular["self"] = circular;
    circular["again"] = circular["shared"]; // a shared object twice is no cycle
    const cyclic = tool(async () => circular as never, { name: "cyclic", description: "Returns a cycle.", schema: z.object({}) });
    const result = await run([cyclic]);
    expect(JSON.parse(String(result.intermediateSteps[0]?.observation))).toEqual({ name: "root", count: "2", shared: { a: 1 }, self: "[Circular]", again: { a: 1 } });
  });
});

describe("a returnDirect tool whose input is refused", () => {
  it("goes back to the model, which fixes the call, instead of ending the run with the refusal", async () => {
    const ran: unknown[] = [];
    const direct = tool(async ({ city }: { city: string }) => (ran.push(city), `Booked ${city}.`), {
      name: "book",
      description: "Books a trip.",
      schema: z.object({ city: z.string() }),
      returnDirect: true,
    });
    for (const bad of ["please help", { town: "Rome" }]) {
      ran.length = 0;
      const { agent, inputs } = scriptedAgent([act("book", bad as never), act("book", { city: "Rome" }), finish("never")]);
      const result = await new AgentExecutor({ agent, tools: [direct], returnIntermediateSteps: true }).invoke({ input: "go" });
      expect(result.output).toBe("Booked Rome.");
      expect(result.stopReason).toBe("return_direct");
      expect(String(result.intermediateSteps[0]?.observation)).toMatch(/^Invalid input for tool "book": /);
      expect(inputs).toHaveLength(2);
      expect(ran).toEqual(["Rome"]);
    }
  });

  it("is told from the tool's own answer by the step's metadata, not by its text", async () => {
    // The tool ran and answered with text that reads like the executor's refusal: that is its answer.
    const lookalike = tool(async ({ sku }: { sku: string }) => `Invalid input for tool "lookup": ${sku} is not in our catalogue`, {
      name: "lookup",
      description: "Looks a product up.",
      schema: z.object({ sku: z.string() }),
      returnDirect: true,
    });
    const { agent, inputs } = scriptedAgent([act("lookup", { sku: "sku1" }), finish("never")]);
    const events = await lastValueFrom(new AgentExecutor({ agent, tools: [lookalike] }).stream({ input: "go" }).pipe(toArray()));
    const output = events.at(-1);
    expect(output).toMatchObject({ type: "output", stopReason: "return_direct", output: 'Invalid input for tool "lookup": sku1 is not in our catalogue' });
    expect(inputs).toHaveLength(1);
    expect(events.find((event) => event.type === "step")).not.toHaveProperty("metadata.refusedInput");
    // A refused input is marked in the step's metadata (with `failed`).
    const refusedRun = scriptedAgent([act("lookup", { code: 1 } as never), finish("fixed")]);
    const refused = await lastValueFrom(new AgentExecutor({ agent: refusedRun.agent, tools: [lookalike] }).stream({ input: "go" }).pipe(toArray()));
    expect(refused.find((event) => event.type === "step")).toMatchObject({ metadata: { failed: true, refusedInput: true } });
    expect(refused.at(-1)).toMatchObject({ type: "output", stopReason: "finish", output: "fixed" });
  });
});
