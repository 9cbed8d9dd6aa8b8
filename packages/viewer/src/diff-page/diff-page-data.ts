import { diffRuns, promptsOf, type RecordedPrompt, type RunDiff, type RunRecord } from "@agentrx/runs";
import type { JsonValue } from "@agentrx/executors";
import { TraceImageCollector } from "../trace-page/trace-images";
import { cutText } from "../trace-page/cut-text";
import { formatRuntime } from "../trace-page/page/format-runtime";

const fmt = formatRuntime();

/** One message of a recorded prompt, as the diff page shows it. */
export interface DiffPromptMessage {
  /** `human`, `ai`, `system`, `tool`, ... (the stored message's type). */
  role: string;
  /**
   * Its text (blocks of text joined by lines, other content as JSON; an image as a placeholder such
   * as `[image 1: image/png, 12 KB]`, never its base64), cut to {@link DIFF_PROMPT_TEXT_BUDGET} characters.
   */
  text: string;
}

/** The full prompts of one iteration's first model call, on both sides (both runs recorded them). */
export interface DiffPrompt {
  iteration: number;
  a: DiffPromptMessage[];
  b: DiffPromptMessage[];
  /** Whether both requests are the same (same hash). */
  same: boolean;
}

/** The diff page's data: what `diffRuns` gives, the recorded prompts, and where the page is shown. */
export interface DiffPageData {
  /** `ui`: served by `agentrx ui` (the runs link to their pages); `file`: a standalone file. */
  mode: "ui" | "file";
  /** How the store is named on the page, e.g. `SQLite .agentrx/runs.db`. */
  source: string;
  diff: RunDiff;
  /** The iterations whose prompts both runs recorded (`recordPrompts`), in order. */
  prompts: DiffPrompt[];
  /**
   * The runs' costs as the page shows them, with the model calls the executor's `prices` could not
   * price (`$0.0123`, `$0.0123 + 1 unpriced`, or `1 unpriced` when none was priced); absent on a
   * side with neither.
   */
  costText: { a?: string; b?: string };
}

/** How many characters of one prompt message the diff page carries. */
export const DIFF_PROMPT_TEXT_BUDGET = 4000;

/**
 * The diff page's data for two recorded runs (read them with `readRunRecord` of `@agentrx/runs`):
 * `diffRuns` of the two, and the full prompts of the iterations both runs recorded them for.
 *
 * @example
 * ```ts
 * import { MemoryRunStore, readRunRecord } from "@agentrx/runs";
 * import { diffPageData } from "@agentrx/viewer/trace-page";
 *
 * const store = new MemoryRunStore();
 * for (const runId of ["a", "b"]) await store.createRun({ runId, inputs: { input: runId }, status: "queued", at: Date.now() });
 * const data = diffPageData(await readRunRecord(store, "a"), await readRunRecord(store, "b"), { mode: "file", source: "memory" });
 * console.log(data.diff.firstDivergence?.field); // "inputs"
 * ```
 */
export function diffPageData(a: RunRecord, b: RunRecord, options: { mode: "ui" | "file"; source: string }): DiffPageData {
  const diff = diffRuns(a, b);
  const left = firstPromptByIteration(promptsOf(a.run.runId, a.events));
  const right = firstPromptByIteration(promptsOf(b.run.runId, b.events));
  const prompts: DiffPrompt[] = [];
  for (const [iteration, x] of left) {
    const y = right.get(iteration);
    if (y === undefined) continue;
    prompts.push({ iteration, a: messagesOf(x), b: messagesOf(y), same: x.hash === y.hash });
  }
  prompts.sort((x, y) => x.iteration - y.iteration);
  const costText: DiffPageData["costText"] = {};
  for (const side of ["a", "b"] as const) {
    // In dollars as the trace page writes them, with the calls the cost leaves out (docs/cost.md#calls-without-a-price).
    const cost = diff.cost[side];
    const text = fmt.costWithUnpriced(cost === undefined ? undefined : fmt.usd(cost), diff.usage[side]?.unpricedCalls);
    if (text !== undefined) costText[side] = text;
  }
  return { mode: options.mode, source: options.source, diff, prompts, costText };
}

function firstPromptByIteration(prompts: readonly RecordedPrompt[]): Map<number, RecordedPrompt> {
  const byIteration = new Map<number, RecordedPrompt>();
  for (const prompt of prompts) if (!byIteration.has(prompt.iteration)) byIteration.set(prompt.iteration, prompt);
  return byIteration;
}

function messagesOf(prompt: RecordedPrompt): DiffPromptMessage[] {
  return prompt.messages.map((message) => {
    const object = isObject(message) ? message : {};
    const data = isObject(object["data"]) ? object["data"] : {};
    const content = data["content"];
    const text = contentText(content);
    const calls = Array.isArray(data["tool_calls"]) && data["tool_calls"].length > 0 ? `\n[tool calls] ${JSON.stringify(data["tool_calls"])}` : "";
    const whole = `${text}${calls}`;
    return {
      role: typeof object["type"] === "string" ? object["type"] : "message",
      text: whole.length > DIFF_PROMPT_TEXT_BUDGET ? `${cutText(whole, DIFF_PROMPT_TEXT_BUDGET - 1)}…` : whole,
    };
  });
}

/**
 * A message's content as text: a string as it is; blocks of text (an image among them becomes a
 * placeholder, `[image 1: image/png, 12 KB]`, as on the trace page: no base64) joined by lines;
 * any other content as JSON, its images as placeholders too.
 */
function contentText(content: JsonValue | undefined): string {
  if (typeof content === "string") return content;
  const stripped = new TraceImageCollector(0).strip(content ?? null, []);
  if (Array.isArray(stripped) && stripped.every((block) => isObject(block as JsonValue) && block.type === "text" && typeof block.text === "string")) {
    return (stripped as { text: string }[]).map((block) => block.text).join("\n");
  }
  return JSON.stringify(stripped);
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
