// The rules of the Gemini API that agent frameworks break, checked as the API checks them, with
// the API's own error text (not exported from the package).

type Content = { role?: unknown; parts?: unknown };
type Part = Record<string, any>;

const DATA_FIELDS = ["text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"];
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The parts of a content ([] when it has none). */
function partsOf(content: Content): Part[] {
  return Array.isArray(content.parts) ? (content.parts as Part[]) : [];
}

/**
 * The first rule `body` breaks, as the 400's message, or `undefined` when the Gemini API would take
 * it. `issued` says whether a `thoughtSignature` is one the server gave.
 */
export function validateGeminiRequest(body: Record<string, any>, issued: (signature: string) => boolean): string | undefined {
  const contents = body["contents"];
  if (!Array.isArray(contents) || contents.length === 0) return "* GenerateContentRequest.contents: contents is not specified\n";
  for (const [i, content] of (contents as Content[]).entries()) {
    if (content.role !== undefined && content.role !== "user" && content.role !== "model") return "Please use a valid role: user, model.";
    const parts = partsOf(content);
    if (parts.length === 0) return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`;
    for (const [j, part] of parts.entries()) {
      const problem = checkPart(part, `contents[${i}].parts[${j}]`, content.role === "model" ? "model" : "user", issued);
      if (problem !== undefined) return problem;
    }
  }
  return checkFunctionResponses(contents as Content[]) ?? checkSignatures(contents as Content[]);
}

function checkPart(part: Part, at: string, role: "user" | "model", issued: (signature: string) => boolean): string | undefined {
  const fields = DATA_FIELDS.filter((field) => part[field] !== undefined);
  if (fields.length !== 1) return `* GenerateContentRequest.${at}.data: required oneof field 'data' must have one initialized field\n`;
  if (typeof part["thoughtSignature"] === "string" && !issued(part["thoughtSignature"])) return "Corrupted thought signature.";
  const inline = part["inlineData"];
  if (inline !== undefined) {
    if (typeof inline?.mimeType !== "string" || (inline.mimeType.startsWith("image/") && !IMAGE_TYPES.has(inline.mimeType))) {
      return `Unsupported MIME type: ${String(inline?.mimeType)}`;
    }
    if (typeof inline.data !== "string" || inline.data.length % 4 !== 0 || !BASE64.test(inline.data)) {
      return `Invalid value at '${at}.inline_data.data' (TYPE_BYTES), Base64 decoding failed for "${String(inline.data).slice(0, 40)}"`;
    }
  }
  if (part["functionCall"] !== undefined && role !== "model") return "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
  const response = part["functionResponse"];
  if (response !== undefined) {
    if (role !== "user") return "Please ensure that function response turn comes immediately after a function call turn.";
    if (typeof response?.name !== "string" || !response.name) return `* GenerateContentRequest.${at}.function_response.name: Name cannot be empty.\n`;
    if (typeof response.response !== "object" || response.response === null || Array.isArray(response.response)) {
      return `Invalid value at '${at}.function_response.response' (type.googleapis.com/google.protobuf.Struct), ${JSON.stringify(response.response)}`;
    }
  }
  return undefined;
}

/** Every model turn's function calls are answered, name for name, by the user turns that follow it. */
function checkFunctionResponses(contents: Content[]): string | undefined {
  let calls: string[] | undefined;
  let answers: string[] = [];
  const settle = () => {
    if (calls === undefined) return undefined;
    const expected = [...calls].sort().join("\n");
    const got = [...answers].sort().join("\n");
    calls = undefined;
    answers = [];
    return expected === got
      ? undefined
      : "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
  };
  for (const content of contents) {
    const parts = partsOf(content);
    if (content.role === "model") {
      const problem = settle();
      if (problem !== undefined) return problem;
      const made = parts.filter((part) => part["functionCall"] !== undefined).map((part) => String(part["functionCall"].name));
      calls = made.length ? made : undefined;
      continue;
    }
    const responses = parts.filter((part) => part["functionResponse"] !== undefined);
    if (responses.length && calls === undefined) return "Please ensure that function response turn comes immediately after a function call turn.";
    answers.push(...responses.map((part) => String(part["functionResponse"].name)));
    if (calls !== undefined && responses.length < parts.length) {
      // A user turn with more than function responses ends the function response turn.
      const problem = settle();
      if (problem !== undefined) return problem;
    }
  }
  return calls !== undefined && answers.length ? settle() : undefined;
}

/**
 * In the current turn (since the last user turn that is not only function responses), the first
 * function call of each model step must carry the thought signature the server gave it.
 */
function checkSignatures(contents: Content[]): string | undefined {
  let start = 0;
  contents.forEach((content, index) => {
    const parts = partsOf(content);
    if (content.role !== "model" && parts.some((part) => part["functionResponse"] === undefined)) start = index + 1;
  });
  for (let index = start; index < contents.length; index++) {
    const content = contents[index] as Content;
    if (content.role !== "model") continue;
    const first = partsOf(content).find((part) => part["functionCall"] !== undefined);
    if (first !== undefined && typeof first["thoughtSignature"] !== "string") {
      return (
        "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing " +
        `thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String(first["functionCall"].name)}\` , ` +
        `position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`
      );
    }
  }
  return undefined;
}
