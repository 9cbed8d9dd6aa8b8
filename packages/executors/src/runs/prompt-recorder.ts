import type { BaseMessage } from "@langchain/core/messages";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { hashText } from "./digest-messages";
import { encodeMessages, encodeValue } from "./json-value";
import type { JsonObject, JsonValue } from "./run-store";

/**
 * What a recorded model call keeps of its request with `recordPrompts`: the request's parts by
 * hash. Each message and the tool list is a blob, recorded once per run segment in the `blobs` of
 * the first model call that sent it; `settings` (the model's call parameters, tools left out)
 * are kept inline.
 */
export interface RecordedPromptRef {
  /** The hash of the whole request (messages, tools and settings). */
  hash: string;
  /** The hashes of the messages sent, in order. */
  messages: string[];
  /** The hash of the tool definitions sent, if any. */
  tools?: string;
  /** The call's other parameters (model, temperature, ...), as the model reported them. */
  settings?: JsonObject;
}

/** The parameters LangChain reports at a chat model's start (`handleChatModelStart`'s `extraParams`). */
interface StartParams {
  invocation_params?: Record<string, unknown>;
  options?: Record<string, unknown>;
}

/** Keys of the call options that are not request settings. */
const NOT_SETTINGS = new Set(["tools", "messages", "signal", "callbacks", "configurable", "metadata", "tags", "runName", "runId", "recursionLimit", "maxConcurrency", "timeout", "ls_structured_output_format"]);

/**
 * Turns model-call requests into {@link RecordedPromptRef}s and the blobs not recorded yet. One per
 * run segment (a resumed segment records a part again the first time it sends it).
 *
 * @internal
 */
export class PromptRecorder {
  private readonly recorded = new Set<string>();

  /** The request's reference, and the blobs this call introduces (undefined when none). */
  record(input: readonly BaseMessage[], start: unknown): { prompt: RecordedPromptRef; blobs: JsonObject | undefined } {
    let blobs: JsonObject | undefined;
    const blob = (value: JsonValue): string => {
      const hash = hashText(JSON.stringify(value));
      if (!this.recorded.has(hash)) {
        this.recorded.add(hash);
        (blobs ??= {})[hash] = value;
      }
      return hash;
    };
    const messages = encodeMessages(input).map(blob);
    const params = (start ?? {}) as StartParams;
    const invocation = params.invocation_params ?? {};
    const options = params.options ?? {};
    const prompt: RecordedPromptRef = { hash: "", messages };
    const tools = toolDefinitions(invocation["tools"] ?? options["tools"]);
    if (tools !== undefined) prompt.tools = blob(tools);
    const settings: JsonObject = {};
    for (const source of [options, invocation]) {
      for (const [key, value] of Object.entries(source)) {
        if (NOT_SETTINGS.has(key) || value === undefined || typeof value === "function") continue;
        try {
          settings[key] = encodeValue(value, key);
        } catch {
          // A value that cannot be recorded (a circular one) is left out of the settings.
        }
      }
    }
    if (Object.keys(settings).length > 0) prompt.settings = settings;
    prompt.hash = hashText(JSON.stringify([messages, prompt.tools ?? null, prompt.settings ?? null]));
    return { prompt, blobs };
  }
}

/** The tools of a request as JSON (OpenAI's function-tool form for LangChain tools). */
function toolDefinitions(tools: unknown): JsonValue | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return tools.map((tool: unknown): JsonValue => {
    try {
      const plain = typeof tool === "object" && tool !== null && "type" in tool ? tool : convertToOpenAITool(tool as never);
      return encodeValue(plain, "tool");
    } catch {
      return { name: String((tool as { name?: unknown })?.name ?? "unknown") };
    }
  });
}
