// Memory scenarios: what selecting a thread's window costs as the thread grows (it must follow the
// window, not the thread), and how close the default token estimate is to a real tokenizer.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteRunStore, ThreadMemory, estimateTextTokens } from "@agentrx/runs";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { timeInterleaved } from "./measure";
import type { Row } from "./scenarios";

const CALLS_PER_SAMPLE = 20;

async function fill(memory: ThreadMemory, threadId: string, count: number): Promise<void> {
  for (let from = 0; from < count; from += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - from) }, (_, index) => {
      const n = from + index;
      return n % 2 === 0 ? new HumanMessage(`Question ${n}: what is the status of order ${n * 7}?`) : new AIMessage(`Order ${n * 7} shipped on day ${n % 28}.`);
    });
    await memory.addMessages(threadId, batch);
  }
}

/** Mean absolute error of the estimate against o200k_base over the paragraphs of docs/*.md, or undefined without js-tiktoken. */
async function estimateError(): Promise<number | undefined> {
  let encode: (text: string) => number;
  try {
    // js-tiktoken ships its tables in the package (no download); @langchain/core depends on it.
    const { Tiktoken } = await import("js-tiktoken/lite");
    const ranks = (await import("js-tiktoken/ranks/o200k_base")).default;
    const encoder = new Tiktoken(ranks);
    encode = (text) => encoder.encode(text).length;
  } catch {
    process.stderr.write("js-tiktoken is not installed: the token estimate row is left out.\n");
    return undefined;
  }
  const docs = fileURLToPath(new URL("../docs/", import.meta.url));
  const paragraphs = readdirSync(docs)
    .filter((name) => name.endsWith(".md"))
    .flatMap((name) => readFileSync(join(docs, name), "utf8").split(/\n\n+/))
    .filter((paragraph) => paragraph.length > 60);
  const errors = paragraphs.map((paragraph) => {
    const actual = encode(paragraph);
    return Math.abs(estimateTextTokens(paragraph) - actual) / actual;
  });
  return (100 * errors.reduce((sum, error) => sum + error, 0)) / errors.length;
}

export async function memory(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "agentrx-bench-memory-"));
  const store = new SqliteRunStore({ path: join(dir, "memory.db") });
  const rows: Row[] = [];
  try {
    const writer = new ThreadMemory({ store, maxTokens: 1, includeToolMessages: true });
    await fill(writer, "short", 100);
    await fill(writer, "long", 10_000);
    // A window of about 20 of these messages (about 15 tokens each).
    const reader = new ThreadMemory({ store, maxTokens: 300 });
    const windowLength = (await reader.getMessages("long")).length;
    const select = (threadId: string) => async () => {
      for (let call = 0; call < CALLS_PER_SAMPLE; call++) await reader.getMessages(threadId);
    };
    const times = await timeInterleaved({ short: select("short"), long: select("long") }, { warmup: 20, runs: 60 });
    const short = (times["short"] ?? 0) / CALLS_PER_SAMPLE;
    const long = (times["long"] ?? 0) / CALLS_PER_SAMPLE;
    rows.push({
      scenario: `ThreadMemory window (${windowLength} messages), SQLite`,
      metric: "ms per call: 10,000 messages (agentrx) vs 100 (floor)",
      agentrx: long,
      floor: short,
      check: { label: "10k/100", value: long / short, limit: 1.5 },
    });
    const error = await estimateError();
    if (error !== undefined) {
      rows.push({
        scenario: "default token estimate vs o200k_base (docs paragraphs)",
        metric: "mean |error| %",
        agentrx: error,
        check: { label: "mean |error| %", value: error, limit: 10 },
      });
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
