import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { jsonProblem } from "./json-problem";

class Order {
  constructor(readonly id: string) {}
}

describe("jsonProblem", () => {
  it("accepts plain data, messages, and undefined properties (JSON leaves them out, as if not given)", () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare["k"] = 1;
    const shared = { a: 1 };
    const value = {
      input: "hi",
      n: -0.5,
      ok: true,
      none: null,
      skipped: undefined,
      list: [1, "two", [3], { four: 4 }],
      bare,
      twice: [shared, shared], // the same object twice is no cycle: both copies arrive
      chat_history: [new HumanMessage("hello"), new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "t", args: { q: 1 } }] })],
      "odd key": { "": 0 },
    };
    expect(jsonProblem(value, "inputs")).toBeUndefined();
  });

  it("names the path and what is wrong with the first part JSON would change or drop", () => {
    const cases: [unknown, string, RegExp][] = [
      [{ options: { limit: 10n } }, "inputs.options.limit", /^is a BigInt/],
      [{ onDone: () => 1 }, "inputs.onDone", /^is a function$/],
      [{ tag: Symbol("t") }, "inputs.tag", /^is a Symbol$/],
      [{ list: [1, undefined] }, "inputs.list[1]", /^is undefined \(in an array it would arrive as null/],
      // eslint-disable-next-line no-sparse-arrays
      [{ list: [1, , 3] }, "inputs.list[1]", /^is undefined/],
      [{ score: Number.NaN }, "inputs.score", /^is NaN \(it would arrive as null\)$/],
      [{ score: -Infinity }, "inputs.score", /^is -Infinity/],
      [{ when: new Date(0) }, "inputs.when", /^is a Date \(.*toISOString\(\)/],
      [{ seen: new Map([["a", 1]]) }, "inputs.seen", /^is a Map \(it would arrive as \{\}; pass Object.fromEntries\(map\)\)$/],
      [{ tags: [new Set(["a"])] }, "inputs.tags[0]", /^is a Set \(it would arrive as \{\}/],
      [{ order: new Order("o1") }, "inputs.order", /^is an instance of Order \(it would arrive as a plain object, without its class/],
      [{ "a b": { c: new String("x") } }, 'inputs["a b"].c', /^is an instance of String/],
      [{ bytes: new Uint8Array(2) }, "inputs.bytes", /^is an instance of Uint8Array/],
    ];
    for (const [value, path, what] of cases) {
      const problem = jsonProblem(value, "inputs");
      expect(problem?.path, path).toBe(path);
      expect(problem?.what).toMatch(what);
    }
    expect(jsonProblem({ options: { limit: 10n } }, "inputs")?.value).toBe(10n);
  });

  it("finds a circular reference, naming where it points back to", () => {
    const run: Record<string, unknown> = { steps: [] };
    (run["steps"] as unknown[]).push({ parent: run });
    expect(jsonProblem({ run }, "inputs")).toMatchObject({ path: "inputs.run.steps[0].parent", what: "contains a circular reference (it is inputs.run again)" });
  });

  it("refuses a part nested more than 100 levels deep (the record would keep a text in its place), without overflowing on a deeper one", () => {
    const nest = (levels: number) => {
      let value: Record<string, unknown> = {};
      for (let level = 1; level < levels; level++) value = { a: value };
      return value;
    };
    expect(jsonProblem(nest(100), "inputs")).toBeUndefined();
    expect(jsonProblem(nest(101), "inputs")?.what).toMatch(/^is nested more than 100 levels deep/);
    expect(jsonProblem(nest(100_000), "inputs")?.path).toBe(`inputs${".a".repeat(100)}`);
  });
});
