import { describe, expect, it } from "vitest";
import { cancelReason } from "./settle-run";

describe("cancelReason", () => {
  it("says how the run stood when it was cancelled: it may have run before", () => {
    expect(cancelReason({ status: "queued", eventCount: 0 })).toBe("The run was cancelled (RunClient.cancel) before a worker started it.");
    expect(cancelReason(undefined)).toBe("The run was cancelled (RunClient.cancel) before a worker started it.");
    // A queued resume (after a pause, a cancel or a failure) has run before.
    expect(cancelReason({ status: "queued", eventCount: 12 })).toBe("The run was cancelled (RunClient.cancel) before a worker resumed it.");
    expect(cancelReason({ status: "interrupted", eventCount: 9 })).toMatch(/while it was paused for approval\.$/);
    expect(cancelReason({ status: "running", eventCount: 4 })).toMatch(/after the worker running it stopped \(its lease had expired\)\.$/);
    // Its worker gone from Redis while its lease still ran (the store fenced the lease holder out).
    expect(cancelReason({ status: "running", eventCount: 4 }, { workerGone: true })).toMatch(/after the worker running it stopped \(it left Redis before its lease expired\)\.$/);
  });
});
