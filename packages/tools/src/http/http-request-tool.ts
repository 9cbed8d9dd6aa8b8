import { checkOptionKeys } from "@agentrx/core";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { checkRetryableStatuses } from "./format-response";
import { toolRequest } from "./tool-request";
import { SAFE_HTTP_OPTION_KEYS, createSafeHttpClient, type SafeHttpOptions } from "./safe-http-client";
import { checkOptionsObject, checkToolName } from "../internal/check-options";
import type { TypedTool } from "../typed-tool/typed-tool";

/** Options of {@link createHttpRequestTool}: the safe HTTP options plus the tool's own. */
export interface HttpRequestToolOptions extends SafeHttpOptions {
  /** The tool's name. @default "http_request" */
  name?: string;
  /** The tool's description. @default one that lists the allowed hosts and methods */
  description?: string;
  /**
   * Response statuses that fail the call with a `RetryableToolError` (honouring Retry-After),
   * so that a retry policy tries again; other statuses are returned as observations, and so are
   * these for a method that is not idempotent (POST, PATCH), which a retry could carry out twice.
   * @default [429, 502, 503, 504]
   */
  retryableStatuses?: readonly number[];
}

/**
 * What the HTTP request tool takes: one request, as the model writes it.
 *
 * @example
 * ```ts
 * import type { HttpRequestToolInput } from "@agentrx/tools";
 *
 * const input: HttpRequestToolInput = { url: "https://api.example.com/orders/7", method: "GET" };
 * ```
 */
export interface HttpRequestToolInput {
  /** The absolute URL, e.g. `https://host/path?query`. */
  url: string;
  /** The HTTP method, one of the tool's `allowedMethods`. @default "GET" */
  method?: string | undefined;
  /** Extra request headers. */
  headers?: Record<string, string> | undefined;
  /** The request body, e.g. JSON text. */
  body?: string | undefined;
}

/**
 * An HTTP request tool for a model, on the safe HTTP layer ({@link createSafeHttpClient}): only
 * allowed hosts, only public addresses unless allowed, the address pinned for the connection, limits
 * on size and time, allowed methods and headers. The observation is the status line, the
 * content type and the body; a refused request fails with a {@link RequestRefusedError} saying why.
 * Options that are not an object, or that hold a bad value, throw an `InvalidArgumentError` naming it.
 * Its type is a {@link TypedTool} (input {@link HttpRequestToolInput}, output the observation as text).
 *
 * @example
 * ```ts
 * import { createHttpRequestTool } from "@agentrx/tools";
 *
 * const http = createHttpRequestTool({
 *   allowedHosts: ["api.example.com"],
 *   allowedMethods: ["GET", "POST"],
 *   headers: { authorization: "Bearer <token>" },
 * });
 * console.log(http.name); // http_request
 * ```
 */
export function createHttpRequestTool(options: HttpRequestToolOptions): TypedTool<HttpRequestToolInput> {
  checkOptionsObject("createHttpRequestTool", options, '{ allowedHosts: ["api.example.com"] }');
  checkOptionKeys("createHttpRequestTool", options, [...SAFE_HTTP_OPTION_KEYS, "name", "description", "retryableStatuses"]);
  const { name = "http_request", description, retryableStatuses = [429, 502, 503, 504], ...httpOptions } = options;
  checkToolName("createHttpRequestTool", name);
  checkRetryableStatuses("createHttpRequestTool", retryableStatuses);
  const client = createSafeHttpClient(httpOptions);
  const methods = (httpOptions.allowedMethods ?? ["GET"]).map((m) => m.toUpperCase()) as [string, ...string[]];
  return tool(
    async ({ url, method, headers, body }, config) => toolRequest(client, { url, method, headers, body }, config, { retryableStatuses, idempotencyKeyHeader: httpOptions.idempotencyKeyHeader }),
    {
      name,
      description:
        description ??
        `Sends an HTTP request and returns the status, content type and body. Allowed hosts: ${httpOptions.allowedHosts.join(", ")}. Allowed methods: ${methods.join(", ")}.`,
      schema: z.object({
        url: z.string().describe("The absolute URL, e.g. https://host/path?query."),
        method: z.enum(methods).optional().describe(`The HTTP method; defaults to GET.`),
        headers: z.record(z.string(), z.string()).optional().describe("Extra request headers."),
        body: z.string().optional().describe("The request body, e.g. JSON text."),
      }),
    },
  );
}
