import { RequestRefusedError } from "../errors/request-refused-error";

/**
 * Encodes one path parameter so it stays one path segment: every reserved character is
 * percent-encoded, and ".", "..", "", a missing value and text that is not well-formed UTF-16 are
 * refused with a {@link RequestRefusedError}.
 *
 * @example
 * ```ts
 * import { encodePathParameter } from "@agentrx/tools";
 *
 * console.log(encodePathParameter("petId", "../admin", "https://api.example.com/pets/{petId}")); // ..%2Fadmin
 * ```
 */
export function encodePathParameter(name: string, value: unknown, url: string): string {
  const refuse = (message: string): never => {
    throw new RequestRefusedError({ reason: "invalid_path_parameter", url, message: `the path parameter "${name}" ${message}` });
  };
  if (value === undefined || value === null) refuse(`is missing; give it a value.`);
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (text === "" || text === "." || text === "..") refuse(`may not be ${JSON.stringify(text)}.`);
  try {
    return encodeURIComponent(text);
  } catch (error) {
    throw new RequestRefusedError({ reason: "invalid_path_parameter", url, message: `the path parameter "${name}" holds a lone UTF-16 surrogate, which cannot be put in a URL.`, cause: error });
  }
}
