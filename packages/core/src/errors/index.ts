export { AgentRxError } from "./agentrx-error";
export type { AgentRxErrorOptions } from "./agentrx-error";
export { InvalidArgumentError } from "./invalid-argument-error";
export { AbortError, isAbortError } from "./abort-error";
export { InvalidToolArgumentsException } from "./invalid-tool-arguments-exception";
export { describeThrown } from "./describe-thrown";
export { isThenable, refusePromise } from "./refuse-promise";
