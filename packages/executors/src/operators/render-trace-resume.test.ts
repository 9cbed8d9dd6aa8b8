// A replayed record of a run cut off while the model streamed its answer, then resumed: the resume
// makes the cut-off agent call again as the same iteration, so that iteration's tokens come before
// the resume's `start` and again after it. The trace prints the cut-off text and the retried
// answer on lines of their own, never glued together.
import { from } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentStreamEvent } from "../executor/events";
import { renderTrace } from "./render-trace";
import { outputEvent, tokenEvent, usageEvent } from "./test-events";

describe("renderTrace of a resumed run's record", () => {
  it("ends the cut-off call's text at the resume's start", () => {
    let text = "";
    const resumed: AgentStreamEvent = { type: "start", runId: "r", inputs: { input: "Weather?" }, resumed: true, at: 0 };
    const events = [tokenEvent(1, "Paris is"), resumed, tokenEvent(1, "Paris is sunny."), usageEvent(1, 20, 5), outputEvent("Paris is sunny.")];
    from(events)
      .pipe(renderTrace({ write: (chunk) => void (text += chunk), colors: false }))
      .subscribe();
    expect(text.split("\n").filter((line) => line.startsWith("model"))).toEqual([expect.stringMatching(/^model\s+Paris is$/), expect.stringMatching(/^model\s+Paris is sunny\.$/)]);
  });
});
