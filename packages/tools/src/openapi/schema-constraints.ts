import { z } from "zod";
import { stableStringify } from "../policies/stable-stringify";

type Schema = Record<string, unknown>;

/**
 * The `format`s that zod checks, by the zod string check that does: RFC 3339 `date-time` (with an
 * offset or `Z`) and `date`, an email address, an absolute URI, a UUID of any version (RFC 4122's
 * spelling: 8-4-4-4-12 hex digits), IPv4 and IPv6 addresses. Any other format is left unchecked and
 * named in the description.
 */
const CHECKED_FORMATS: Readonly<Record<string, (s: z.ZodString) => z.ZodString>> = {
  email: (s) => s.email(),
  uri: (s) => s.url(),
  url: (s) => s.url(),
  uuid: (s) => zodStringCheck(s, "guid", () => s.uuid()),
  "date-time": (s) => s.datetime({ offset: true }),
  date: (s) => s.date(),
  ipv4: (s) => zodStringCheck(s, "ipv4", () => (s as unknown as { ip: (options: object) => z.ZodString }).ip({ version: "v4" })),
  ipv6: (s) => zodStringCheck(s, "ipv6", () => (s as unknown as { ip: (options: object) => z.ZodString }).ip({ version: "v6" })),
};

/** `s[name]()`, a check zod 4 has; else `fallback()`, zod 3's spelling of it. */
function zodStringCheck(s: z.ZodString, name: string, fallback: () => z.ZodString): z.ZodString {
  const check = (s as unknown as Record<string, unknown>)[name];
  return typeof check === "function" ? (check as () => z.ZodString).call(s) : fallback();
}

/**
 * The JSON Schema `pattern` as a regular expression (unanchored, as JSON Schema matches it), or
 * undefined when it is not one JavaScript can run: such a pattern is left unchecked and named in
 * the description rather than refusing the whole document for one parameter.
 */
function readPattern(pattern: unknown): RegExp | undefined {
  if (typeof pattern !== "string") return undefined;
  for (const flags of ["u", ""]) {
    try {
      return new RegExp(pattern, flags);
    } catch {
      // try without the u flag, whose syntax is stricter (`\-` outside a class), then give up
    }
  }
  return undefined;
}

/** A string with the schema's `minLength`, `maxLength`, `pattern` and a `format` zod checks. */
export function stringSchema(schema: Schema): z.ZodType {
  let s = z.string();
  if (typeof schema.minLength === "number") s = s.min(schema.minLength);
  if (typeof schema.maxLength === "number") s = s.max(schema.maxLength);
  const pattern = readPattern(schema.pattern);
  if (pattern) s = s.regex(pattern);
  const format = typeof schema.format === "string" ? CHECKED_FORMATS[schema.format] : undefined;
  return format ? format(s) : s;
}

/**
 * A number (an integer for `type: integer`) with the schema's `minimum`, `maximum`, `multipleOf`,
 * and `exclusiveMinimum` and `exclusiveMaximum` in both spellings: OpenAPI 3.0's boolean beside
 * `minimum`/`maximum`, and OpenAPI 3.1's (JSON Schema's) number.
 */
export function numberSchema(schema: Schema): z.ZodType {
  let n = schema.type === "integer" ? z.number().int() : z.number();
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
  if (typeof minimum === "number") n = exclusiveMinimum === true ? n.gt(minimum) : n.min(minimum);
  if (typeof maximum === "number") n = exclusiveMaximum === true ? n.lt(maximum) : n.max(maximum);
  if (typeof exclusiveMinimum === "number") n = n.gt(exclusiveMinimum);
  if (typeof exclusiveMaximum === "number") n = n.lt(exclusiveMaximum);
  if (typeof multipleOf === "number" && Number.isFinite(multipleOf) && multipleOf > 0) n = n.multipleOf(multipleOf);
  return n;
}

/** An array of `items` with the schema's `minItems`, `maxItems` and `uniqueItems` (items compared as JSON, keys in any order). */
export function arraySchema(schema: Schema, items: z.ZodType): z.ZodType {
  let a = z.array(items);
  if (typeof schema.minItems === "number") a = a.min(schema.minItems);
  if (typeof schema.maxItems === "number") a = a.max(schema.maxItems);
  if (schema.uniqueItems !== true) return a;
  return a.refine((list) => new Set(list.map(stableStringify)).size === list.length, { message: "Items must be unique (uniqueItems), but some are equal" });
}

/**
 * What the schema asks that neither zod checks nor the tool's JSON schema carries, as sentences for
 * its description, so the model still reads them: a `format` zod has no check for (`int64`,
 * `unix-time`), a `pattern` JavaScript cannot run, and `uniqueItems` (checked, but not carried).
 */
export function constraintNotes(schema: Schema): string[] {
  const notes: string[] = [];
  const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  if (typeof schema.format === "string" && !(types.includes("string") && Object.hasOwn(CHECKED_FORMATS, schema.format))) notes.push(`Format: ${schema.format}.`);
  if (typeof schema.pattern === "string" && readPattern(schema.pattern) === undefined) notes.push(`Must match the pattern ${schema.pattern} (not checked here).`);
  if (schema.uniqueItems === true) notes.push("Items must be unique.");
  return notes;
}
