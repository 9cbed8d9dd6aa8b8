/**
 * OpenAPI's parameter serialization (`style` and `explode`, see docs/tools.md#openapi-toolkit):
 * which styles each location takes, their defaults, and how an array or an object value is
 * spelled in each style. Pure code, so that it runs in a browser too.
 */

import { showValue } from "@agentrx/core";
import { encodeAllowingReserved, encodeForm, encodeStrict, UnencodableTextError } from "./percent-encode";

/** Where a parameter goes. */
export type ParameterPlace = "path" | "query" | "header" | "cookie";

/** An OpenAPI 3 parameter style: `simple`, `label` and `matrix` in a path (`simple` in a header), the others in a query (`form` in a cookie too). */
export type ParameterStyle = "matrix" | "label" | "simple" | "form" | "spaceDelimited" | "pipeDelimited" | "deepObject";

/** How one parameter (or one property of a form body) is serialized, as its `style` and `explode` say. */
export interface StyleSerialization {
  /** The parameter's style. */
  style: ParameterStyle;
  /** Whether an array's items or an object's properties are sent as separate values (`;id=1;id=2`) rather than one list (`;id=1,2`). */
  explode: boolean;
}

/** The styles OpenAPI allows in each place, the default first. */
export const STYLES_BY_PLACE: Readonly<Record<ParameterPlace, readonly ParameterStyle[]>> = {
  path: ["simple", "label", "matrix"],
  query: ["form", "spaceDelimited", "pipeDelimited", "deepObject"],
  header: ["simple"],
  cookie: ["form"],
};

/** The delimiter of a non-exploded list, as the style spells it. */
const DELIMITERS: Partial<Record<ParameterStyle, string>> = { spaceDelimited: " ", pipeDelimited: "|" };

/**
 * Reads a parameter's (or an Encoding Object's) `style` and `explode`, refusing what OpenAPI does
 * not define: a style the place does not take, an `explode` that is not a boolean,
 * `spaceDelimited` or `pipeDelimited` exploded, and `deepObject` with `explode: false` (left out,
 * `explode` is true for `deepObject`, its only defined form). Throws an Error naming `what`.
 */
export function readStyle(raw: { style?: unknown; explode?: unknown }, place: ParameterPlace, what: string): StyleSerialization {
  const allowed = STYLES_BY_PLACE[place];
  const style = raw.style ?? allowed[0];
  if (place === "cookie" && style === "cookie") {
    throw new Error(`${what} has the style "cookie" (OpenAPI 3.2), which sends its value unencoded and is not supported; use the form style (the default), which percent-encodes it`);
  }
  if (typeof style !== "string" || !allowed.includes(style as ParameterStyle)) {
    const styles = allowed.length === 1 ? allowed[0] : `${allowed.slice(0, -1).join(", ")} or ${allowed.at(-1)}`;
    throw new Error(`${what} has the style ${showValue(style)}, which OpenAPI does not allow in a ${place}; a ${place} parameter's style is ${styles}`);
  }
  if (raw.explode !== undefined && typeof raw.explode !== "boolean") {
    throw new Error(`${what} has explode ${showValue(raw.explode)}; explode is true or false`);
  }
  if ((style === "spaceDelimited" || style === "pipeDelimited") && raw.explode === true) {
    throw new Error(`${what} has the style ${style} with explode: true, which OpenAPI leaves undefined; use explode: false, or the form style to repeat the name`);
  }
  if (style === "deepObject" && raw.explode === false) {
    throw new Error(`${what} has the style deepObject with explode: false, which OpenAPI leaves undefined; leave explode out or set it to true`);
  }
  const explode = raw.explode ?? (style === "form" || style === "deepObject");
  return { style: style as ParameterStyle, explode };
}

/**
 * Reads a query parameter's (or an Encoding Object's) `allowReserved`: false when left out; a
 * value that is not a boolean throws an Error naming `what`.
 */
export function readAllowReserved(raw: { allowReserved?: unknown }, what: string): boolean {
  if (raw.allowReserved !== undefined && typeof raw.allowReserved !== "boolean") {
    throw new Error(`${what} has allowReserved ${showValue(raw.allowReserved)}; allowReserved is true or false`);
  }
  return raw.allowReserved === true;
}

/** Thrown for a value the style cannot spell: the caller turns it into its own error. */
export class UnserializableValueError extends Error {}

type Scalar = string | number | boolean;
type Shaped = { kind: "scalar"; text: string } | { kind: "array"; items: string[] } | { kind: "object"; entries: [string, string][] };

function isScalar(value: unknown): value is Scalar {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/**
 * A value as the styles see it: a scalar, a list of scalars or a map of scalars. `null` members
 * are left out (RFC 6570's undefined values); a nested array or object, which no style defines, is
 * refused naming where it is.
 */
function shape(value: unknown, name: string): Shaped {
  if (isScalar(value)) return { kind: "scalar", text: String(value) };
  const nested = (where: string): never => {
    throw new UnserializableValueError(`"${where}" is a nested object or array, which the parameter's style cannot send; only text, numbers and booleans can be members`);
  };
  if (Array.isArray(value)) {
    const items = value.filter((item) => item !== null && item !== undefined);
    return { kind: "array", items: items.map((item, index) => (isScalar(item) ? String(item) : nested(`${name}[${index}]`))) };
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, member]) => member !== null && member !== undefined);
    return { kind: "object", entries: entries.map(([key, member]) => [key, isScalar(member) ? String(member) : nested(`${name}.${key}`)]) };
  }
  throw new UnserializableValueError(`"${name}" is ${typeof value}, which cannot be sent`);
}

/**
 * One name=value pair of a query string or a form body, before percent-encoding: `items` are
 * joined with `delimiter`, which the caller spells as its format needs.
 */
export interface StyledPair {
  key: string;
  items: string[];
  delimiter: string;
}

/**
 * The pairs a query-style value (`form`, `spaceDelimited`, `pipeDelimited`, `deepObject`) becomes:
 * none for an empty array or object (RFC 6570 leaves them out), `name=a&name=b` for an exploded
 * form array, `a=1&b=2` for an exploded form object, `name[a]=1&name[b]=2` for a deepObject.
 */
export function queryPairs(name: string, value: unknown, { style, explode }: StyleSerialization): StyledPair[] {
  const shaped = shape(value, name);
  const single = (items: string[]): StyledPair[] => (items.length === 0 ? [] : [{ key: name, items, delimiter: DELIMITERS[style] ?? "," }]);
  if (style === "deepObject") {
    if (shaped.kind !== "object") throw new UnserializableValueError(`"${name}" is ${shaped.kind === "array" ? "an array" : "not an object"}, but the deepObject style sends an object's properties`);
    return shaped.entries.map(([key, text]) => ({ key: `${name}[${key}]`, items: [text], delimiter: "," }));
  }
  if (shaped.kind === "scalar") return single([shaped.text]);
  if (shaped.kind === "array") return style === "form" && explode ? shaped.items.map((text) => ({ key: name, items: [text], delimiter: "," })) : single(shaped.items);
  if (style === "form" && explode) return shaped.entries.map(([key, text]) => ({ key, items: [text], delimiter: "," }));
  return single(shaped.entries.flat());
}

/** A style's delimiter as a query string or a form body spells it: the comma as is, the space and the pipe percent-encoded, as OpenAPI's examples do. */
const ENCODED_DELIMITERS: Readonly<Record<string, string>> = { ",": ",", " ": "%20", "|": "%7C" };

/**
 * The `name=value` pairs, percent-encoded, of a query parameter, or of a form body property whose
 * Encoding Object gives a style (which OpenAPI spells as a query parameter of that style; see
 * docs/tools.md#openapi-toolkit): each name and member encoded as a form encodes it (a space is
 * `+`), or with `allowReserved` its reserved characters left as they are (see
 * `encodeAllowingReserved`), and the members joined with the style's delimiter, which stays a
 * delimiter (`ids=1%2C5,2` for `["1,5", "2"]` not exploded). A lone UTF-16 surrogate, or a value
 * the style cannot spell, throws an UnserializableValueError naming `name`.
 *
 * @example
 * ```ts
 * encodedQueryPairs("color", ["blue", "black,brown"], { style: "form", explode: false }, false); // ["color=blue,black%2Cbrown"]
 * ```
 */
export function encodedQueryPairs(name: string, value: unknown, serialization: StyleSerialization, allowReserved: boolean): string[] {
  const encodeValue = allowReserved ? (text: string) => encoded(name, text, encodeAllowingReserved) : encodeForm;
  return queryPairs(name, value, serialization).map((pair) => `${encodeForm(pair.key)}=${pair.items.map(encodeValue).join(ENCODED_DELIMITERS[pair.delimiter] ?? ",")}`);
}

/**
 * A path or header value in the `simple`, `label` or `matrix` style (RFC 6570's `{x}`, `{.x}` and
 * `{;x}`), each name and member passed through `encode` (percent-encoding in a path, nothing in a
 * header). An empty array or object spells "" (RFC 6570 leaves it out).
 */
export function expandValue(name: string, value: unknown, { style, explode }: StyleSerialization, encode: (text: string) => string): string {
  const shaped = shape(value, name);
  if (shaped.kind === "scalar") {
    if (style === "matrix") return shaped.text === "" ? `;${encode(name)}` : `;${encode(name)}=${encode(shaped.text)}`;
    return `${style === "label" ? "." : ""}${encode(shaped.text)}`;
  }
  if ((shaped.kind === "array" ? shaped.items : shaped.entries).length === 0) return "";
  const pairs = shaped.kind === "object" ? shaped.entries.map(([key, text]) => [encode(key), encode(text)] as const) : undefined;
  const items = shaped.kind === "array" ? shaped.items.map(encode) : undefined;
  if (style === "matrix") {
    if (!explode) return `;${encode(name)}=${(items ?? pairs!.flat()).join(",")}`;
    return items ? items.map((item) => `;${encode(name)}=${item}`).join("") : pairs!.map(([key, text]) => `;${key}=${text}`).join("");
  }
  const separator = style === "label" && explode ? "." : ",";
  const members = items ?? (explode ? pairs!.map(([key, text]) => `${key}=${text}`) : pairs!.flat());
  return `${style === "label" ? "." : ""}${members.join(separator)}`;
}

/** A cookie name: an HTTP token (RFC 6265). */
const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * A cookie parameter's `name=value` pairs in the `form` style, joined as a `Cookie` header joins
 * cookies (`; `): `color=blue`, not exploded `color=blue,black,brown`, exploded `color=blue;
 * color=black` for an array and `R=100; G=200` for an object ("" for an empty array or object).
 * Every member is percent-encoded as RFC 3986 does (`encodeStrict`), and so is a name that is not
 * an HTTP token (a cookie name is one), so no value can add a cookie or break the header; a lone
 * UTF-16 surrogate, and an exploded object's empty key (a cookie without a name), are refused.
 */
export function cookiePairs(name: string, value: unknown, serialization: StyleSerialization): string {
  return queryPairs(name, value, serialization)
    .map((pair) => {
      if (pair.key === "") throw new UnserializableValueError(`"${name}" has an empty property name, which would be a cookie without a name`);
      const cookieName = COOKIE_NAME.test(pair.key) ? pair.key : encoded(name, pair.key, encodeStrict);
      return `${cookieName}=${pair.items.map((item) => encoded(name, item, encodeStrict)).join(",")}`;
    })
    .join("; ");
}

/** `encode(text)`, a text it cannot encode (a lone surrogate) refused as unserializable, naming the parameter. */
export function encoded(name: string, text: string, encode: (text: string) => string): string {
  try {
    return encode(text);
  } catch (error) {
    if (error instanceof UnencodableTextError) throw new UnserializableValueError(`"${name}" ${error.message}`, { cause: error });
    throw error;
  }
}
