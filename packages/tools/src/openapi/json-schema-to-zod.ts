import { z } from "zod";
import { arraySchema, constraintNotes, numberSchema, stringSchema } from "./schema-constraints";

type Schema = Record<string, unknown>;

/** Follows a local JSON pointer such as "#/components/schemas/Pet" inside `document`. */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) throw new Error(`only local references ("#/...") are supported, got "${ref}"`);
  let current: unknown = document;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) throw new Error(`the reference "${ref}" points nowhere`);
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Resolves `value` while it is a `{ $ref }` object; a chain of references that comes back to one of its own is refused, naming it. */
export function deref<T = Schema>(document: unknown, value: unknown, followed: readonly string[] = []): T {
  if (typeof value === "object" && value !== null && typeof (value as Schema).$ref === "string") {
    const ref = (value as Schema).$ref as string;
    if (followed.includes(ref)) throw new Error(`the reference "${ref}" leads back to itself (${[...followed, ref].join(" -> ")})`);
    if (followed.length >= 32) throw new Error(`the references ${followed[0]} -> ... -> ${ref} are nested more than 32 deep`);
    return deref<T>(document, resolvePointer(document, ref), [...followed, ref]);
  }
  return value as T;
}

const MAX_DEPTH = 12;
/** The most schema nodes converted for one parameter or body, so that a document whose schemas
 * fan out (a `$ref` used by many properties, recursively) cannot make the conversion exponential. */
const MAX_NODES = 2000;
/** The most schema nodes converted for one whole document (a reused `$ref` counts as one, since it
 * is not converted again), so that a document with many operations cannot run the process out of
 * memory: a node takes up to some 6 KB and 0.1 ms, so this bounds the build at about 300 MB and 5 s. */
export const MAX_DOCUMENT_NODES = 50_000;

/** A `$ref`'s zod schema and what building it took, so that reusing it gives what building it again would. */
interface BuiltRef {
  schema: z.ZodType;
  /** The nodes its conversion counted against the budget (those of the `$ref`s it reused included). */
  nodes: number;
  /** How many levels below the `$ref` its deepest node is. */
  height: number;
}

/**
 * What the conversions of one document's schemas share: each `$ref` is converted once and its zod
 * schema reused (zod schemas are immutable), and the nodes converted are counted against
 * `MAX_DOCUMENT_NODES`.
 */
export interface SchemaCache {
  /**
   * The `$ref`s built, each where reusing it gives what building it again would: by reference for
   * those no limit cut anything off in (reusable at any depth that leaves room for them); by depth
   * and reference for those only the depth limit did (reusable at that depth only: deeper or
   * shallower, it cuts elsewhere); and by depth, nodes left and reference for those the node limit
   * did (a parameter whose schema is a large `$ref` starts it at the same depth and nodes each time).
   */
  readonly refs: Map<string, BuiltRef>;
  /** The schema nodes converted so far; a reused `$ref` counts as one node, not as all of its own. */
  built: number;
  /** The most nodes `built` may reach; past it, converting throws a `DocumentTooLargeError`. */
  readonly limit: number;
}

/** A new, empty `SchemaCache` for one document. */
export function createSchemaCache(limit = MAX_DOCUMENT_NODES): SchemaCache {
  return { refs: new Map(), built: 0, limit };
}

/** Thrown when a document's schemas need more than its `SchemaCache`'s limit of nodes. */
export class DocumentTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the document's schemas come to more than ${limit} schema nodes`);
    this.name = "DocumentTooLargeError";
  }
}

/** One parameter's or body's conversion: its node budget, how often each limit cut something off, and the deepest node reached. */
interface Walk {
  nodes: number;
  depthCuts: number;
  budgetCuts: number;
  deepest: number;
  cache: SchemaCache;
}

/**
 * Converts the JSON Schema subset OpenAPI 3.0 and 3.1 documents use (types, nullable, enum, const,
 * properties/required, items, additionalProperties, oneOf/anyOf/allOf, local $refs, and the
 * constraints of schema-constraints.ts: string lengths, `pattern` and `format`, number bounds
 * (exclusive ones in OpenAPI 3.0's and 3.1's spelling) and `multipleOf`, array lengths and
 * `uniqueItems`) into a zod schema for a request's parameters and body. Recursive schemas are cut
 * off as `unknown` past a fixed depth, and so is everything past a fixed number of nodes (a reused
 * `$ref`'s nodes count as if converted again, so the cut falls where it would without `cache`).
 *
 * Nothing the model gives is dropped that the schema allows: an object keeps the properties it does
 * not list unless `additionalProperties: false` (JSON Schema allows them by default), so a `oneOf`
 * option that matches first, or one part of an `allOf`, cannot strip the others' properties; and
 * the properties and `required` beside an `allOf`, `oneOf` or `anyOf` apply as well. `readOnly`
 * properties are left out: they belong to responses, and a request need not (should not) send them.
 *
 * Pass one `cache` for all of a document's schemas: a `$ref` converted without reaching a limit is
 * then reused wherever reusing it gives the same schema, and the document's nodes are bounded
 * (throws `DocumentTooLargeError` past the cache's limit).
 */
export function jsonSchemaToZod(document: unknown, input: unknown, cache: SchemaCache = createSchemaCache()): z.ZodType {
  return convertNode(document, input, 0, { nodes: MAX_NODES, depthCuts: 0, budgetCuts: 0, deepest: 0, cache });
}

function convertNode(document: unknown, input: unknown, depth: number, walk: Walk): z.ZodType {
  if (input === true || input === undefined) return z.unknown();
  if (depth > MAX_DEPTH) {
    walk.depthCuts += 1;
    return z.unknown();
  }
  if (walk.nodes <= 0) {
    walk.budgetCuts += 1;
    return z.unknown();
  }
  const ref = typeof input === "object" && input !== null && typeof (input as Schema).$ref === "string" ? ((input as Schema).$ref as string) : undefined;
  // Reused only where building it again would reach the same limits: then it is what that would give.
  const uncut = ref === undefined ? undefined : walk.cache.refs.get(ref);
  const depthCut = ref === undefined ? undefined : walk.cache.refs.get(`${depth} ${ref}`);
  const built = uncut && depth + uncut.height <= MAX_DEPTH ? uncut : depthCut ?? (ref === undefined ? undefined : walk.cache.refs.get(`${depth} ${walk.nodes} ${ref}`));
  if (built && walk.nodes >= built.nodes) {
    walk.nodes -= built.nodes;
    countNode(walk.cache);
    walk.deepest = Math.max(walk.deepest, depth + built.height);
    return built.schema;
  }
  const before = { nodes: walk.nodes, depthCuts: walk.depthCuts, budgetCuts: walk.budgetCuts, deepest: walk.deepest };
  walk.deepest = depth;
  const result = convertOwn(document, input, depth, walk);
  if (ref !== undefined) {
    // A reference starts with "#" (no other is followed), so a key starting with a digit is none.
    const key = walk.budgetCuts !== before.budgetCuts ? `${depth} ${before.nodes} ${ref}` : walk.depthCuts !== before.depthCuts ? `${depth} ${ref}` : ref;
    walk.cache.refs.set(key, { schema: result, nodes: before.nodes - walk.nodes, height: walk.deepest - depth });
  }
  walk.deepest = Math.max(before.deepest, walk.deepest);
  return result;
}

function countNode(cache: SchemaCache): void {
  cache.built += 1;
  if (cache.built > cache.limit) throw new DocumentTooLargeError(cache.limit);
}

function convertOwn(document: unknown, input: unknown, depth: number, walk: Walk): z.ZodType {
  walk.nodes -= 1;
  countNode(walk.cache);
  if (input === false) return z.never();
  const schema = deref(document, input);
  if (typeof schema !== "object" || schema === null) return z.unknown();
  const next = (value: unknown) => convertNode(document, value, depth + 1, walk);
  let result = convert(schema, { next, readOnly: (value) => isReadOnly(document, value) });
  if (schema.nullable === true) result = result.nullable();
  const description = withConstraintNotes(typeof schema.description === "string" ? schema.description : undefined, schema);
  if (description !== undefined) result = result.describe(description);
  return result;
}

/**
 * `text` (a schema's or a parameter's description) followed by what the schema asks that the
 * tool's JSON schema cannot carry (see `constraintNotes`); undefined when both are empty.
 */
export function withConstraintNotes(text: string | undefined, schema: unknown): string | undefined {
  const notes = typeof schema === "object" && schema !== null ? constraintNotes(schema as Schema) : [];
  const parts = [text, ...notes].filter((part) => part !== undefined && part !== "");
  return parts.length === 0 ? undefined : parts.join(" ");
}

/** What converting one schema needs: its subschemas' conversion, and whether a property is read-only. */
interface Converter {
  next: (value: unknown) => z.ZodType;
  readOnly: (value: unknown) => boolean;
}

const COMPOSITIONS = ["allOf", "oneOf", "anyOf"] as const;
/** Keys that constrain a value beside a composition: `{ allOf: [...], properties: {...}, required: [...] }`. */
const CONSTRAINTS = [
  "type", "properties", "required", "additionalProperties", "items", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
  "multipleOf", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems",
];

function convert(schema: Schema, converter: Converter): z.ZodType {
  // Every part must hold: each composition, and the schema's own constraints beside them.
  const parts: z.ZodType[] = [];
  if (Array.isArray(schema.allOf)) parts.push(...(schema.allOf as unknown[]).map(converter.next));
  for (const key of ["oneOf", "anyOf"] as const) {
    if (Array.isArray(schema[key])) parts.push(union((schema[key] as unknown[]).map(converter.next)));
  }
  if (parts.length === 0) return convertPlain(schema, converter);
  const own = Object.fromEntries(Object.entries(schema).filter(([key]) => !(COMPOSITIONS as readonly string[]).includes(key)));
  if (CONSTRAINTS.some((key) => key in own)) parts.push(convertPlain(own, converter));
  return parts.reduce((left, right) => z.intersection(left, right));
}

function convertPlain(schema: Schema, converter: Converter): z.ZodType {
  const { next } = converter;
  if (Array.isArray(schema.enum)) {
    const values = schema.enum as unknown[];
    if (values.length > 0 && values.every((v) => typeof v === "string")) return z.enum(values as [string, ...string[]]);
    return union(values.map((v) => z.literal(v as string)));
  }
  if ("const" in schema) return z.literal(schema.const as string);
  if (Array.isArray(schema.type)) {
    return union((schema.type as string[]).map((type) => convertPlain({ ...schema, type }, converter)));
  }
  switch (schema.type) {
    case "string":
      return stringSchema(schema);
    case "integer":
    case "number":
      return numberSchema(schema);
    case "boolean":
      return z.boolean();
    case "null":
      return z.null();
    case "array":
      return arraySchema(schema, next(schema.items));
    case "object":
      return objectSchema(schema, converter);
    default:
      return schema.properties ? objectSchema(schema, converter) : z.unknown();
  }
}

function objectSchema(schema: Schema, { next, readOnly }: Converter): z.ZodType {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const shape = emptyShape();
  for (const [name, value] of Object.entries(properties)) {
    checkPropertyName(name, "a schema property");
    if (readOnly(value)) continue; // a response's property (an id the server assigns): not the request's to send
    shape[name] = required.has(name) ? next(value) : next(value).optional();
  }
  const additional = schema.additionalProperties;
  if (Object.keys(shape).length === 0 && additional !== undefined && additional !== false && additional !== true) {
    return z.record(z.string(), next(additional));
  }
  if (additional === false) return objectOf(shape);
  // Properties the schema does not list are allowed (JSON Schema's default): kept, not stripped.
  const rest = additional === undefined || additional === true ? z.unknown() : next(additional);
  return z.preprocess(ownProperties, z.object(shape).catchall(rest));
}

/** Whether a property's schema (through its `$ref`s) says `readOnly: true`. */
function isReadOnly(document: unknown, value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if ((value as Schema).readOnly === true) return true;
  try {
    const resolved = deref(document, value);
    return typeof resolved === "object" && resolved !== null && (resolved as Schema).readOnly === true;
  } catch {
    return false; // a broken reference: converting the property names it
  }
}

/** A shape without a prototype, so that a property named like one of `Object.prototype`'s is just a property. */
export function emptyShape(): Record<string, z.ZodType> {
  return Object.create(null) as Record<string, z.ZodType>;
}

/**
 * `z.object(shape)`, reading only the input's own properties: zod reads `input[key]`, so for an
 * input without a `constructor` (or `toString`, ...) it would otherwise see the one every object
 * inherits, and report "received function" instead of a missing value.
 */
export function objectOf(shape: Record<string, z.ZodType>): z.ZodType {
  return z.preprocess(ownProperties, z.object(shape));
}

function ownProperties(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const own = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) own[key] = (value as Record<string, unknown>)[key];
  return own;
}

/**
 * Refuses the name `__proto__`: no schema can carry it (zod leaves such a key out of what it
 * validates and returns, and the tool definitions sent to the model drop it), so a required one
 * could never be given and an optional one would never be sent.
 */
export function checkPropertyName(name: string, what: string): void {
  if (name === "__proto__") {
    throw new Error(`${what} is named "__proto__", which a tool's arguments cannot carry; rename it in the document`);
  }
}

function union(options: z.ZodType[]): z.ZodType {
  if (options.length === 0) return z.never();
  if (options.length === 1) return options[0]!;
  return z.union(options as [z.ZodType, z.ZodType, ...z.ZodType[]]);
}
