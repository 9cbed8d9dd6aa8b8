// The recording a `RecordedChatModel` answers from, read from a run store (not exported from the package).
import { RunEventDecoder, type RecordedModelCall, type RunStore, corruptEventError as corrupt, errorMessageOf as messageOf, readRecordedEvents } from "@agentrx/executors";

/** A run's recorded model calls, and the model name each was priced by (undefined when its record has none). */
export interface Recording {
  calls: RecordedModelCall[];
  models: (string | undefined)[];
  /** The last name in `models`. */
  lastModel: string | undefined;
}

/**
 * The run's recorded model calls, in the order they were recorded (over every segment of a resumed
 * run), each with the `model` of the `usage` event recorded just before it in its iteration (an
 * executor records a call's usage, and the name it priced it by, as the call ends, then the call).
 */
export async function loadRecording(owner: string, store: RunStore, runId: string): Promise<Recording> {
  const decoder = new RunEventDecoder(runId);
  const calls: RecordedModelCall[] = [];
  const models: (string | undefined)[] = [];
  let lastModel: string | undefined;
  let usage: Record<string, unknown> | undefined;
  for await (const page of readRecordedEvents(store, runId, owner)) {
    for (const stored of page) {
      // A sub-run's model call (an executor called as a tool) is not one of this run's calls, nor its usage.
      if (stored.data["subRun"] !== undefined) continue;
      if (stored.data["type"] === "usage") usage = stored.data;
      if (stored.data["type"] !== "model_call") continue;
      let call: RecordedModelCall;
      try {
        call = decoder.decode(stored) as RecordedModelCall;
      } catch (cause) {
        throw corrupt(owner, runId, stored.seq, `the model call cannot be decoded (${messageOf(cause)})`, cause);
      }
      if (!Number.isInteger(call.inputCount) || call.inputCount < 0 || call.inputDigest === "") {
        throw corrupt(owner, runId, stored.seq, "the model call has no input count or digest");
      }
      if (call.message.getType() !== "ai") {
        throw corrupt(owner, runId, stored.seq, `the model call's reply is a "${call.message.getType()}" message, not an AI message`);
      }
      calls.push(call);
      const model = usage?.["iteration"] === call.iteration ? usage["model"] : undefined;
      const name = typeof model === "string" && model !== "" ? model : undefined;
      models.push(name);
      lastModel = name ?? lastModel;
      usage = undefined;
    }
  }
  return { calls, models, lastModel };
}
