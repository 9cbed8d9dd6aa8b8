import { describe, expectTypeOf, it } from "vitest";
import type { StepMetadata } from "./step-metadata";

describe("StepMetadata", () => {
  it("declares what the executor records: observationEdited and ranWith", () => {
    expectTypeOf<StepMetadata["observationEdited"]>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<NonNullable<StepMetadata["ranWith"]>["tool"]>().toEqualTypeOf<string>();
    const metadata: StepMetadata = { observationEdited: true, ranWith: { tool: "search", toolInput: { query: "Rome" } } };
    expectTypeOf(metadata.ranWith?.toolInput).toMatchTypeOf<string | Record<string, unknown> | undefined>();
    // @ts-expect-error a flag, not a text
    const wrong: StepMetadata = { observationEdited: "yes" };
    void wrong;
  });
});
