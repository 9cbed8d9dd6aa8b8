import { describe, expect, it } from "vitest";
import { describeThrown } from "./describe-thrown";

describe("describeThrown", () => {
  it("writes what was thrown: a message first, then the value's own string, then its JSON", () => {
    expect(describeThrown({ message: "quota exceeded", status: 429 })).toBe("quota exceeded");
    expect(describeThrown(new RangeError("too far"))).toBe("too far");
    expect(describeThrown("rate limited")).toBe("rate limited");
    expect(describeThrown(429)).toBe("429");
    expect(describeThrown(null)).toBe("null");
    expect(describeThrown(undefined)).toBe("undefined");
    expect(describeThrown(Symbol("gone"))).toBe("Symbol(gone)");
    expect(describeThrown({ toString: () => "HTTP 429" })).toBe("HTTP 429");
    expect(describeThrown({ status: 429 })).toBe('{"status":429}');
  });

  it("never throws: a message getter, a toString, a toJSON that throws, a cycle, a revoked proxy", () => {
    const getter = Object.defineProperty({}, "message", {
      get() {
        throw new Error("no");
      },
    });
    expect(describeThrown(getter)).toBe("something threw an object that cannot be shown as text");
    const cycle: Record<string, unknown> = { status: 500 };
    cycle["self"] = cycle;
    expect(describeThrown(cycle)).toBe("something threw an object that cannot be shown as text");
    class RateLimitInfo {
      get message(): string {
        throw new Error("no");
      }
    }
    expect(describeThrown(new RateLimitInfo(), "the tool")).toBe("the tool threw a RateLimitInfo that cannot be shown as text");
    class ErrorLike {
      toJSON(): never {
        throw new Error("no");
      }
    }
    expect(describeThrown(new ErrorLike())).toBe("something threw an ErrorLike that cannot be shown as text");
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(describeThrown(proxy, "the tool")).toBe("the tool threw an object that cannot be shown as text");
    expect(describeThrown(Object.create(null), "the store")).toBe("the store threw an object without a prototype that cannot be shown as text");
  });
});
