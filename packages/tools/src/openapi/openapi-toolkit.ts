import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { BaseToolkit, tool, type StructuredToolInterface } from "@langchain/core/tools";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { RequestRefusedError } from "../errors/request-refused-error";
import { checkRetryableStatuses } from "../http/format-response";
import { type ToolRequestSettings, toolRequest } from "../http/tool-request";
import { SAFE_HTTP_OPTION_KEYS, createSafeHttpClient, portOf, type SafeHttpClient, type SafeHttpOptions } from "../http/safe-http-client";
import { cookieNames } from "../http/join-cookies";
import { encodePathParameter } from "./encode-path-parameter";
import { checkPropertyName, deref, emptyShape, jsonSchemaToZod, objectOf } from "./json-schema-to-zod";
import { cookiePairs, encodedQueryPairs, expandValue, type ParameterPlace, readAllowReserved, readStyle, type StyleSerialization, UnserializableValueError } from "./parameter-style";
import { encodeForm } from "./percent-encode";
import { type BodyFormat, bodyFormat, formBody, multipartBody, type PropertyEncoding, readEncodings } from "./request-body";

/** Options of {@link createOpenApiToolkit}. */
export interface OpenApiToolkitOptions extends Omit<SafeHttpOptions, "allowedHosts" | "allowedMethods" | "allowedRequestHeaders"> {
  /** An OpenAPI 3 document, as an object or as JSON or YAML text. */
  document: Record<string, unknown> | string;
  /** Where the API lives, e.g. "https://api.example.com/v1". @default the document's first `servers` URL (must be absolute), its `{variables}` filled in with their defaults */
  baseUrl?: string;
  /** Hosts the tools may call. @default the host of `baseUrl` */
  allowedHosts?: readonly string[];
  /** Only these operations (by tool name: the operationId, cleaned) become tools; a name the document does not have throws. @default every operation */
  operations?: readonly string[];
  /** Statuses that fail a call with a retryable error when its method is idempotent (see the HTTP tool). @default [429, 502, 503, 504] */
  retryableStatuses?: readonly number[];
}

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
interface Parameter {
  name: string;
  in: ParameterPlace;
  required: boolean;
  description?: string;
  schema: unknown;
  serialization: ParameterSerialization;
}

interface Operation {
  toolName: string;
  method: string;
  path: string;
  description: string;
  parameters: Parameter[];
  body?: { required: boolean; schema: unknown; contentType: string; format: BodyFormat; encodings: Record<string, PropertyEncoding> };
  /** Path parameters the path template does not have: the document is wrong, and a call could not send them. */
  strayPathParameters: string[];
  /** The name of a header parameter named `Cookie` (in any case) when no fixed cookie stands in for it: it cannot be sent as the document means. */
  cookieHeaderParameter?: string;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;
const PARAMETER_PLACES: ReadonlyArray<string> = ["path", "query", "header", "cookie"];
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Header parameters OpenAPI says to ignore (by name; header names are case-insensitive): the tool sets these itself, or the fixed `headers` do. */
const IGNORED_HEADERS: ReadonlySet<string> = new Set(["accept", "content-type", "authorization"]);

/**
 * The tools of an OpenAPI document, one per operation; see {@link createOpenApiToolkit}.
 *
 * @example
 * ```ts
 * import { createOpenApiToolkit } from "@agentrx/tools";
 *
 * const toolkit = createOpenApiToolkit({
 *   document: { openapi: "3.0.0", info: { title: "Status", version: "1" }, paths: { "/status": { get: { operationId: "status" } } } },
 *   baseUrl: "https://status.example.com",
 * });
 * const tools = toolkit.getTools(); // hand these to an agent and its executor
 * ```
 */
export class OpenApiToolkit extends BaseToolkit {
  tools: StructuredToolInterface[];

  constructor(tools: StructuredToolInterface[]) {
    super();
    this.tools = tools;
  }
}

/**
 * Builds one tool per operation of an OpenAPI 3 document. Each tool is named after the
 * operationId, described by the summary, and takes the operation's path, query, header and cookie
 * parameters and its request body (as `body`), validated by zod schemas built from the document.
 * Parameters are sent as their `style` and `explode` say (query `form` by default, so an object
 * `{ a: 1, b: 2 }` is `?a=1&b=2`; `deepObject`, `spaceDelimited`, `pipeDelimited`; path and header
 * `simple`, path `label` and `matrix`; cookie `form`, in one `Cookie` header, each value
 * percent-encoded, beside the fixed `headers`' cookie), a query value with `allowReserved` keeping
 * its reserved characters, or as the JSON text of a JSON `content`; a style OpenAPI does not allow
 * where the parameter is throws when the tools are built. A JSON body is sent as
 * JSON, an `application/x-www-form-urlencoded` body as a form (a property with a style spelled as
 * a query parameter of that style) and a `multipart/form-data` body as parts, following their
 * `encoding`. Header parameters named `Accept`, `Content-Type` or `Authorization` are ignored, as
 * OpenAPI says; one named `Cookie` is left out when the fixed `headers` send a cookie, and refused
 * otherwise (declare cookies as `in: cookie` parameters). A header parameter whose header the fixed
 * `headers` set (the name in any case, e.g. `X-Api-Key` beside `headers: { "x-api-key": key }`) is
 * not a tool argument, even when `required`: the fixed value is sent, once; likewise a cookie
 * parameter whose cookie they send. Path parameters are percent-encoded and "." or ".." are
 * refused, so no argument can change which path is called. Requests go through the safe HTTP layer
 * ({@link createSafeHttpClient}): allowed hosts only (by default the base URL's), public addresses
 * unless allowed, limits on size and time. See docs/tools.md#openapi-toolkit.
 *
 * @example
 * ```ts
 * import { createOpenApiToolkit } from "@agentrx/tools";
 *
 * const toolkit = createOpenApiToolkit({
 *   document: `
 * openapi: 3.0.3
 * info: { title: Pets, version: "1" }
 * servers: [{ url: https://pets.example.com/v1 }]
 * paths:
 *   /pets/{petId}:
 *     get:
 *       operationId: getPet
 *       summary: Get a pet by id.
 *       parameters:
 *         - { name: petId, in: path, required: true, schema: { type: string } }
 * `,
 *   headers: { authorization: "Bearer <token>" },
 * });
 * console.log(toolkit.getTools().map((t) => t.name)); // ["getPet"]
 * ```
 */
export function createOpenApiToolkit(options: OpenApiToolkitOptions): OpenApiToolkit {
  if (typeof options === "object" && options !== null) {
    const own = ["document", "baseUrl", "allowedHosts", "operations", "retryableStatuses"];
    // The safe HTTP layer's methods and headers allowlists come from the document, not from options.
    const http = SAFE_HTTP_OPTION_KEYS.filter((key) => key !== "allowedMethods" && key !== "allowedRequestHeaders");
    checkOptionKeys("createOpenApiToolkit", options, [...new Set([...own, ...http])]);
  }
  const { document: input, baseUrl: baseOption, operations: only, retryableStatuses = [429, 502, 503, 504], ...httpOptions } = options;
  checkRetryableStatuses("createOpenApiToolkit", retryableStatuses);
  const document = readDocument(input);
  const baseUrl = readBaseUrl(document, baseOption);
  let operations: Operation[];
  const readFailed = (error: unknown): never => {
    if (InvalidArgumentError.isInstance(error)) throw error;
    throw new InvalidArgumentError({ argument: "document", value: undefined, message: `createOpenApiToolkit: the document cannot be read: ${(error as Error).message}.`, cause: error });
  };
  try {
    operations = readOperations(document, readFixedHeaders(httpOptions.headers));
  } catch (error) {
    return readFailed(error);
  }
  if (operations.length === 0) {
    throw invalid(
      "document",
      "paths",
      'the document has no operations: its "paths" object holds no path with a get, put, post, delete, patch, head or options operation, so there is no tool to build.',
    );
  }
  if (only) {
    if (only.length === 0) {
      throw invalid("operations", only, `operations is empty, so no tool would be built; name some of the document's operations (${operations.map((o) => o.toolName).join(", ")}), or leave it out for all of them.`);
    }
    const wanted = new Set(only);
    const unknown = [...wanted].filter((name) => !operations.some((operation) => operation.toolName === name));
    if (unknown.length > 0) {
      throw invalid("operations", unknown, `operations names ${unknown.map((name) => `"${name}"`).join(", ")}, which the document does not have; its operations are ${operations.map((o) => o.toolName).join(", ")}.`);
    }
    operations = operations.filter((operation) => wanted.has(operation.toolName));
  }
  checkSendable(operations);
  const client = createSafeHttpClient({
    ...httpOptions,
    allowedHosts: httpOptions.allowedHosts ?? [baseUrl.hostname],
    allowedMethods: [...new Set(operations.map((operation) => operation.method))],
    allowedRequestHeaders: [
      "accept",
      "content-type",
      ...operations.flatMap((o) => o.parameters.filter((p) => p.in === "header").map((p) => p.name)),
      ...(operations.some((o) => o.parameters.some((p) => p.in === "cookie")) ? ["cookie"] : []),
    ],
  });
  // Every request goes to the base URL's port: an allowedPorts without it would refuse them all.
  if (httpOptions.allowedPorts !== undefined && !httpOptions.allowedPorts.includes(portOf(baseUrl))) {
    throw invalid("allowedPorts", httpOptions.allowedPorts, `allowedPorts (${httpOptions.allowedPorts.join(", ")}) leaves out the port of the base URL ${baseUrl.origin} (${portOf(baseUrl)}), so every request would be refused; add it.`);
  }
  try {
    return new OpenApiToolkit(operations.map((operation) => operationTool(document, operation, baseUrl, client, { retryableStatuses, idempotencyKeyHeader: httpOptions.idempotencyKeyHeader })));
  } catch (error) {
    return readFailed(error); // a schema with a broken $ref or a value zod cannot hold
  }
}

function invalid(argument: string, value: unknown, message: string): InvalidArgumentError {
  return new InvalidArgumentError({ argument, value, message: `createOpenApiToolkit: ${message}` });
}

function readDocument(input: Record<string, unknown> | string): Record<string, unknown> {
  let document: unknown = input;
  if (typeof input === "string") {
    try {
      document = parseYaml(input); // YAML is a superset of JSON
    } catch (error) {
      throw new InvalidArgumentError({ argument: "document", value: input.slice(0, 100), message: `createOpenApiToolkit: document is neither JSON nor YAML (${(error as Error).message}).`, cause: error });
    }
  }
  if (typeof document !== "object" || document === null || typeof (document as Record<string, unknown>).openapi !== "string" || !String((document as Record<string, unknown>).openapi).startsWith("3.")) {
    throw invalid("document", typeof document, 'document must be an OpenAPI 3 document (with "openapi": "3.x" and "paths").');
  }
  if (typeof (document as Record<string, unknown>).paths !== "object" || (document as Record<string, unknown>).paths === null) {
    throw invalid("document", "paths", 'document has no "paths" object.');
  }
  return document as Record<string, unknown>;
}

function readBaseUrl(document: Record<string, unknown>, baseOption: string | undefined): URL {
  const servers = document.servers as unknown[] | undefined;
  const base = baseOption ?? (Array.isArray(servers) ? serverUrl(servers[0]) : undefined);
  if (typeof base === "string" && /[{}]/.test(base)) {
    throw invalid("baseUrl", base, `baseUrl "${base}" holds a {variable}; give the URL with its value filled in.`);
  }
  if (typeof base !== "string" || !URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol)) {
    throw invalid("baseUrl", base, 'baseUrl must be an absolute http(s) URL such as "https://api.example.com/v1" (the document has no absolute servers[0].url to use instead).');
  }
  const url = new URL(base.endsWith("/") ? base.slice(0, -1) : base);
  if (url.search || url.hash || url.username || url.password) {
    throw invalid("baseUrl", base, "baseUrl may not hold a query, a fragment or credentials; pass credentials in `headers` instead.");
  }
  return url;
}

/**
 * A server's URL with its `{variables}` replaced by their `default` values, as OpenAPI says (a
 * server URL such as "https://{region}.api.example.com/{version}" is a template); a variable
 * without a default is refused, naming it, rather than sent as literal braces.
 */
function serverUrl(server: unknown): unknown {
  const url = (server as { url?: unknown } | undefined)?.url;
  if (typeof url !== "string") return url;
  const variables = (server as { variables?: unknown }).variables;
  return url.replace(/\{([^{}]*)\}/g, (_match, name: string) => {
    const variable = typeof variables === "object" && variables !== null && Object.hasOwn(variables, name) ? (variables as Record<string, unknown>)[name] : undefined;
    const value = (variable as { default?: unknown } | undefined)?.default;
    if (typeof value !== "string" || /[{}]/.test(value)) {
      throw invalid("baseUrl", url, `servers[0].url "${url}" has the variable {${name}} without a default value in servers[0].variables; pass baseUrl with a value for it filled in.`);
    }
    return value;
  });
}

/** What the fixed `headers` send, as far as choosing a tool's arguments goes. */
interface FixedHeaders {
  /** The names of the headers, in lower case. */
  names: ReadonlySet<string>;
  /** The names of the cookies; undefined when they send no `cookie` (a non-string value is the safe HTTP layer's to refuse). */
  cookies?: ReadonlySet<string>;
}

function readFixedHeaders(headers: Readonly<Record<string, string>> | undefined): FixedHeaders {
  const entries = Object.entries(headers ?? {});
  const cookie = entries.find(([name]) => name.toLowerCase() === "cookie")?.[1];
  return { names: new Set(entries.map(([name]) => name.toLowerCase())), ...(typeof cookie === "string" ? { cookies: cookieNames(cookie) } : {}) };
}

/**
 * Reads the document's operations. A header parameter whose header the fixed `headers` set (the
 * name in any case) is left out of the tool, since the fixed value is sent whatever the model would
 * give (docs/tools.md#openapi-toolkit); so is a cookie parameter whose cookie they send, and a
 * header parameter named `Cookie` when they send one. Header parameters named `Accept`,
 * `Content-Type` or `Authorization` are ignored, as OpenAPI says.
 */
function readOperations(document: Record<string, unknown>, fixed: FixedHeaders): Operation[] {
  const operations: Operation[] = [];
  const names = new Set<string>();
  for (const [path, rawItem] of Object.entries(document.paths as Record<string, unknown>)) {
    const item = deref<Record<string, unknown>>(document, rawItem);
    const shared = (item.parameters as unknown[] | undefined) ?? [];
    for (const method of METHODS) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (!operation) continue;
      const toolName = sanitizeName(typeof operation.operationId === "string" ? operation.operationId : `${method}_${path}`);
      if (names.has(toolName)) throw invalid("document", toolName, `two operations would both be named "${toolName}"; give them distinct operationIds.`);
      names.add(toolName);
      const byKey = new Map<string, Parameter>();
      let cookieHeaderParameter: string | undefined;
      for (const raw of [...shared, ...((operation.parameters as unknown[] | undefined) ?? [])]) {
        const parameter = deref<RawParameter>(document, raw);
        if (typeof parameter?.name !== "string" || !parameter.name) throw new Error(`${method.toUpperCase()} ${path} has a parameter without a name`);
        checkPropertyName(parameter.name, `a parameter of ${method.toUpperCase()} ${path}`);
        if (!PARAMETER_PLACES.includes(parameter.in)) {
          throw new Error(`the parameter "${parameter.name}" of ${method.toUpperCase()} ${path} is in ${JSON.stringify(parameter.in) ?? "nowhere"}; an OpenAPI 3 parameter is in path, query, header or cookie (a body goes in requestBody)`);
        }
        if (parameter.in === "header" && IGNORED_HEADERS.has(parameter.name.toLowerCase())) continue;
        if (parameter.in === "header" && parameter.name.toLowerCase() === "cookie") {
          // The tool builds the Cookie header itself, from the cookie parameters and the fixed cookie.
          if (!fixed.cookies) cookieHeaderParameter = parameter.name;
          continue;
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
 * template does not have (it would never be sent), or a header parameter named `Cookie` (its text
 * would be sent unencoded as the Cookie header the tool builds from the cookie parameters).
 */
function checkSendable(operations: readonly Operation[]): void {
  for (const operation of operations) {
    const where = `${operation.method} ${operation.path} (${operation.toolName})`;
    if (operation.strayPathParameters.length > 0) {
      throw invalid("document", operation.strayPathParameters, `${where} declares the path parameter${operation.strayPathParameters.length === 1 ? "" : "s"} ${operation.strayPathParameters.map((name) => `"${name}"`).join(", ")}, which its path template does not have, so a call could never send ${operation.strayPathParameters.length === 1 ? "it" : "them"}; fix the document, or leave the operation out with \`operations\`.`);
    }
    if (operation.cookieHeaderParameter !== undefined) {
      throw invalid(
        "document",
        operation.cookieHeaderParameter,
        `${where} has a header parameter named "${operation.cookieHeaderParameter}", whose text would be sent unencoded as the Cookie header that the tool builds from the cookie parameters; declare each cookie as an \`in: cookie\` parameter (percent-encoded, joined into that header), send the cookie with the fixed \`headers\` (then the parameter is left out), or leave the operation out with \`operations\`.`,
      );
    }
  }
}

function sanitizeName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/_+/g, "_").replace(/^_+|_+$/g, "");
  return (cleaned || "operation").slice(0, 64);
}

function operationTool(document: unknown, operation: Operation, baseUrl: URL, client: SafeHttpClient, settings: ToolRequestSettings) {
  const shape = emptyShape();
  for (const parameter of operation.parameters) {
    let schema = jsonSchemaToZod(document, parameter.schema);
    if (parameter.description) schema = schema.describe(parameter.description);
    shape[parameter.name] = parameter.required ? schema : schema.optional();
  }
  if (operation.body) {
    const body = jsonSchemaToZod(document, operation.body.schema).describe(`The request body (${operation.body.contentType}).`);
    shape.body = operation.body.required ? body : body.optional();
  }
  return tool(
    async (args: Record<string, unknown>, config) => {
      const url = buildUrl(operation, baseUrl, args);
      const headers: Record<string, string> = {};
      for (const parameter of operation.parameters) {
        const value = own(args, parameter.name);
        if (parameter.in !== "header" || value === undefined || value === null) continue;
        const text = headerText(parameter, value, url);
        // An empty array or object is undefined in RFC 6570, so the header is left out (an empty string is sent).
        if (text !== "" || typeof value !== "object") headers[parameter.name] = text;
      }
      const cookie = cookieHeader(operation, args, url);
      if (cookie !== "") headers.cookie = cookie;
      let body: string | undefined;
      const given = own(args, "body");
      if (operation.body && given !== undefined) {
        const encoded = encodeBody(operation.body, given, url);
        headers["content-type"] = encoded.contentType;
        body = encoded.body;
      }
      return toolRequest(client, { url, method: operation.method, headers, body }, config, settings);
    },
    { name: operation.toolName, description: operation.description, schema: objectOf(shape) as z.ZodObject },
  );
}

function buildUrl(operation: Operation, baseUrl: URL, args: Record<string, unknown>): string {
  const template = `${baseUrl.toString().replace(/\/$/, "")}${operation.path}`;
  const pathParameters = new Map(operation.parameters.filter((parameter) => parameter.in === "path").map((parameter) => [parameter.name, parameter]));
  const path = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const serialization = pathParameters.get(name)!.serialization;
    const value = own(args, name);
    if (serialization.kind === "style") return encodePathParameter(name, value, template, serialization.style);
    return encodePathParameter(name, value === undefined || value === null ? value : contentText(serialization, value), template);
  });
  const url = new URL(`${baseUrl.toString().replace(/\/$/, "")}${path}`);
  const expectedSegments = `${baseUrl.pathname.replace(/\/$/, "")}${operation.path}`.split("/").length;
  if (url.host !== baseUrl.host || url.pathname.split("/").length !== expectedSegments) {
    throw new RequestRefusedError({ reason: "invalid_path_parameter", url: url.toString(), message: `the path parameters would change the path of ${operation.method} ${operation.path}.` });
  }
  const pairs: string[] = [];
  for (const parameter of operation.parameters) {
    const value = own(args, parameter.name);
    if (parameter.in !== "query" || value === undefined || value === null) continue;
    const { serialization } = parameter;
    if (serialization.kind === "content") {
      pairs.push(`${encodeForm(parameter.name)}=${encodeForm(contentText(serialization, value))}`);
      continue;
    }
    pairs.push(...sendable(parameter, url.toString(), () => encodedQueryPairs(parameter.name, value, serialization.style, serialization.allowReserved)));
  }
  if (pairs.length > 0) url.search = `?${pairs.join("&")}`;
  return url.toString();
}

/**
 * The `Cookie` header of the call's cookie parameters ("" when it has none): each `name=value`
 * in the `form` style (a `content` parameter's text as its value), values percent-encoded so that
 * none can add a cookie or break the header, joined with `; `. The safe HTTP layer joins it to a
 * `cookie` of the fixed `headers`.
 */
function cookieHeader(operation: Operation, args: Record<string, unknown>, url: string): string {
  const cookies: string[] = [];
  for (const parameter of operation.parameters) {
    const value = own(args, parameter.name);
    if (parameter.in !== "cookie" || value === undefined || value === null) continue;
    const { serialization } = parameter;
    const text = sendable(parameter, url, () =>
      serialization.kind === "style" ? cookiePairs(parameter.name, value, serialization.style) : cookiePairs(parameter.name, contentText(serialization, value), { style: "form", explode: true }),
    );
    if (text !== "") cookies.push(text);
  }
  return cookies.join("; ");
}

/** A header parameter's value: its content's text, or its `simple` style, not percent-encoded (a header is no URL). */
function headerText(parameter: Parameter, value: unknown, url: string): string {
  const { serialization } = parameter;
  if (serialization.kind === "content") return contentText(serialization, value);
  return sendable(parameter, url, () => expandValue(parameter.name, value, serialization.style, (text) => text));
}

/** The text of a `content` parameter: JSON for a JSON media type, else the value itself. */
function contentText(serialization: { json: boolean }, value: unknown): string {
  return serialization.json || (typeof value === "object" && value !== null) ? JSON.stringify(value) : String(value);
}

/** Runs `serialize`, turning a value the parameter's style cannot spell into a RequestRefusedError naming the parameter. */
function sendable<T>(parameter: Parameter, url: string, serialize: () => T): T {
  try {
    return serialize();
  } catch (error) {
    if (!(error instanceof UnserializableValueError)) throw error;
    throw new RequestRefusedError({ reason: "invalid_parameter", url, message: `the ${parameter.in} parameter "${parameter.name}" cannot be sent: ${error.message}.`, cause: error });
  }
}

/**
 * A request body as its media type wants it: JSON; a form (`application/x-www-form-urlencoded`,
 * URLSearchParams' encoding) or `multipart/form-data` from an object, each property a field (see
 * request-body.ts), a string given for a form being sent as it is (already encoded); text as given.
 */
function encodeBody(body: NonNullable<Operation["body"]>, given: unknown, url: string): { body: string; contentType: string } {
  const isObject = typeof given === "object" && given !== null && !Array.isArray(given);
  const refuse = (message: string, cause?: unknown): never => {
    throw new RequestRefusedError({ reason: "invalid_parameter", url, message: `the ${body.contentType} body cannot be sent: ${message}`, cause });
  };
  try {
    if (body.format === "json") return { body: JSON.stringify(given), contentType: body.contentType };
    if (body.format === "text") return { body: typeof given === "string" ? given : JSON.stringify(given), contentType: body.contentType };
    if (body.format === "form" && typeof given === "string") return { body: given, contentType: body.contentType };
    if (!isObject) return refuse(`it must be an object, one property per field, not ${Array.isArray(given) ? "an array" : typeof given}.`);
    if (body.format === "form") return { body: formBody(given as Record<string, unknown>, body.encodings), contentType: body.contentType };
    return multipartBody(given as Record<string, unknown>, body.encodings);
  } catch (error) {
    if (error instanceof UnserializableValueError) return refuse(`${error.message}.`, error);
    throw error;
  }
}

/** `args[name]` when it is the arguments' own property (never one every object inherits, such as `toString`). */
function own(args: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(args, name) ? args[name] : undefined;
}
