// Hostile model generations for the parsers' property tests and for scripts/fuzz-parsers.ts
// (not part of the package's API): text that is not a string, content blocks of every kind,
// values whose toString throws, odd tool calls. No vitest import, so a plain script can use it.
import { AIMessage, AIMessageChunk } from "@langchain/core/messages";
import type { ChatGeneration, Generation } from "@langchain/core/outputs";
import fc from "fast-check";

/** An object whose `toString`, `valueOf` and `toJSON` all throw. */
export function throwingObject(): object {
  const fail = () => {
    throw new Error("no text for you");
  };
  return { toString: fail, valueOf: fail, toJSON: fail, [Symbol.toPrimitive]: fail };
}

/** An object whose every read of a named property throws (symbol keys are left alone, for fast-check). */
export function throwingProxy(): object {
  return new Proxy(
    {},
    {
      get(_target, key) {
        if (typeof key === "symbol") return undefined;
        throw new Error("trap");
      },
      has(_target, key) {
        if (typeof key === "symbol") return false;
        throw new Error("trap");
      },
    },
  );
}

/** Values that are not text: numbers, symbols, objects with a throwing `toString`, and more. */
export const notText: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.bigInt(),
  fc.constantFrom(null, undefined, Number.NaN, Symbol("generation"), Symbol.iterator),
  fc.constant(null).map(throwingObject),
  fc.constant(null).map(throwingProxy),
  fc.constant(null).map(() => Object.create(null) as object),
  fc.object({ maxDepth: 2 }),
  fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 3 }),
);

/** Anything a model's text might be: usually a string, often not. */
export const anyText: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom("Final Answer: done", "Action: search\nAction Input: x", "```json\n{\"action\": \"x\"}\n```", "<tool>x</tool>") },
  { weight: 3, arbitrary: notText },
);

/** Content blocks of every kind, with fields of every type. */
export const contentBlock: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ type: fc.constant("text"), text: anyText }),
  fc.record({ type: fc.constant("image_url"), image_url: fc.oneof(fc.record({ url: fc.webUrl() }), notText) }),
  fc.record({ type: fc.constantFrom("image", "audio", "file"), url: fc.string(), mimeType: anyText }),
  fc.record({ type: fc.constant("reasoning"), reasoning: anyText }),
  fc.record({ type: fc.constant("tool_use"), id: fc.string(), name: anyText, input: fc.anything({ maxDepth: 2 }) }),
  fc.record({ type: fc.constant("tool_call"), id: anyText, name: anyText, args: fc.anything({ maxDepth: 2 }) }),
  fc.record({ type: anyText }),
  notText,
);

const toolCall = fc.record(
  {
    id: fc.oneof(fc.string({ maxLength: 6 }), notText),
    name: fc.oneof(fc.constantFrom("search", "calculator", ""), notText),
    args: fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 })), notText),
    type: fc.constant("tool_call"),
  },
  { requiredKeys: ["args"] },
);

const invalidToolCall = fc.record(
  {
    id: fc.oneof(fc.string({ maxLength: 6 }), notText),
    name: fc.oneof(fc.constantFrom("search", ""), notText),
    args: fc.oneof(fc.string({ maxLength: 20 }), notText),
    error: fc.oneof(fc.string({ maxLength: 10 }), notText),
    type: fc.constant("invalid_tool_call"),
  },
  { requiredKeys: [] },
);

const rawToolCall = fc.record(
  {
    id: fc.oneof(fc.string({ maxLength: 6 }), notText),
    type: fc.constantFrom("function", "other"),
    function: fc.oneof(
      fc.record({ name: fc.oneof(fc.constantFrom("search", ""), notText), arguments: fc.oneof(fc.string({ maxLength: 20 }), fc.json(), notText) }, { requiredKeys: [] }),
      notText,
    ),
  },
  { requiredKeys: [] },
);

const additionalKwargs = fc.record(
  {
    tool_calls: fc.oneof(fc.array(rawToolCall, { maxLength: 2 }), notText),
    function_call: fc.oneof(fc.record({ name: fc.oneof(fc.constantFrom("search", ""), notText), arguments: fc.oneof(fc.string({ maxLength: 20 }), notText) }, { requiredKeys: [] }), notText),
  },
  { requiredKeys: [] },
);

/**
 * An AI message whose fields hold what the arbitraries give, set after construction so that the
 * constructor's own normalisation does not tidy them up.
 */
export const hostileMessage: fc.Arbitrary<AIMessage> = fc
  .record(
    {
      content: fc.oneof(anyText, fc.array(contentBlock, { maxLength: 4 })),
      tool_calls: fc.oneof(fc.array(toolCall, { maxLength: 3 }), notText),
      invalid_tool_calls: fc.oneof(fc.array(invalidToolCall, { maxLength: 2 }), notText),
      additional_kwargs: fc.oneof(additionalKwargs, notText),
      usage_metadata: fc.oneof(fc.record({ input_tokens: fc.nat(), output_tokens: fc.nat(), total_tokens: fc.nat() }), notText),
      chunk: fc.boolean(),
    },
    { requiredKeys: ["content", "chunk"] },
  )
  .map(({ chunk, ...fields }) => {
    const message = chunk ? new AIMessageChunk({ content: "" }) : new AIMessage({ content: "" });
    for (const [key, value] of Object.entries(fields)) (message as unknown as Record<string, unknown>)[key] = value;
    return message;
  });

/** A list of generations as `parseResult` may receive them: text of any type, with or without a message. */
export const hostileGenerations: fc.Arbitrary<Generation[]> = fc
  .array(
    fc.oneof(
      fc.record({ text: anyText }),
      fc.record({ text: anyText, message: hostileMessage }),
      fc.record({ text: anyText, message: fc.oneof(notText, fc.constant(null).map(throwingProxy)) }),
    ),
    { minLength: 0, maxLength: 2 },
  )
  .map((generations) => generations as unknown as (Generation | ChatGeneration)[]);

/** What a parser may be called with: `parse(text)`, `parseResult(generations)` or `invoke(message)`. */
export type ParserInput =
  | { kind: "parse"; text: unknown }
  | { kind: "parseResult"; generations: Generation[] }
  | { kind: "invoke"; message: AIMessage };

/** Every way of calling a parser, with hostile inputs. */
export const hostileParserInput: fc.Arbitrary<ParserInput> = fc.oneof(
  anyText.map((text) => ({ kind: "parse" as const, text })),
  hostileGenerations.map((generations) => ({ kind: "parseResult" as const, generations })),
  hostileMessage.map((message) => ({ kind: "invoke" as const, message })),
);

/** A parser as the fuzz targets call it. */
export interface FuzzedParser {
  parse(text: string): Promise<unknown>;
  parseResult(generations: Generation[]): Promise<unknown>;
  invoke(input: AIMessage): Promise<unknown>;
}

/** Calls `parser` the way `input` says. */
export function callParser(parser: FuzzedParser, input: ParserInput): Promise<unknown> {
  try {
    if (input.kind === "parse") return parser.parse(input.text as string);
    if (input.kind === "parseResult") return parser.parseResult(input.generations);
    return parser.invoke(input.message);
  } catch (error) {
    return Promise.reject(error);
  }
}
