import { withApproval, type ToolInputOf } from "@agentrx/tools";
import { tool } from "@langchain/core/tools";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";

const refund = tool(async ({ amount }) => `refunded ${amount}`, {
  name: "refund",
  description: "Refunds an order.",
  schema: z.object({ amount: z.number(), reason: z.string().optional() }),
});

describe("withApproval types", () => {
  it("types the predicate's input from the tool's schema", () => {
    expectTypeOf<ToolInputOf<typeof refund>>().toEqualTypeOf<{ amount: number; reason?: string | undefined }>();
    withApproval(refund, (input) => {
      expectTypeOf(input.amount).toEqualTypeOf<number>();
      return input.amount > 100;
    });
    // @ts-expect-error the schema has no `total`
    withApproval(refund, (input) => input.total > 100);
  });

  it("returns the tool's own type", () => {
    expectTypeOf(withApproval(refund)).toEqualTypeOf<typeof refund>();
    expectTypeOf(withApproval(refund, false)).toEqualTypeOf<typeof refund>();
  });
});
