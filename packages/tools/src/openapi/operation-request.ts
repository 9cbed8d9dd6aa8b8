import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { RequestRefusedError } from "../errors/request-refused-error";
import { type ToolRequestSettings, toolRequest } from "../http/tool-request";
import { type SafeHttpClient } from "../http/safe-http-client";
import { encodePathParameter } from "./encode-path-parameter";
import { deref, emptyShape, jsonSchemaToZod, objectOf, type SchemaCache, withConstraintNotes } from "./json-schema-to-zod";
import { cookiePairs, encodedQueryPairs, expandValue, UnserializableValueError } from "./parameter-style";
import { encodeForm } from "./percent-encode";
import { type Operation, type Parameter } from "./read-operations";
import { formBody, multipartBody } from "./request-body";

/**
 * The tool of one operation: its arguments' zod schema, and a call that builds the request and sends
 * it through `client`. `cache` is shared by all of the document's operations (see `jsonSchemaToZod`).
 */
export function operationTool(document: unknown, operation: Operation, baseUrl: URL, client: SafeHttpClient, settings: ToolRequestSettings, cache: SchemaCache) {
  const shape = emptyShape();
  for (const parameter of operation.parameters) {
    let schema = jsonSchemaToZod(document, parameter.schema, cache);
    // The parameter's description stands in for its schema's; what the schema asks that the JSON schema cannot carry stays.
    if (parameter.description) schema = schema.describe(withConstraintNotes(parameter.description, deref(document, parameter.schema))!);
    shape[parameter.name] = parameter.required ? schema : schema.optional();
  }
  if (operation.body) {
    const body = jsonSchemaToZod(document, operation.body.schema, cache).describe(withConstraintNotes(`The request body (${operation.body.contentType}).`, deref(document, operation.body.schema))!);
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
