import {
  cachePolicy,
  concurrencyLimitPolicy,
  PolicyTool,
  timeoutPolicy,
  withCache,
  withConcurrencyLimit,
  withPolicies,
  withRetry,
  withTimeout,
} from "@agentrx/tools";
import type { ToolMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";

const multiply = tool(async ({ a, b }) => a * b, {
  name: "multiply",
  description: "Multiplies two numbers.",
  schema: z.object({ a: z.number(), b: z.number() }),
});

describe("policy wrappers keep the tool's types", () => {
  it("types invoke's input and output from the wrapped tool", async () => {
    const wrapped = [
      withTimeout(multiply, { ms: 50 }),
      withRetry(multiply, { maxAttempts: 2 }),
      withCache(multiply),
      withConcurrencyLimit(multiply, { maxConcurrent: 1 }),
      withPolicies(multiply, [cachePolicy(), timeoutPolicy({ ms: 50 })]),
    ] as const;
    for (const limited of wrapped) {
      expectTypeOf(await limited.invoke({ a: 6, b: 7 })).toEqualTypeOf<number>();
      expectTypeOf(limited.invoke).parameter(0).not.toBeAny();
      // @ts-expect-error `a` is a number
      await limited.invoke({ a: "6", b: 7 });
      // @ts-expect-error `b` is missing
      await limited.invoke({ a: 6 });
    }
  });

  it("answers a tool call with a ToolMessage, as the tool does", async () => {
    const limited = withTimeout(multiply, { ms: 50 });
    const call = { type: "tool_call" as const, id: "1", name: "multiply", args: { a: 6, b: 7 } };
    expectTypeOf(await limited.invoke(call)).toEqualTypeOf<ToolMessage>();
  });

  it("keeps the schema, and the types through a second wrapper", async () => {
    const limited = withRetry(withTimeout(multiply, { ms: 50 }));
    expectTypeOf(limited.schema).toEqualTypeOf<typeof multiply.schema>();
    expectTypeOf(await limited.invoke({ a: 6, b: 7 })).toEqualTypeOf<number>();
    // @ts-expect-error `a` is a number
    await limited.invoke({ a: "6", b: 7 });
  });

  it("is still a PolicyTool and a StructuredToolInterface", () => {
    const limited = withConcurrencyLimit(multiply, { maxConcurrent: 2 });
    expectTypeOf(limited).toMatchTypeOf<PolicyTool>();
    expectTypeOf(limited).toMatchTypeOf<StructuredToolInterface>();
    const untyped: StructuredToolInterface = multiply;
    expectTypeOf(withPolicies(untyped, [concurrencyLimitPolicy({ maxConcurrent: 1 })])).toMatchTypeOf<PolicyTool>();
  });
});

describe("a tool typed any", () => {
  it("wraps into an untyped PolicyTool that goes wherever a tool does", () => {
    const untyped = multiply as any;
    expectTypeOf(withTimeout(untyped, { ms: 50 })).toEqualTypeOf<PolicyTool>();
    expectTypeOf(withTimeout(untyped, { ms: 50 })).toMatchTypeOf<StructuredToolInterface>();
  });
});
