import { RequestRefusedError } from "../errors/request-refused-error";
import { expandValue, type StyleSerialization, UnserializableValueError } from "./parameter-style";

/**
 * Encodes one path parameter so it stays inside its path segment: every reserved character is
 * percent-encoded, and a result of ".", ".." or "", a missing value, a nested array or object and
 * text that is not well-formed UTF-16 are refused with a {@link RequestRefusedError}. The value is
 * spelled in OpenAPI's `style` (docs/tools.md#openapi-toolkit): `simple` by default, so an array
 * `[1, 2]` is `1,2` and an object `{ a: 1, b: 2 }` is `a,1,b,2` (`a=1,b=2` with `explode: true`);
 * `label` prefixes a "." (`.1,2`, exploded `.1.2`), and `matrix` a ";name=" (`;id=1,2`, exploded
 * `;id=1;id=2`).
 *
 * @example
 * ```ts
 * import { encodePathParameter } from "@agentrx/tools";
 *
 * console.log(encodePathParameter("petId", "../admin", "https://api.example.com/pets/{petId}")); // ..%2Fadmin
 * console.log(encodePathParameter("ids", [1, 2], "https://api.example.com/pets/{ids}", { style: "matrix", explode: true })); // ;ids=1;ids=2
 * ```
 */
export function encodePathParameter(name: string, value: unknown, url: string, serialization: StyleSerialization = { style: "simple", explode: false }): string {
  const refuse = (message: string, cause?: unknown): never => {
    throw new RequestRefusedError({ reason: "invalid_path_parameter", url, message: `the path parameter "${name}" ${message}`, cause });
  };
  if (value === undefined || value === null) refuse(`is missing; give it a value.`);
  let text: string;
  try {
    text = expandValue(name, value, serialization, encodeURIComponent);
  } catch (error) {
    if (error instanceof UnserializableValueError) return refuse(`cannot be sent: ${error.message}.`, error);
    return refuse(`holds a lone UTF-16 surrogate, which cannot be put in a URL.`, error);
  }
  if (text === "" || text === "." || text === "..") refuse(`may not be ${JSON.stringify(text)}.`);
  return text;
}
