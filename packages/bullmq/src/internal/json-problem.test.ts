import { RunEventDecoder, encodeRunEvent, leftOutOfMessage } from "@agentrx/executors";
import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
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

  it("looks into a message's fields, as its stored form records them, naming the path of what would change", () => {
    const cases: [BaseMessage, string, RegExp][] = [
      [new AIMessage({ content: "hi", additional_kwargs: { sentAt: new Date(0) } }), "inputs.history[0].additional_kwargs.sentAt", /^is a Date/],
      [new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "t", args: { limit: 10n } }] }), "inputs.history[0].tool_calls[0].args.limit", /^is a BigInt/],
      [new AIMessage({ content: "hi", response_metadata: { logprob: Number.NaN } }), "inputs.history[0].response_metadata.logprob", /^is NaN/],
      [new ToolMessage({ content: "ok", tool_call_id: "c1", artifact: new Map() }), "inputs.history[0].artifact", /^is a Map/],
      [new HumanMessage({ content: [{ type: "text", text: "hi", seen: new Set() }] }), "inputs.history[0].content[0].seen", /^is a Set/],
    ];
    for (const [message, path, what] of cases) {
      const problem = jsonProblem({ history: [message] }, "inputs");
      expect(problem?.path, path).toBe(path);
      expect(problem?.what).toMatch(what);
    }
    // A field set after construction is recorded as the message holds it now.
    const changed = new HumanMessage("hi");
    changed.additional_kwargs["at"] = new Date(0);
    expect(jsonProblem({ history: [changed] }, "inputs")?.path).toBe("inputs.history[0].additional_kwargs.at");
    // A chunk's streamed tool-call text is not recorded (it is parsed into tool_calls again).
    const chunk = new AIMessageChunk({ content: "", tool_call_chunks: [{ name: "t", args: '{"q":1}', id: "c1", index: 0, type: "tool_call_chunk" }] });
    expect(jsonProblem({ history: [chunk] }, "inputs")).toBeUndefined();
    // A message that contains itself.
    const selfish = new AIMessage({ content: "hi", additional_kwargs: {} });
    selfish.additional_kwargs["again"] = selfish;
    expect(jsonProblem({ history: [selfish] }, "inputs")).toMatchObject({ path: "inputs.history[0].additional_kwargs.again", what: "contains a circular reference (it is inputs.history[0] again)" });
  });

  it("refuses a message's field nested deeper than its record keeps, at the same depth as the record leaves it out", () => {
    const nested = (levels: number) => {
      let args: Record<string, unknown> = {};
      for (let level = 1; level < levels; level++) args = { a: args };
      return new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "t", args }] });
    };
    const recordedWhole = (message: BaseMessage) => {
      const data = JSON.parse(JSON.stringify(encodeRunEvent({ type: "start", runId: "r1", inputs: { history: [message] }, resumed: false, at: 0 })));
      const event = new RunEventDecoder("r1").decode({ seq: 1, type: "start", at: 0, data });
      const [back] = (event as unknown as { inputs: { history: BaseMessage[] } }).inputs.history;
      return leftOutOfMessage(back as BaseMessage) === undefined;
    };
    // tool_calls (depth 2), the call (3), args (4): args nested 97 levels deep reach depth 100.
    expect(recordedWhole(nested(97))).toBe(true);
    expect(jsonProblem({ history: [nested(97)] }, "inputs")).toBeUndefined();
    expect(recordedWhole(nested(98))).toBe(false);
    expect(jsonProblem({ history: [nested(98)] }, "inputs")?.what).toMatch(/^is nested more than 100 levels deep/);
    // However deep the message itself sits in the inputs.
    expect(jsonProblem({ a: { b: { c: [nested(97)] } } }, "inputs")).toBeUndefined();
  });
});
