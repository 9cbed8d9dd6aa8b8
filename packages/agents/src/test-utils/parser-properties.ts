// Test helpers shared by the parsers' property tests (not part of the package's API).
import { isAgentAction, isAgentFinish, type AgentOutput } from "@agentrx/core";
import { OutputParserException, type BaseOutputParser } from "@langchain/core/output_parsers";
import fc from "fast-check";
import { expect } from "vitest";
import { callParser, hostileParserInput, type FuzzedParser } from "./arbitrary-generations";

/** Whether `value` is an action, a non-empty list of actions, or a finish with a string output. */
export function isAgentOutput(value: unknown): value is AgentOutput {
  if (Array.isArray(value)) return value.length > 0 && value.every(isAgentAction);
  if (isAgentFinish(value)) return typeof value.returnValues.output === "string";
  return isAgentAction(value);
}

/**
 * Parses `text` and asserts the parser's contract: an agent output, or an
 * `OutputParserException` whose `llmOutput` is set. Returns what happened.
 */
export async function parseTotally(
  parser: BaseOutputParser<AgentOutput>,
  text: string,
): Promise<{ ok: true; value: AgentOutput } | { ok: false; error: OutputParserException }> {
  try {
    const value = await parser.parse(text);
    expect(isAgentOutput(value)).toBe(true);
    return { ok: true, value };
  } catch (error) {
    expect(error).toBeInstanceOf(OutputParserException);
    const exception = error as OutputParserException;
    expect(typeof exception.llmOutput).toBe("string");
    if (exception.sendToLLM) expect(typeof exception.observation).toBe("string");
    return { ok: false, error: exception };
  }
}

/** Arbitrary text built from the given format fragments, free text and whitespace. */
export function formatText(fragments: readonly string[]): fc.Arbitrary<string> {
  return fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...fragments) },
        { weight: 2, arbitrary: fc.constantFrom(" ", "\n", "\t", '"', ":", "```", "{", "}", "<", ">", "/") },
        { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
        { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 6 }) },
      ),
      { maxLength: 40 },
    )
    .map((parts) => parts.join(""));
}

/** Property: over arbitrary text, the parser only returns agent outputs or throws OutputParserException. */
export async function assertParserIsTotal(parser: BaseOutputParser<AgentOutput>, fragments: readonly string[]): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.oneof(formatText(fragments), fc.string(), fc.string({ unit: "binary" })), async (text) => {
      await parseTotally(parser, text);
    }),
    { numRuns: 400 },
  );
}

/** Adversarial inputs of about one megabyte built from `unit`. */
export function megabyteOf(unit: string): string {
  return unit.repeat(Math.ceil(1_000_000 / unit.length));
}

/**
 * Property: whatever generation the parser is given (text that is not a string, content blocks
 * of other kinds, numbers, symbols, objects whose `toString` throws, odd tool calls), through
 * `parse`, `parseResult` or `invoke`, it returns an agent output or throws an
 * `OutputParserException` with a string `llmOutput`, never anything else. A fixed seed and a
 * modest count for the suite; `scripts/fuzz-parsers.ts` runs 100,000 inputs by hand.
 */
export async function assertParserHandlesAnyGeneration(parser: FuzzedParser): Promise<void> {
  await fc.assert(
    fc.asyncProperty(hostileParserInput, async (input) => {
      const outcome = await callParser(parser, input).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      if (outcome.ok) {
        expect(isAgentOutput(outcome.value)).toBe(true);
      } else {
        expect(outcome.error).toBeInstanceOf(OutputParserException);
        expect(typeof (outcome.error as OutputParserException).llmOutput).toBe("string");
      }
    }),
    { seed: 15, numRuns: 300 },
  );
}

/** JSON arguments nested `levels` deep (`{}` is one level), as text. */
export function nestedArgumentsText(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}`;
}

/** JSON arguments nested `levels` deep (`{}` is one level), as an object. */
export function nestedArguments(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < levels; level++) value = { a: value };
  return value;
}
