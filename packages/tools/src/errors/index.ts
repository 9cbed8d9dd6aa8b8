export { ToolTimeoutError } from "./tool-timeout-error";
export { RetryableToolError, isRetryableError } from "./retryable-tool-error";
export { ToolRetriesExhaustedError } from "./tool-retries-exhausted-error";
export { RequestRefusedError } from "./request-refused-error";
export type { RequestRefusedReason } from "./request-refused-error";
export { ResponseTooLargeError } from "./response-too-large-error";
