import { RequestRefusedError } from "../errors/request-refused-error";

/**
 * Encodes one path parameter so it stays one path segment: every reserved character is
 * percent-encoded, and ".", "..", "", a missing value and text that is not well-formed UTF-16 are
 * refused with a {@link RequestRefusedError}. An array is OpenAPI's default (`simple`) style for a
 * path: its items encoded one by one and joined with commas (`[1, 2]` is `1,2`); an object is sent
 * as JSON.
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
  const items = Array.isArray(value) ? value : [value];
  const texts = items.map((item) => (typeof item === "object" && item !== null ? JSON.stringify(item) : String(item)));
  const text = texts.join(",");
  if (text === "" || text === "." || text === "..") refuse(`may not be ${JSON.stringify(text)}.`);
  try {
    return texts.map((item) => encodeURIComponent(item)).join(",");
  } catch (error) {
    throw new RequestRefusedError({ reason: "invalid_path_parameter", url, message: `the path parameter "${name}" holds a lone UTF-16 surrogate, which cannot be put in a URL.`, cause: error });
  }
}
