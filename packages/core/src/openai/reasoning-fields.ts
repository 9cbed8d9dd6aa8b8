// The reasoning compatible Chat Completions servers send beside the content, read from a reply
// and sent back with the next request as it came: DeepSeek's and vLLM's `reasoning_content`,
// OpenRouter's `reasoning` and its `reasoning_details` (Anthropic's signed thinking, Gemini's
// thought signatures, OpenAI's encrypted reasoning). See docs/models.md.

/** The wire field a reply's reasoning text came in. */
export type ReasoningField = "reasoning_content" | "reasoning";

/**
 * The reasoning text of a message or delta, and the field it came in: the first of
 * `reasoning_content` and `reasoning` that is a non-empty string (some servers send both, one of
 * them empty), or `undefined`.
 */
export function reasoningOf(message: unknown): { text: string; field: ReasoningField } | undefined {
  const source = (message ?? {}) as Partial<Record<ReasoningField, unknown>>;
  for (const field of ["reasoning_content", "reasoning"] as const) {
    const text = source[field];
    if (typeof text === "string" && text) return { text, field };
  }
  return undefined;
}

/** A message's `reasoning_details` when they are an array (OpenRouter's), else `undefined`. */
export function reasoningDetailsOf(message: unknown): unknown[] | undefined {
  const details = (message as { reasoning_details?: unknown } | null | undefined)?.reasoning_details;
  return Array.isArray(details) ? details : undefined;
}

/**
 * The `additional_kwargs` for a reply's reasoning: the text in `reasoning_content` (where every
 * reader looks for it), `reasoning_field: "reasoning"` when it came in OpenRouter's field (so it
 * goes back there), and the `reasoning_details` as they came.
 */
export function reasoningKwargs(message: unknown): Record<string, unknown> {
  const reasoning = reasoningOf(message);
  const details = reasoningDetailsOf(message);
  return {
    ...(reasoning ? { reasoning_content: reasoning.text } : {}),
    ...(reasoning?.field === "reasoning" ? { reasoning_field: "reasoning" } : {}),
    ...(details ? { reasoning_details: details } : {}),
  };
}

/**
 * What an assistant message sends back of its reasoning: its text, in the field it came in, when
 * the turn called tools (DeepSeek's thinking mode requires it then; other turns go without), and
 * its `reasoning_details` unchanged whenever it has them (OpenRouter asks for them back as they
 * came).
 */
export function reasoningParams(kwargs: Record<string, unknown> | undefined, hasToolCalls: boolean): Record<string, unknown> {
  const text = kwargs?.reasoning_content;
  const field: ReasoningField = kwargs?.reasoning_field === "reasoning" ? "reasoning" : "reasoning_content";
  const details = kwargs?.reasoning_details;
  return {
    ...(hasToolCalls && typeof text === "string" ? { [field]: text } : {}),
    ...(Array.isArray(details) && details.length ? { reasoning_details: details } : {}),
  };
}

/** The string fields of a reasoning detail whose streamed pieces are concatenated. */
const CONCATENATED = new Set(["text", "summary", "data", "signature"]);

type Detail = Record<string, unknown>;

/**
 * The reasoning of one stream: which field its text came in (announced once, on the first chunk
 * that carries text, because LangChain concatenates a string repeated on every chunk), and its
 * `reasoning_details` assembled from their deltas. OpenRouter streams each detail in pieces that
 * share its `index` (and `type`): their `text`, `summary`, `data` and `signature` concatenate, and
 * any other field is kept from the first piece that has it. The assembled details go out once, at
 * the end of the stream (LangChain's own merge of such lists would concatenate `format` too).
 */
export class StreamReasoning {
  private announced = false;
  private readonly details: Detail[] = [];
  private readonly byIndex = new Map<unknown, Detail>();

  /** The `additional_kwargs` of a delta's reasoning text, or `{}`. */
  textKwargs(delta: unknown): Record<string, unknown> {
    const reasoning = reasoningOf(delta);
    if (!reasoning) return {};
    const announce = !this.announced && reasoning.field === "reasoning";
    this.announced = true;
    return { reasoning_content: reasoning.text, ...(announce ? { reasoning_field: "reasoning" } : {}) };
  }

  /** Adds the `reasoning_details` of one delta. */
  addDetails(delta: unknown): void {
    const pieces = reasoningDetailsOf(delta);
    if (!pieces) return;
    const started = new Set<Detail>();
    for (const piece of pieces) {
      if (typeof piece !== "object" || piece === null || Array.isArray(piece)) continue;
      const part = piece as Detail;
      const index = part.index;
      const current = typeof index === "number" ? this.byIndex.get(index) : undefined;
      if (current && current.type === part.type && !started.has(current)) {
        merge(current, part);
        continue;
      }
      const detail = { ...part };
      this.details.push(detail);
      started.add(detail);
      if (typeof index === "number") this.byIndex.set(index, detail);
    }
  }

  /** The assembled `reasoning_details`, or `undefined` when the stream had none. */
  assembled(): Detail[] | undefined {
    return this.details.length ? this.details : undefined;
  }
}

function merge(detail: Detail, piece: Detail): void {
  for (const [key, value] of Object.entries(piece)) {
    const current = detail[key];
    if (current === undefined || current === null) detail[key] = value;
    else if (CONCATENATED.has(key) && typeof current === "string" && typeof value === "string") detail[key] = current + value;
  }
}
