import { getToolApproval } from "@agentrx/core";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withApproval } from "./with-approval";

const refund = tool(async ({ amount }) => `refunded ${amount}`, {
  name: "refund",
  description: "Refunds an order.",
  schema: z.object({ amount: z.coerce.number() }),
});
const context = { runId: "r", action: { tool: "refund", toolInput: {}, log: "" } };

describe("withApproval's predicate", () => {
  it("gets the input parsed by the tool's schema", async () => {
    const seen: unknown[] = [];
    const guarded = withApproval(refund, (input) => {
      seen.push(input);
      return input.amount > 100;
    });
    const approval = getToolApproval(guarded);
    if (typeof approval !== "function") throw new Error("expected a predicate");
    expect(await approval({ amount: "150" }, context)).toBe(true);
    expect(await approval('{"amount": 50}', context)).toBe(false);
    expect(seen).toEqual([{ amount: 150 }, { amount: 50 }]);
  });

  it("is not asked about input the tool would refuse", async () => {
    let calls = 0;
    const approval = getToolApproval(withApproval(refund, () => ++calls > 0));
    if (typeof approval !== "function") throw new Error("expected a predicate");
    expect(await approval({ amount: "lots" }, context)).toBe(false);
    expect(calls).toBe(0);
  });
});
