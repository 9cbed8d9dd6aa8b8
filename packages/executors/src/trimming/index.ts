export { trimInSteps } from "./trim-in-steps";
export type { TrimInStepsOptions } from "./trim-in-steps";
