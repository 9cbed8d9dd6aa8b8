import { encodedQueryPairs, queryPairs, readAllowReserved, readStyle, type StyleSerialization } from "./parameter-style";
import { encodeForm } from "./percent-encode";

/** How an operation's request body is sent, by its media type (see docs/tools.md#openapi-toolkit). */
export type BodyFormat = "json" | "form" | "multipart" | "text";

/** How one property of a form or multipart body is encoded: its Encoding Object, read. */
export interface PropertyEncoding {
  /** The explicit `style`/`explode` (either given): the property is serialized like a query parameter. */
  style?: StyleSerialization;
  /** The explicit `contentType`, if any. */
  contentType?: string;
  /** `allowReserved: true`: a form body leaves the property's reserved characters unencoded (see `encodeAllowingReserved`); a multipart body encodes nothing anyway. */
  allowReserved?: boolean;
}

/** The format of a request body media type such as "application/json; charset=utf-8". */
export function bodyFormat(mediaType: string): BodyFormat {
  const essence = mediaType.split(";")[0]!.trim().toLowerCase();
  if (essence.includes("json")) return "json"; // application/json, application/problem+json, ...
  if (essence === "application/x-www-form-urlencoded") return "form";
  if (essence === "multipart/form-data") return "multipart";
  return "text";
}

/**
 * Reads a form or multipart body's `encoding` map. A property's `style`/`explode` are checked like
 * a query parameter's; when any of `style`, `explode` or `allowReserved` is given the property is
 * serialized in that style (the others at their defaults), otherwise by its content type, as
 * OpenAPI 3.1.1 recommends. An `allowReserved` that is not a boolean throws.
 */
export function readEncodings(encoding: unknown, resolve: (value: unknown) => unknown, where: string): Record<string, PropertyEncoding> {
  const result: Record<string, PropertyEncoding> = Object.create(null);
  if (encoding === undefined) return result;
  if (typeof encoding !== "object" || encoding === null) throw new Error(`the encoding of ${where} is not an object`);
  for (const [property, raw] of Object.entries(encoding)) {
    const entry = resolve(raw) as { style?: unknown; explode?: unknown; allowReserved?: unknown; contentType?: unknown } | undefined;
    if (typeof entry !== "object" || entry === null) throw new Error(`the encoding of the property "${property}" of ${where} is not an object`);
    const styled = entry.style !== undefined || entry.explode !== undefined || entry.allowReserved !== undefined;
    const contentType = readContentType(entry.contentType, `the property "${property}" of ${where}`);
    const allowReserved = readAllowReserved(entry, `the property "${property}" of ${where}`);
    result[property] = {
      ...(styled ? { style: readStyle(entry, "query", `the property "${property}" of ${where}`) } : {}),
      ...(allowReserved ? { allowReserved } : {}),
      ...(contentType ? { contentType } : {}),
    };
  }
  return result;
}

/**
 * An Encoding Object's `contentType`, a list such as "image/png, image/jpeg": its first media type,
 * which a part is sent as; a wildcard ("image/*") names none. Control characters, which would break
 * the part's headers, are refused.
 */
function readContentType(raw: unknown, what: string): string | undefined {
  if (raw === undefined) return undefined;
  // eslint-disable-next-line no-control-regex
  if (typeof raw !== "string" || /[\u0000-\u001f\u007f]/.test(raw)) throw new Error(`${what} has the contentType ${JSON.stringify(raw)}, which is not a media type`);
  const first = raw.split(",")[0]!.trim();
  return first && !first.includes("*") ? first : undefined;
}

/** One name=value of a form body, or one part of a multipart body. */
interface Field {
  name: string;
  value: string;
  /** A part's content type; none is text/plain. */
  contentType?: string;
}

/** Whether a property's (explicit or default) content type asks for JSON. */
function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && bodyFormat(contentType) === "json";
}

/** The body's properties that are sent (`null` left out), each with its encoding ({} when it has none). */
function properties(body: Record<string, unknown>, encodings: Record<string, PropertyEncoding>): [string, unknown, PropertyEncoding][] {
  return Object.entries(body)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([name, value]): [string, unknown, PropertyEncoding] => [name, value, Object.hasOwn(encodings, name) ? encodings[name]! : {}]);
}

/**
 * The fields of a property without a style, by its content type: one per item of an array (the
 * name repeated), an object (or an object item) as JSON text, a `null` item left out.
 */
function contentFields(name: string, value: unknown, encoding: PropertyEncoding): Field[] {
  const result: Field[] = [];
  for (const item of Array.isArray(value) ? value : [value]) {
    if (item === null || item === undefined) continue;
    const json = typeof item === "object" || isJsonType(encoding.contentType);
    const contentType = encoding.contentType ?? (json ? "application/json" : undefined);
    result.push({ name, value: json ? JSON.stringify(item) : String(item), ...(contentType ? { contentType } : {}) });
  }
  return result;
}

/**
 * An `application/x-www-form-urlencoded` body (URLSearchParams' encoding). A property whose
 * encoding gives a style is spelled as a query parameter of that style (`encodedQueryPairs`): its
 * delimiters as they are (`tags=a,b` for `["a", "b"]` with `explode: false`), its members encoded,
 * with `allowReserved` their reserved characters left unencoded but for `&`, `=`, `+`, `#`, `[`
 * and `]` (see `encodeAllowingReserved`).
 */
export function formBody(body: Record<string, unknown>, encodings: Record<string, PropertyEncoding>): string {
  return properties(body, encodings)
    .flatMap(([name, value, encoding]) =>
      encoding.style
        ? encodedQueryPairs(name, value, encoding.style, encoding.allowReserved === true)
        : contentFields(name, value, encoding).map((field) => `${encodeForm(field.name)}=${encodeForm(field.value)}`),
    )
    .join("&");
}

/** A name or file name as a multipart part header quotes it: `"`, CR and LF escaped as HTML's FormData does. */
function quoted(name: string): string {
  return `"${name.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}"`;
}

/**
 * A `multipart/form-data` body and its content type (with the boundary): a part per field, named in
 * its `Content-Disposition`, with a `Content-Type` when it is not text/plain (JSON for objects).
 */
export function multipartBody(body: Record<string, unknown>, encodings: Record<string, PropertyEncoding>): { body: string; contentType: string } {
  const boundary = `----agentrx-${crypto.randomUUID()}`;
  // A property with a style is spelled like a query parameter of that style (`deepObject`: `name[key]`), not percent-encoded.
  const fields = properties(body, encodings).flatMap(([name, value, encoding]) =>
    encoding.style ? queryPairs(name, value, encoding.style).map((pair): Field => ({ name: pair.key, value: pair.items.join(pair.delimiter) })) : contentFields(name, value, encoding),
  );
  const parts = fields.map(
    (field) => `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(field.name)}\r\n${field.contentType ? `Content-Type: ${field.contentType}\r\n` : ""}\r\n${field.value}\r\n`,
  );
  return { body: `${parts.join("")}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}
