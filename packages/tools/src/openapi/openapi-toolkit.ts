import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { BaseToolkit, type StructuredToolInterface } from "@langchain/core/tools";
import { parse as parseYaml } from "yaml";
import { checkRetryableStatuses } from "../http/format-response";
import { checkOptionsObject } from "../internal/check-options";
import { SAFE_HTTP_OPTION_KEYS, createSafeHttpClient, portOf, type SafeHttpOptions } from "../http/safe-http-client";
import { createSchemaCache, DocumentTooLargeError } from "./json-schema-to-zod";
import { operationTool } from "./operation-request";
import { checkDistinctNames, checkSendable, invalid, type Operation, readFixedHeaders, readOperations } from "./read-operations";
import { operationBaseUrls } from "./server-urls";

/** Options of {@link createOpenApiToolkit}. */
export interface OpenApiToolkitOptions extends Omit<SafeHttpOptions, "allowedHosts" | "allowedMethods" | "allowedRequestHeaders"> {
  /** An OpenAPI 3 document, as an object or as JSON or YAML text. */
  document: Record<string, unknown> | string;
  /**
   * Where the API lives, e.g. "https://api.example.com/v1": it stands in for the document's
   * `servers`. An operation's or its path's own `servers` still override it, as OpenAPI says (a
   * relative one is resolved against it). @default the document's first `servers` URL (must be
   * absolute, unless every operation has absolute servers of its own), its `{variables}` filled in
   * with their defaults
   */
  baseUrl?: string;
  /**
   * Hosts the tools may call; the list given is used as it is (a tool whose server's host it leaves
   * out has its calls refused). @default the hosts of the base URLs the tools use: `baseUrl`'s (or
   * the document's server's) and those of the kept operations' own `servers`
   */
  allowedHosts?: readonly string[];
  /** Only these operations (by tool name: the operationId, cleaned) become tools; a name the document does not have throws. @default every operation */
  operations?: readonly string[];
  /** Statuses that fail a call with a retryable error when its method is idempotent (see the HTTP tool). @default [429, 502, 503, 504] */
  retryableStatuses?: readonly number[];
}

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
 * OpenAPI says; one named `Cookie` is sent as given, left out when the fixed `headers` send a
 * cookie, and refused beside cookie parameters (both would set the header). A header parameter whose header the fixed
 * `headers` set (the name in any case, e.g. `X-Api-Key` beside `headers: { "x-api-key": key }`) is
 * not a tool argument, even when `required`: the fixed value is sent, once; likewise a cookie
 * parameter whose cookie they send, and a header parameter named like the `idempotencyKeyHeader`
 * (the call's key is sent). Schema constraints (`pattern`, `format`, exclusive bounds,
 * `multipleOf`, `minItems`, `maxItems`, `uniqueItems`, lengths and bounds) are checked before
 * anything is sent. An operation goes to its own `servers`, else its path's, else the base URL's
 * (`baseUrl` or the document's `servers`). Path parameters are percent-encoded and "." or ".." are
 * refused, so no argument can change which path is called. Requests go through the safe HTTP layer
 * ({@link createSafeHttpClient}): allowed hosts only (by default the base URLs'), public addresses
 * unless allowed, limits on size and time. Options that are not an object, a bad option or a document
 * that cannot be used throw an `InvalidArgumentError` naming it. See docs/tools.md#openapi-toolkit.
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
  checkOptionsObject("createOpenApiToolkit", options, "{ document: openApiDocument }");
  const own = ["document", "baseUrl", "allowedHosts", "operations", "retryableStatuses"];
  // The safe HTTP layer's methods and headers allowlists come from the document, not from options.
  const http = SAFE_HTTP_OPTION_KEYS.filter((key) => key !== "allowedMethods" && key !== "allowedRequestHeaders");
  checkOptionKeys("createOpenApiToolkit", options, [...new Set([...own, ...http])]);
  const { document: input, baseUrl: baseOption, operations: only, retryableStatuses = [429, 502, 503, 504], ...httpOptions } = options;
  checkRetryableStatuses("createOpenApiToolkit", retryableStatuses);
  const document = readDocument(input);
  let operations: Operation[];
  const readFailed = (error: unknown): never => {
    if (InvalidArgumentError.isInstance(error)) throw error;
    throw new InvalidArgumentError({ argument: "document", value: undefined, message: `createOpenApiToolkit: the document cannot be read: ${(error as Error).message}.`, cause: error });
  };
  try {
    operations = readOperations(document, readFixedHeaders(httpOptions.headers, httpOptions.idempotencyKeyHeader));
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
      throw invalid("operations", only, `operations is empty, so no tool would be built; name some of the document's operations (${[...new Set(operations.map((o) => o.toolName))].join(", ")}), or leave it out for all of them.`);
    }
    const wanted = new Set(only);
    const unknown = [...wanted].filter((name) => !operations.some((operation) => operation.toolName === name));
    if (unknown.length > 0) {
      throw invalid("operations", unknown, `operations names ${unknown.map((name) => `"${name}"`).join(", ")}, which the document does not have; its operations are ${[...new Set(operations.map((o) => o.toolName))].join(", ")}.`);
    }
    operations = operations.filter((operation) => wanted.has(operation.toolName));
  }
  checkDistinctNames(operations);
  checkSendable(operations);
  const baseUrls = operationBaseUrls(document, baseOption, operations);
  const client = createSafeHttpClient({
    ...httpOptions,
    // The hosts of the base URLs the operations use (the document's, and those of the paths' and operations' own servers).
    allowedHosts: httpOptions.allowedHosts ?? [...new Set(baseUrls.map((url) => url.hostname))],
    allowedMethods: [...new Set(operations.map((operation) => operation.method))],
    allowedRequestHeaders: [
      "accept",
      "content-type",
      ...operations.flatMap((o) => o.parameters.filter((p) => p.in === "header").map((p) => p.name)),
      ...(operations.some((o) => o.parameters.some((p) => p.in === "cookie")) ? ["cookie"] : []),
    ],
  });
  // Every request goes to its base URL's port: an allowedPorts without it would refuse them all.
  const { allowedPorts } = httpOptions;
  const unreachable = allowedPorts === undefined ? -1 : baseUrls.findIndex((url) => !allowedPorts.includes(portOf(url)));
  if (allowedPorts !== undefined && unreachable !== -1) {
    const baseUrl = baseUrls[unreachable]!;
    const whose = operations[unreachable]!.servers === undefined ? "the base URL" : `the server of ${operations[unreachable]!.toolName}`;
    throw invalid("allowedPorts", allowedPorts, `allowedPorts (${allowedPorts.join(", ")}) leaves out the port of ${whose} ${baseUrl.origin} (${portOf(baseUrl)}), so every request${whose === "the base URL" ? "" : " of that tool"} would be refused; add it.`);
  }
  // One for the whole document: each $ref's schema is built once, and the document's nodes are bounded.
  const cache = createSchemaCache();
  try {
    return new OpenApiToolkit(operations.map((operation, index) => operationTool(document, operation, baseUrls[index]!, client, { retryableStatuses, idempotencyKeyHeader: httpOptions.idempotencyKeyHeader }, cache)));
  } catch (error) {
    if (error instanceof DocumentTooLargeError) {
      throw invalid(
        "document",
        only ?? `${operations.length} operations`,
        `the document is too large to build a tool for every ${only ? "kept " : ""}operation: their parameters' and bodies' schemas come to more than ${error.limit} schema nodes; pick the operations the agent needs with the \`operations\` option, which builds only those.`,
      );
    }
    return readFailed(error); // a schema with a broken $ref or a value zod cannot hold
  }
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
