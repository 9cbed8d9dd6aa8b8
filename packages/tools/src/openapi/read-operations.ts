import { InvalidArgumentError } from "@agentrx/core";
import { cookieNames } from "../http/join-cookies";
import { checkPropertyName, deref } from "./json-schema-to-zod";
import { type ParameterPlace, readAllowReserved, readStyle, type StyleSerialization } from "./parameter-style";
import { type BodyFormat, bodyFormat, type PropertyEncoding, readEncodings } from "./request-body";

/** A Parameter Object as the document has it. */
interface RawParameter {
  name: string;
  in: ParameterPlace;
  required?: boolean;
  description?: string;
  schema?: unknown;
  content?: unknown;
  style?: unknown;
  explode?: unknown;
  allowReserved?: unknown;
}

/**
 * How a parameter's value is sent: in a `style` (with `schema`; `allowReserved` for a query
 * parameter), or as the text of its `content` media type (JSON for a JSON type, the value itself
 * otherwise).
 */
type ParameterSerialization = { kind: "style"; style: StyleSerialization; allowReserved: boolean } | { kind: "content"; json: boolean };

/** A parameter a tool takes, read from the document. */
export interface Parameter {
  name: string;
  in: ParameterPlace;
  required: boolean;
  description?: string;
  schema: unknown;
  serialization: ParameterSerialization;
}

/** An operation of the document, read: what its tool takes and how a call is sent. */
export interface Operation {
  toolName: string;
  method: string;
  path: string;
  description: string;
  parameters: Parameter[];
  body?: { required: boolean; schema: unknown; contentType: string; format: BodyFormat; encodings: Record<string, PropertyEncoding> };
  /** Path parameters the path template does not have: the document is wrong, and a call could not send them. */
  strayPathParameters: string[];
  /** The name of a header parameter named `Cookie` (in any case) beside cookie parameters: both would set the Cookie header. */
  cookieHeaderParameter?: string;
  /** The operation's own `servers`, else its path's (OpenAPI: they override the document's); undefined when neither has any. */
  servers?: { list: unknown[]; owner: "operation" | "path" };
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;
const PARAMETER_PLACES: ReadonlyArray<string> = ["path", "query", "header", "cookie"];
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Header parameters OpenAPI says to ignore (by name; header names are case-insensitive): the tool sets these itself, or the fixed `headers` do. */
const IGNORED_HEADERS: ReadonlySet<string> = new Set(["accept", "content-type", "authorization"]);

/** An InvalidArgumentError for `argument`, its message prefixed with "createOpenApiToolkit: ". */
export function invalid(argument: string, value: unknown, message: string): InvalidArgumentError {
  return new InvalidArgumentError({ argument, value, message: `createOpenApiToolkit: ${message}` });
}

/** What the fixed `headers` send (and the `idempotencyKeyHeader`), as far as choosing a tool's arguments goes. */
export interface FixedHeaders {
  /** The names of the headers, in lower case; the `idempotencyKeyHeader` among them. */
  names: ReadonlySet<string>;
  /** The names of the cookies; undefined when they send no `cookie` (a non-string value is the safe HTTP layer's to refuse). */
  cookies?: ReadonlySet<string>;
}

/**
 * Reads the fixed `headers` option: which headers and cookies it sends. The `idempotencyKeyHeader`
 * counts as one of them: the safe HTTP layer sets it to the call's key (and sends none without one),
 * so a header parameter of that name (Stripe's `Idempotency-Key`) is no argument for the model.
 */
export function readFixedHeaders(headers: Readonly<Record<string, string>> | undefined, idempotencyKeyHeader: unknown): FixedHeaders {
  const entries = Object.entries(headers ?? {});
  const cookie = entries.find(([name]) => name.toLowerCase() === "cookie")?.[1];
  const names = new Set(entries.map(([name]) => name.toLowerCase()));
  // Not a string: the safe HTTP layer refuses it, naming the option.
  if (typeof idempotencyKeyHeader === "string") names.add(idempotencyKeyHeader.toLowerCase());
  return { names, ...(typeof cookie === "string" ? { cookies: cookieNames(cookie) } : {}) };
}

/**
 * Reads the document's operations. A header parameter whose header the fixed `headers` set (the
 * name in any case) is left out of the tool, since the fixed value is sent whatever the model would
 * give (docs/tools.md#openapi-toolkit), and so is one named like the `idempotencyKeyHeader`; so is
 * a cookie parameter whose cookie they send, and a
 * header parameter named `Cookie` when they send one. Header parameters named `Accept`,
 * `Content-Type` or `Authorization` are ignored, as OpenAPI says. Two operations may get one tool
 * name here: `checkDistinctNames` refuses that among the operations kept.
 */
export function readOperations(document: Record<string, unknown>, fixed: FixedHeaders): Operation[] {
  const operations: Operation[] = [];
  for (const [path, rawItem] of Object.entries(document.paths as Record<string, unknown>)) {
    const item = deref<Record<string, unknown>>(document, rawItem);
    const shared = (item.parameters as unknown[] | undefined) ?? [];
    for (const method of METHODS) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (!operation) continue;
      const toolName = sanitizeName(typeof operation.operationId === "string" ? operation.operationId : `${method}_${path}`);
      const byKey = new Map<string, Parameter>();
      let cookieHeader: string | undefined;
      for (const raw of [...shared, ...((operation.parameters as unknown[] | undefined) ?? [])]) {
        const parameter = deref<RawParameter>(document, raw);
        if (typeof parameter?.name !== "string" || !parameter.name) throw new Error(`${method.toUpperCase()} ${path} has a parameter without a name`);
        checkPropertyName(parameter.name, `a parameter of ${method.toUpperCase()} ${path}`);
        if (!PARAMETER_PLACES.includes(parameter.in)) {
          throw new Error(`the parameter "${parameter.name}" of ${method.toUpperCase()} ${path} is in ${JSON.stringify(parameter.in) ?? "nowhere"}; an OpenAPI 3 parameter is in path, query, header or cookie (a body goes in requestBody)`);
        }
        if (parameter.in === "header" && IGNORED_HEADERS.has(parameter.name.toLowerCase())) continue;
        if (parameter.in === "header" && parameter.name.toLowerCase() === "cookie") {
          // A fixed cookie stands in for it: the tool sends that one. Else its text is the header's.
          if (fixed.cookies) continue;
          cookieHeader = parameter.name;
        }
        if (parameter.in === "header" && !HTTP_TOKEN.test(parameter.name)) {
          throw new Error(`the header parameter "${parameter.name}" of ${method.toUpperCase()} ${path} is not a valid header name (letters, digits and !#$%&'*+.^_\`|~- only)`);
        }
        if (parameter.in === "header" && fixed.names.has(parameter.name.toLowerCase())) continue;
        if (parameter.in === "cookie" && !HTTP_TOKEN.test(parameter.name)) {
          throw new Error(`the cookie parameter "${parameter.name}" of ${method.toUpperCase()} ${path} is not a valid cookie name (letters, digits and !#$%&'*+.^_\`|~- only)`);
        }
        if (parameter.in === "cookie" && fixed.cookies?.has(parameter.name)) continue;
        byKey.set(`${parameter.in}:${parameter.name}`, readParameter(document, parameter, `${method.toUpperCase()} ${path}`));
      }
      // Beside cookie parameters, which the tool joins into the Cookie header, it would set that header twice.
      const cookieHeaderParameter = cookieHeader !== undefined && [...byKey.values()].some((parameter) => parameter.in === "cookie") ? cookieHeader : undefined;
      const templated = new Set([...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]));
      const strayPathParameters = [...byKey.values()].filter((parameter) => parameter.in === "path" && !templated.has(parameter.name)).map((parameter) => parameter.name);
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        checkPropertyName(name!, `a path variable of ${path}`);
        // A template variable the document forgot to declare is still required: never sent as "undefined".
        if (!byKey.has(`path:${name}`)) byKey.set(`path:${name}`, { name: name!, in: "path", required: true, schema: { type: "string" }, serialization: { kind: "style", style: { style: "simple", explode: false }, allowReserved: false } });
      }
      const body = readBody(document, operation.requestBody, `${method.toUpperCase()} ${path}`);
      // The tool's arguments are keyed by name alone: two parameters of one name would share one value.
      const places = new Map<string, string>(body ? [["body", "the request body"]] : []);
      for (const { name, in: place } of byKey.values()) {
        const taken = places.get(name);
        if (taken === "the request body") {
          throw new Error(`${method.toUpperCase()} ${path} has a ${place} parameter named "body" and a request body, which its tool takes as the argument "body"; rename the parameter in the document`);
        }
        if (taken) throw new Error(`${method.toUpperCase()} ${path} has two parameters named "${name}" (in ${taken} and in ${place}), but a tool takes one argument per name; rename one in the document`);
        places.set(name, place);
      }
      const servers = nonEmpty(operation.servers) ? { list: operation.servers, owner: "operation" as const } : nonEmpty(item.servers) ? { list: item.servers, owner: "path" as const } : undefined;
      const summary = [operation.summary, operation.description].filter((text) => typeof text === "string" && text).join(" ");
      operations.push({
        toolName,
        method: method.toUpperCase(),
        path,
        description: `${summary ? `${summary} ` : ""}(${method.toUpperCase()} ${path})`.slice(0, 1024),
        parameters: [...byKey.values()],
        body,
        strayPathParameters,
        ...(cookieHeaderParameter ? { cookieHeaderParameter } : {}),
        ...(servers ? { servers } : {}),
      });
    }
  }
  return operations;
}

/**
 * Reads a parameter's serialization: its `style` and `explode` (checked against what OpenAPI
 * allows in its place, and against its schema's type) and, in a query, its `allowReserved` (which
 * OpenAPI 3.1 defines for query parameters only: a path or cookie value is always encoded), or its
 * `content`, which must hold one media type and may not stand beside a `schema`.
 */
function readParameter(document: unknown, raw: RawParameter, operation: string): Parameter {
  const what = `the ${raw.in} parameter "${raw.name}" of ${operation}`;
  const common = { name: raw.name, in: raw.in, required: raw.in === "path" || raw.required === true, ...(raw.description ? { description: raw.description } : {}) };
  if (raw.content === undefined) {
    const style = readStyle(raw, raw.in, what);
    checkStyleFitsSchema(document, raw.schema, style, what);
    const allowReserved = raw.in === "query" && readAllowReserved(raw, what);
    return { ...common, schema: raw.schema ?? { type: "string" }, serialization: { kind: "style", style, allowReserved } };
  }
  if (raw.schema !== undefined) throw new Error(`${what} has both a schema and a content; OpenAPI allows one of them`);
  const entries = typeof raw.content === "object" && raw.content !== null ? Object.entries(raw.content) : [];
  if (entries.length !== 1) throw new Error(`${what} has a content with ${entries.length} media types; OpenAPI requires exactly one`);
  const [mediaType, media] = entries[0]!;
  const json = bodyFormat(mediaType) === "json";
  const schema = deref<{ schema?: unknown } | undefined>(document, media)?.schema;
  return { ...common, schema: schema ?? (json ? true : { type: "string" }), serialization: { kind: "content", json } };
}

/** Refuses a style whose values the schema's type cannot be: `deepObject` sends an object, the delimited styles an array or an object. */
function checkStyleFitsSchema(document: unknown, schema: unknown, { style }: StyleSerialization, what: string): void {
  const needs = style === "deepObject" ? ["object"] : style === "spaceDelimited" || style === "pipeDelimited" ? ["array", "object"] : undefined;
  if (!needs || typeof schema !== "object" || schema === null) return;
  const type = deref<{ type?: unknown }>(document, schema).type;
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : undefined;
  if (types && !types.some((each) => needs.includes(each))) {
    throw new Error(`${what} has the style ${style}, which sends ${needs.length === 1 ? "an object" : "an array or an object"}, but its schema's type is ${types.join(" or ")}`);
  }
}

/**
 * Reads an operation's request body: a JSON media type if it has one, else a form
 * (`application/x-www-form-urlencoded`), else `multipart/form-data` (both with their schema, an
 * object by default, and their `encoding`), else its first media type, sent as text.
 */
function readBody(document: unknown, raw: unknown, operation: string): Operation["body"] {
  if (!raw) return undefined;
  const body = deref<{ required?: boolean; content?: Record<string, unknown> }>(document, raw);
  const types = Object.keys(body.content ?? {});
  const contentType = (["json", "form", "multipart"] as const).map((format) => types.find((type) => bodyFormat(type) === format)).find((type) => type !== undefined) ?? types[0];
  if (!contentType) return undefined;
  const format = bodyFormat(contentType);
  const media = deref<{ schema?: unknown; encoding?: unknown } | undefined>(document, body.content![contentType]) ?? {};
  const schema = format === "json" ? media.schema : format === "text" ? { type: "string" } : (media.schema ?? { type: "object" });
  const encodings = format === "form" || format === "multipart" ? readEncodings(media.encoding, (value) => deref(document, value), `the ${contentType} body of ${operation}`) : {};
  return { required: body.required === true, schema, contentType, format, encodings };
}

/**
 * Refuses an operation whose calls could not be what the document says: a path parameter its path
 * template does not have (it would never be sent), or a header parameter named `Cookie` beside
 * cookie parameters (both would set the Cookie header).
 */
export function checkSendable(operations: readonly Operation[]): void {
  for (const operation of operations) {
    const where = `${operation.method} ${operation.path} (${operation.toolName})`;
    if (operation.strayPathParameters.length > 0) {
      throw invalid("document", operation.strayPathParameters, `${where} declares the path parameter${operation.strayPathParameters.length === 1 ? "" : "s"} ${operation.strayPathParameters.map((name) => `"${name}"`).join(", ")}, which its path template does not have, so a call could never send ${operation.strayPathParameters.length === 1 ? "it" : "them"}; fix the document, or leave the operation out with \`operations\`.`);
    }
    if (operation.cookieHeaderParameter !== undefined) {
      throw invalid(
        "document",
        operation.cookieHeaderParameter,
        `${where} has a header parameter named "${operation.cookieHeaderParameter}" beside cookie parameters, which would both set the Cookie header that the tool builds from the cookie parameters; declare each cookie as an \`in: cookie\` parameter only (percent-encoded, joined into that header), send the cookie with the fixed \`headers\` (then the parameter is left out), or leave the operation out with \`operations\`.`,
      );
    }
  }
}

/**
 * Refuses two operations with one tool name (an operationId cleaned to letters, digits, `_` and
 * `-`, else the method and path; `operation` when nothing is left; cut at 64 characters), naming
 * both. Run on the kept operations only: a clash among those `operations` leaves out does not matter.
 */
export function checkDistinctNames(operations: readonly Operation[]): void {
  const byName = new Map<string, Operation>();
  for (const operation of operations) {
    const other = byName.get(operation.toolName);
    if (other) {
      const where = (o: Operation) => `${o.method} ${o.path}`;
      throw invalid(
        "document",
        operation.toolName,
        `two operations would both be named "${operation.toolName}": ${where(other)} and ${where(operation)} (a tool's name is the operationId, else the method and path, cleaned to letters, digits, _ and -, and cut at 64 characters); give one of them a distinct operationId, or leave them out with \`operations\`.`,
      );
    }
    byName.set(operation.toolName, operation);
  }
}

/** Whether `value` is a list with something in it: an empty `servers` is as good as none. */
function nonEmpty(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length > 0;
}

function sanitizeName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/_+/g, "_").replace(/^_+|_+$/g, "");
  return (cleaned || "operation").slice(0, 64);
}
