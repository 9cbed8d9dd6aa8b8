import { AgentRxError } from "../errors/agentrx-error";

const MARKER = "agentrx.error.OpenAIChatModelError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/** Context every {@link OpenAIChatModelError} carries. */
export interface OpenAIChatModelErrorOptions {
  /** What went wrong and what would fix it. */
  message: string;
  /** The HTTP status of the response, when there was one. */
  status?: number;
  /** The model that was called. */
  model: string;
  /** The base URL that was called. */
  baseURL: string;
  /** The underlying error (usually one of the `openai` SDK's). */
  cause?: unknown;
}

/**
 * The base class of the errors `OpenAIChatModel` throws. Each failure has its own subclass;
 * catch this one to handle them all.
 *
 * @example
 * ```ts
 * import { OpenAIChatModel, OpenAIChatModelError } from "@agentrx/core/openai";
 * import { startOpenAICompatibleServer } from "@agentrx/core/testing";
 *
 * const server = await startOpenAICompatibleServer({ responses: [{ status: 400, message: "Unknown model." }] });
 * const model = new OpenAIChatModel({ model: "nope", baseURL: server.baseURL, apiKey: "test" });
 * try {
 *   await model.invoke("Hi");
 * } catch (error) {
 *   if (OpenAIChatModelError.isInstance(error)) console.log(error.status, error.message);
 * } finally {
 *   await server.close();
 * }
 * ```
 */
export class OpenAIChatModelError extends AgentRxError {
  protected readonly [MARKER_SYMBOL] = true;

  /** The HTTP status of the response, when there was one. */
  readonly status: number | undefined;
  /** The model that was called. */
  readonly model: string;
  /** The base URL that was called. */
  readonly baseURL: string;

  constructor({ message, status, model, baseURL, cause }: OpenAIChatModelErrorOptions, name = "OpenAIChatModelError") {
    super({ name, message, cause });
    this.status = status;
    this.model = model;
    this.baseURL = baseURL;
  }

  /** Returns true when `error` is an {@link OpenAIChatModelError} (from any copy of the package). */
  static override isInstance(error: unknown): error is OpenAIChatModelError {
    return AgentRxError.hasMarker(error, MARKER);
  }
}

const AUTH = "agentrx.error.OpenAIAuthenticationError";
const AUTH_SYMBOL = Symbol.for(AUTH);

/**
 * The server rejected the API key (401) or refused access (403).
 *
 * @example
 * ```ts
 * import { OpenAIAuthenticationError } from "@agentrx/core/openai";
 *
 * const error = new OpenAIAuthenticationError({ message: "Bad key.", status: 401, model: "m", baseURL: "http://127.0.0.1/v1" });
 * console.log(OpenAIAuthenticationError.isInstance(error)); // true
 * ```
 */
export class OpenAIAuthenticationError extends OpenAIChatModelError {
  protected readonly [AUTH_SYMBOL] = true;
  constructor(options: OpenAIChatModelErrorOptions) {
    super(options, "OpenAIAuthenticationError");
  }
  /** Returns true when `error` is an {@link OpenAIAuthenticationError} (from any copy of the package). */
  static override isInstance(error: unknown): error is OpenAIAuthenticationError {
    return AgentRxError.hasMarker(error, AUTH);
  }
}

const BAD_REQUEST = "agentrx.error.OpenAIBadRequestError";
const BAD_REQUEST_SYMBOL = Symbol.for(BAD_REQUEST);

/**
 * The server rejected the request (400, 404, 422, ...); the message carries the server's own.
 *
 * @example
 * ```ts
 * import { OpenAIBadRequestError } from "@agentrx/core/openai";
 *
 * const error = new OpenAIBadRequestError({ message: "Unknown model.", status: 404, model: "m", baseURL: "http://127.0.0.1/v1" });
 * console.log(error.status); // 404
 * ```
 */
export class OpenAIBadRequestError extends OpenAIChatModelError {
  protected readonly [BAD_REQUEST_SYMBOL] = true;
  constructor(options: OpenAIChatModelErrorOptions) {
    super(options, "OpenAIBadRequestError");
  }
  /** Returns true when `error` is an {@link OpenAIBadRequestError} (from any copy of the package). */
  static override isInstance(error: unknown): error is OpenAIBadRequestError {
    return AgentRxError.hasMarker(error, BAD_REQUEST);
  }
}

const RATE_LIMIT = "agentrx.error.OpenAIRateLimitError";
const RATE_LIMIT_SYMBOL = Symbol.for(RATE_LIMIT);

/**
 * The server kept answering 429 (rate limit or quota) after every retry.
 *
 * @example
 * ```ts
 * import { OpenAIRateLimitError } from "@agentrx/core/openai";
 *
 * const error = new OpenAIRateLimitError({ message: "Slow down.", status: 429, model: "m", baseURL: "http://127.0.0.1/v1", retryAfter: "2" });
 * console.log(error.retryAfter); // "2"
 * ```
 */
export class OpenAIRateLimitError extends OpenAIChatModelError {
  protected readonly [RATE_LIMIT_SYMBOL] = true;
  /** The last `Retry-After` header, if any; with a `retry-after-ms` header alone, that delay in seconds (`"1.5"`). */
  readonly retryAfter: string | undefined;
  constructor({ retryAfter, ...options }: OpenAIChatModelErrorOptions & { retryAfter?: string | undefined }) {
    super(options, "OpenAIRateLimitError");
    this.retryAfter = retryAfter;
  }
  /** Returns true when `error` is an {@link OpenAIRateLimitError} (from any copy of the package). */
  static override isInstance(error: unknown): error is OpenAIRateLimitError {
    return AgentRxError.hasMarker(error, RATE_LIMIT);
  }
}

const SERVER = "agentrx.error.OpenAIServerError";
const SERVER_SYMBOL = Symbol.for(SERVER);

/**
 * The server kept failing (5xx) after every retry.
 *
 * @example
 * ```ts
 * import { OpenAIServerError } from "@agentrx/core/openai";
 *
 * const error = new OpenAIServerError({ message: "Overloaded.", status: 503, model: "m", baseURL: "http://127.0.0.1/v1" });
 * console.log(error.name); // "OpenAIServerError"
 * ```
 */
export class OpenAIServerError extends OpenAIChatModelError {
  protected readonly [SERVER_SYMBOL] = true;
  constructor(options: OpenAIChatModelErrorOptions) {
    super(options, "OpenAIServerError");
  }
  /** Returns true when `error` is an {@link OpenAIServerError} (from any copy of the package). */
  static override isInstance(error: unknown): error is OpenAIServerError {
    return AgentRxError.hasMarker(error, SERVER);
  }
}

const TIMEOUT = "agentrx.error.OpenAITimeoutError";
const TIMEOUT_SYMBOL = Symbol.for(TIMEOUT);

/**
 * The request took longer than the model's `timeout` to answer (on every attempt), or a streamed
 * response sent nothing for that long.
 *
 * @example
 * ```ts
 * import { OpenAITimeoutError } from "@agentrx/core/openai";
 *
 * const error = new OpenAITimeoutError({ message: "Too slow.", model: "m", baseURL: "http://127.0.0.1/v1", timeoutMs: 100 });
 * console.log(error.timeoutMs); // 100
 * ```
 */
export class OpenAITimeoutError extends OpenAIChatModelError {
  protected readonly [TIMEOUT_SYMBOL] = true;
  /** The timeout that was exceeded, in milliseconds, when known. */
  readonly timeoutMs: number | undefined;
  constructor({ timeoutMs, ...options }: OpenAIChatModelErrorOptions & { timeoutMs?: number | undefined }) {
    super(options, "OpenAITimeoutError");
    this.timeoutMs = timeoutMs;
  }
  /** Returns true when `error` is an {@link OpenAITimeoutError} (from any copy of the package). */
  static override isInstance(error: unknown): error is OpenAITimeoutError {
    return AgentRxError.hasMarker(error, TIMEOUT);
  }
}

const CONNECTION = "agentrx.error.OpenAIConnectionError";
const CONNECTION_SYMBOL = Symbol.for(CONNECTION);

/**
 * The server could not be reached, or the connection was lost in the middle of a streamed
 * response (`midStream`).
 *
 * @example
 * ```ts
 * import { OpenAIConnectionError } from "@agentrx/core/openai";
 *
 * const error = new OpenAIConnectionError({ message: "Lost.", model: "m", baseURL: "http://127.0.0.1/v1", midStream: true });
 * console.log(error.midStream); // true
 * ```
 */
export class OpenAIConnectionError extends OpenAIChatModelError {
  protected readonly [CONNECTION_SYMBOL] = true;
  /** True when the connection was lost after the response had started streaming. */
  readonly midStream: boolean;
  constructor({ midStream = false, ...options }: OpenAIChatModelErrorOptions & { midStream?: boolean }) {
    super(options, "OpenAIConnectionError");
    this.midStream = midStream;
  }
  /** Returns true when `error` is an {@link OpenAIConnectionError} (from any copy of the package). */
  static override isInstance(error: unknown): error is OpenAIConnectionError {
    return AgentRxError.hasMarker(error, CONNECTION);
  }
}

const RESPONSE = "agentrx.error.OpenAIResponseError";
const RESPONSE_SYMBOL = Symbol.for(RESPONSE);

/**
 * The server answered with something that is not a valid Chat Completions response (for
 * example a malformed server-sent event).
 *
 * @example
 * ```ts
 * import { OpenAIResponseError } from "@agentrx/core/openai";
 *
 * const error = new OpenAIResponseError({ message: "Not JSON.", model: "m", baseURL: "http://127.0.0.1/v1" });
 * console.log(OpenAIResponseError.isInstance(error)); // true
 * ```
 */
export class OpenAIResponseError extends OpenAIChatModelError {
  protected readonly [RESPONSE_SYMBOL] = true;
  constructor(options: OpenAIChatModelErrorOptions) {
    super(options, "OpenAIResponseError");
  }
  /** Returns true when `error` is an {@link OpenAIResponseError} (from any copy of the package). */
  static override isInstance(error: unknown): error is OpenAIResponseError {
    return AgentRxError.hasMarker(error, RESPONSE);
  }
}
