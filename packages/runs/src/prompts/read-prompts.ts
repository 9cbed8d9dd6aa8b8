import { InvalidArgumentError, showValue } from "@agentrx/core";
import { RunNotFoundError, RunStoreError, readRecordedEvents, type JsonObject, type JsonValue, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { checkRunReference } from "../replay/check-run-reference";

/** A model call's full request, as recorded with the executor's `recordPrompts`. */
export interface RecordedPrompt {
  /** 0-based position of the model call in the run (the `call` of its `model_call` event). */
  call: number;
  /** The iteration it belongs to. */
  iteration: number;
  /** The hash of the whole request: two calls with the same hash sent the same request. */
  hash: string;
  /** The messages sent, in `@langchain/core`'s stored form (`{ type, data }`; `mapStoredMessagesToChatMessages` revives them). */
  messages: JsonValue[];
  /** The tool definitions sent (OpenAI's function-tool form for LangChain tools), if any. */
  tools?: JsonValue;
  /** The call's other parameters (model, temperature, ...), as the model reported them. */
  settings?: JsonObject;
}

/**
 * The full requests of a run's model calls, in call order, rebuilt from the content-addressed parts
 * its `model_call` events carry (each part stored once, in the call that first sent it). Calls
 * recorded without `recordPrompts` are left out. Rejects with `RunNotFoundError` for an unknown
 * run and a `RunStoreError` when a call refers to a part that is not in the record.
 *
 * @example
 * ```ts
 * import { readPrompts, type RunStore } from "@agentrx/runs";
 *
 * async function firstPrompt(store: RunStore, runId: string) {
 *   const [prompt] = await readPrompts(store, runId);
 *   return prompt?.messages; // what the model was sent first
 * }
 * ```
 */
export async function readPrompts(store: RunStore, runId: string): Promise<RecordedPrompt[]> {
  checkRunReference("readPrompts", store, runId);
  if ((await store.getRun(runId)) === undefined) throw new RunNotFoundError({ operation: "readPrompts", runId });
  const events: StoredRunEvent[] = [];
  for await (const page of readRecordedEvents(store, runId, "readPrompts")) events.push(...page);
  return promptsOf(runId, events);
}

/** The prompts of a run's recorded events (see {@link readPrompts}). */
export function promptsOf(runId: string, events: readonly StoredRunEvent[]): RecordedPrompt[] {
  if (typeof runId !== "string" || runId === "") {
    throw new InvalidArgumentError({ argument: "runId", value: runId, message: `promptsOf: \`runId\` must be the non-empty id of the run the events are of, got ${showValue(runId)}.` });
  }
  if (!Array.isArray(events)) {
    throw new InvalidArgumentError({ argument: "events", value: events, message: `promptsOf: \`events\` must be the run's recorded events (an array, as store.readEvents gives them), got ${events === null ? "null" : typeof events}.` });
  }
  const blobs = new Map<string, JsonValue>();
  const prompts: RecordedPrompt[] = [];
  for (const event of events) {
    const data = event.data;
    if (data["type"] !== "model_call" || data["subRun"] !== undefined) continue;
    const stored = data["blobs"];
    if (isObject(stored)) for (const [hash, value] of Object.entries(stored)) blobs.set(hash, value);
    const ref = data["prompt"];
    if (!isObject(ref)) continue;
    const part = (hash: JsonValue | undefined): JsonValue => {
      const value = typeof hash === "string" ? blobs.get(hash) : undefined;
      if (value === undefined) {
        throw new RunStoreError({ reason: "corrupt", operation: "readPrompts", runId, message: `readPrompts: model call ${String(data["call"])} of run "${runId}" (event ${event.seq}) refers to a prompt part ${JSON.stringify(hash)} that is not in the record.` });
      }
      return value;
    };
    const prompt: RecordedPrompt = {
      call: Number(data["call"]),
      iteration: Number(data["iteration"]),
      hash: String(ref["hash"] ?? ""),
      messages: (Array.isArray(ref["messages"]) ? ref["messages"] : []).map(part),
    };
    if (ref["tools"] !== undefined) prompt.tools = part(ref["tools"]);
    if (isObject(ref["settings"])) prompt.settings = ref["settings"];
    prompts.push(prompt);
  }
  return prompts;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
