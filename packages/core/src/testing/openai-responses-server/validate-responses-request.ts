// The rules of OpenAI's Responses API that agent frameworks break, checked as the API checks them,
// with the API's own error text (not exported from the package).

/** What the server remembers of the items it sent, to check them when they come back. */
export interface EmittedItems {
  /** The type of each item the server sent, by id. */
  types: Map<string, string>;
  /** For an item that followed a reasoning item in its response: that reasoning item's id. */
  requiredReasoning: Map<string, string>;
  /** For a reasoning item: the id of the item that followed it. */
  following: Map<string, string>;
}

/** A refusal: the message of the 400 and the parameter at fault. */
export interface ResponsesRejection {
  message: string;
  param: string | null;
}

type Item = Record<string, any>;

/** The input as a list of items (a string is one user message). */
export function inputItems(input: unknown): Item[] {
  if (typeof input === "string") return [{ role: "user", content: input }];
  return Array.isArray(input) ? (input as Item[]) : [];
}

/**
 * The first rule `body` breaks, or `undefined` when the Responses API would take it.
 * `verifyEncrypted` says whether a reasoning item's `encrypted_content` is what the server gave.
 */
export function validateResponsesRequest(
  body: Record<string, any>,
  emitted: EmittedItems,
  verifyEncrypted: (id: string, encrypted: string) => boolean,
): ResponsesRejection | undefined {
  if (typeof body["model"] !== "string") return { message: "Missing required parameter: 'model'.", param: "model" };
  if (body["input"] === undefined) return { message: "Missing required parameter: 'input'.", param: "input" };
  const items = inputItems(body["input"]);
  const calls = new Set<string>();
  for (const [i, item] of items.entries()) {
    const type = item["type"] ?? "message";
    const id = typeof item["id"] === "string" ? (item["id"] as string) : undefined;
    if (type === "reasoning") {
      if (typeof item["encrypted_content"] === "string") {
        if (!verifyEncrypted(id ?? "", item["encrypted_content"])) {
          return { message: `The encrypted content for item ${id ?? "(without id)"} could not be verified.`, param: `input[${i}].encrypted_content` };
        }
      } else if (id === undefined || !emitted.types.has(id)) {
        return {
          message: `Item with id '${id ?? ""}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
          param: "input",
        };
      }
      const next = id !== undefined ? emitted.following.get(id) : undefined;
      if (next !== undefined && items[i + 1]?.["id"] !== next) {
        return { message: `Item '${id}' of type 'reasoning' was provided without its required following item.`, param: "input" };
      }
    }
    if (id !== undefined && emitted.requiredReasoning.has(id)) {
      const reasoning = emitted.requiredReasoning.get(id) as string;
      const seen = items.slice(0, i).some((earlier) => earlier["type"] === "reasoning" && earlier["id"] === reasoning);
      if (!seen) {
        return { message: `Item '${id}' of type '${type}' was provided without its required 'reasoning' item: '${reasoning}'.`, param: "input" };
      }
    }
    if (type === "function_call") {
      if (typeof item["call_id"] !== "string") return { message: `Missing required parameter: 'input[${i}].call_id'.`, param: `input[${i}].call_id` };
      calls.add(item["call_id"]);
    }
    if (type === "function_call_output" && !calls.has(String(item["call_id"]))) {
      return { message: `No tool call found for function call output with call_id ${String(item["call_id"])}.`, param: "input" };
    }
    if (type === "function_call_output") {
      const outputError = functionOutputError(item["output"], i);
      if (outputError) return outputError;
    }
  }
  const answered = new Set(items.filter((item) => item["type"] === "function_call_output").map((item) => String(item["call_id"])));
  for (const call of calls) if (!answered.has(call)) return { message: `No tool output found for function call ${call}.`, param: "input" };
  return undefined;
}

/** The content types a function call's output takes when it is a list. */
const OUTPUT_TYPES = ["input_text", "input_image", "input_file"];

/** A function call output is a string, or a list of text, image and file items (images by URL or file id). */
function functionOutputError(output: unknown, index: number): { message: string; param: string } | undefined {
  const param = `input[${index}].output`;
  if (typeof output === "string") return undefined;
  if (!Array.isArray(output)) return { message: `Invalid type for '${param}': expected one of a string or an array of input items.`, param };
  for (const [at, part] of output.entries()) {
    const item = part as Record<string, unknown> | null;
    const type = item?.["type"];
    if (typeof type !== "string" || !OUTPUT_TYPES.includes(type)) {
      return { message: `Invalid value: '${String(type)}'. Supported values are: 'input_text', 'input_image', and 'input_file'.`, param: `${param}[${at}].type` };
    }
    if (type === "input_image" && typeof item?.["image_url"] !== "string" && typeof item?.["file_id"] !== "string") {
      return { message: `Invalid '${param}[${at}]': an input_image needs an 'image_url' or a 'file_id'.`, param: `${param}[${at}]` };
    }
  }
  return undefined;
}
