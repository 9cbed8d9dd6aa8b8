import { messageStep, type AgentStep, type Observation } from "@agentrx/core";
import type { RunMessageEvent } from "../executor/events";

/** The step a `message` event adds to the run (see `messageStep` in `@agentrx/core`). @internal */
export function messageStepOf(event: Pick<RunMessageEvent, "message" | "inboxSeq">): AgentStep {
  return messageStep(event.message.content as Observation, event.inboxSeq);
}

/** The highest inbox position among the run's message steps: what the run has taken (0: none). @internal */
export function lastInboxSeq(steps: readonly AgentStep[]): number {
  let last = 0;
  for (const step of steps) {
    const seq = (step.action as { inboxSeq?: unknown }).inboxSeq;
    if (typeof seq === "number" && seq > last) last = seq;
  }
  return last;
}
