// Fuzzes every exported agent output parser with hostile generations (text that is not a string,
// content blocks of every kind, values whose toString throws, odd tool calls) and reports any
// outcome other than an agent output or an OutputParserException. `npm test` runs the same
// property with a modest count; this script runs as many inputs as you ask for, by hand:
//
//   npx tsx scripts/fuzz-parsers.ts [inputs per parser, default 100000] [seed]
import {
  OpenAIFunctionsAgentOutputParser,
  ReActSingleInputOutputParser,
  SelfAskOutputParser,
  StructuredChatOutputParser,
  ToolCallingAgentOutputParser,
  XMLAgentOutputParser,
} from "@agentrx/agents";
import { isAgentAction, isAgentFinish } from "@agentrx/core";
import { OutputParserException } from "@langchain/core/output_parsers";
import fc from "fast-check";
import { callParser, hostileParserInput, type FuzzedParser } from "../packages/agents/src/test-utils/arbitrary-generations";

const runs = Number(process.argv[2] ?? 100_000);
const seed = Number(process.argv[3] ?? Date.now() % 2 ** 31);

const parsers: Record<string, FuzzedParser> = {
  ToolCallingAgentOutputParser: new ToolCallingAgentOutputParser(),
  OpenAIFunctionsAgentOutputParser: new OpenAIFunctionsAgentOutputParser(),
  ReActSingleInputOutputParser: new ReActSingleInputOutputParser({ toolNames: ["search"] }),
  StructuredChatOutputParser: new StructuredChatOutputParser({ toolNames: ["search"] }),
  XMLAgentOutputParser: new XMLAgentOutputParser(),
  SelfAskOutputParser: new SelfAskOutputParser(),
};

function isOutput(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every(isAgentAction);
  if (isAgentFinish(value)) return typeof value.returnValues.output === "string";
  return isAgentAction(value);
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : `${typeof error} thrown`;
  } catch {
    return "an error that cannot be described";
  }
}

let failed = false;
console.log(`${runs} inputs per parser, seed ${seed}`);
for (const [name, parser] of Object.entries(parsers)) {
  const started = performance.now();
  const failures = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(hostileParserInput, async (input) => {
      try {
        const output = await callParser(parser, input);
        if (!isOutput(output)) failures.set("returned something that is not an agent output", (failures.get("returned something that is not an agent output") ?? 0) + 1);
      } catch (error) {
        if (!(error instanceof OutputParserException) || typeof error.llmOutput !== "string") {
          const key = describe(error).slice(0, 160);
          failures.set(key, (failures.get(key) ?? 0) + 1);
        }
      }
    }),
    { numRuns: runs, seed },
  );
  const count = [...failures.values()].reduce((sum, n) => sum + n, 0);
  console.log(`${name}: ${count} bad outcome(s) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const [what, n] of failures) console.log(`  ${n} × ${what}`);
  if (count > 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
