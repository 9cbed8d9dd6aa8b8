import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_RETRY_DELAY_MS, retryDelayMs } from "./retry-delay";

const now = Date.parse("2030-01-01T00:00:00Z");
const delay = (headers: Record<string, string>, retry = 0, maxRetryDelayMs = DEFAULT_MAX_RETRY_DELAY_MS) =>
  retryDelayMs(new Headers(headers), { retry, maxRetryDelayMs, now, random: 0 });

describe("retryDelayMs", () => {
  it("obeys Retry-After in seconds (fractional too), retry-after-ms first, and an HTTP date", () => {
    expect(delay({ "retry-after": "2" })).toBe(2_000);
    expect(delay({ "retry-after": "0.25" })).toBe(250);
    expect(delay({ "retry-after": "2", "retry-after-ms": "40" })).toBe(40);
    expect(delay({ "retry-after": new Date(now + 30_000).toUTCString() })).toBe(30_000);
  });

  it("waits the cap when the server asks for longer, or for a value no timer can hold", () => {
    expect(delay({ "retry-after": "3600" })).toBe(60_000);
    expect(delay({ "retry-after": "99999999" })).toBe(60_000);
    expect(delay({ "retry-after": "1e400" })).toBe(60_000);
    expect(delay({ "retry-after-ms": "1e12" })).toBe(60_000);
    expect(delay({ "retry-after": new Date(now + 86_400_000).toUTCString() })).toBe(60_000);
    expect(delay({ "retry-after": "3600" }, 0, 5_000)).toBe(5_000);
  });

  it("backs off by default for a negative, zero, unparsable or past Retry-After", () => {
    for (const value of ["-5", "0", "soon", "3600abc", new Date(now - 60_000).toUTCString()]) {
      expect(delay({ "retry-after": value }), value).toBe(500);
    }
    expect(delay({ "retry-after-ms": "-1" })).toBe(500);
  });

  it("lets a valid Retry-After decide when retry-after-ms is zero, negative or unparsable", () => {
    for (const value of ["0", "-1", "soon"]) expect(delay({ "retry-after-ms": value, "retry-after": "5" }), value).toBe(5_000);
  });

  it("doubles the backoff with each retry up to 8 s, with up to 25% jitter, never past the cap", () => {
    expect([0, 1, 2, 3, 4, 5].map((retry) => delay({}, retry))).toEqual([500, 1_000, 2_000, 4_000, 8_000, 8_000]);
    expect(retryDelayMs(undefined, { retry: 0, maxRetryDelayMs: 60_000, random: 0.999 })).toBeCloseTo(375, 0);
    expect(delay({}, 5, 3_000)).toBe(3_000);
    expect(delay({}, 0, 0)).toBe(0);
  });
});
