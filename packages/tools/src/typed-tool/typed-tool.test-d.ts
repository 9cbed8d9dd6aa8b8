import {
  createCalculatorTool,
  createHttpRequestTool,
  createKnowledgeBaseTool,
  withApproval,
  withTimeout,
  type CalculatorToolInput,
  type HttpRequestToolInput,
  type KnowledgeBaseToolInput,
  type TypedTool,
} from "@agentrx/tools";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { describe, expectTypeOf, it } from "vitest";

const calculator = createCalculatorTool();
const handbook = createKnowledgeBaseTool({ documents: [{ source: "leave.md", content: "25 days of paid leave." }] });
const http = createHttpRequestTool({ allowedHosts: ["api.example.com"] });

describe("built-in tools' types", () => {
  it("are TypedTools of their input, returning text", async () => {
    expectTypeOf(calculator).toEqualTypeOf<TypedTool<CalculatorToolInput>>();
    expectTypeOf(handbook).toEqualTypeOf<TypedTool<KnowledgeBaseToolInput>>();
    expectTypeOf(http).toEqualTypeOf<TypedTool<HttpRequestToolInput>>();
    expectTypeOf(await calculator.invoke({ expression: "6 * 7" })).toEqualTypeOf<string>();
    expectTypeOf(await handbook.invoke({ query: "leave" })).toEqualTypeOf<string>();
    expectTypeOf(await http.invoke({ url: "https://api.example.com/", method: "GET" })).toEqualTypeOf<string>();
  });

  it("refuse a wrong input", async () => {
    // @ts-expect-error `expression` is a string
    await calculator.invoke({ expression: 3 });
    // @ts-expect-error `query` is a string
    await handbook.invoke({ query: 1 });
    // @ts-expect-error `url` is missing
    await http.invoke({ method: "GET" });
  });

  it("go wherever a tool does, and keep their types in policies and approval", async () => {
    expectTypeOf(calculator).toMatchTypeOf<StructuredToolInterface>();
    const limited = withTimeout(calculator, { ms: 1000 });
    expectTypeOf(await limited.invoke({ expression: "1 + 1" })).toEqualTypeOf<string>();
    // @ts-expect-error `expression` is a string
    await limited.invoke({ expression: 3 });
    expectTypeOf(withApproval(http, (input) => input.method === "POST")).toEqualTypeOf<typeof http>();
  });
});
