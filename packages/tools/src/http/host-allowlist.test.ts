import { describe, expect, it } from "vitest";
import { parseAddressAllowlist, refusedRange } from "./address-allowlist";
import { hostAllowed } from "./host-allowlist";

describe("hostAllowed", () => {
  it("matches exact names and subdomain wildcards, case-insensitively", () => {
    const patterns = ["api.example.com", "*.trusted.org", "127.0.0.1", "::1"];
    expect(hostAllowed("API.example.com.", patterns)).toBe(true);
    expect(hostAllowed("a.b.trusted.org", patterns)).toBe(true);
    expect(hostAllowed("[::1]", patterns)).toBe(true);
    for (const host of ["trusted.org", "eviltrusted.org", "api.example.com.evil.net", "example.com", "127.0.0.2"]) {
      expect(hostAllowed(host, patterns), host).toBe(false);
    }
  });

  it("compares IDN and IP patterns in the form the URL parser gives the host", () => {
    const host = (url: string) => new URL(url).hostname;
    expect(hostAllowed(host("http://BÜCHER.example/"), ["bücher.example"])).toBe(true);
    expect(hostAllowed(host("http://sub.bücher.example/"), ["*.Bücher.example"])).toBe(true);
    expect(hostAllowed(host("http://[::ffff:127.0.0.1]/"), ["::ffff:127.0.0.1"])).toBe(true);
    expect(hostAllowed(host("http://127.1/"), ["127.0.0.1"])).toBe(true);
    expect(hostAllowed(host("http://bucher.example/"), ["bücher.example"])).toBe(false);
    expect(hostAllowed(host("http://evil-bücher.example/"), ["*.bücher.example"])).toBe(false);
  });
});

describe("refusedRange", () => {
  const none = parseAddressAllowlist([]);
  if (typeof none === "string") throw new Error("unreachable");

  it("lets public unicast addresses through and names the range of the others", () => {
    expect(refusedRange("93.184.216.34", none)).toBeUndefined();
    expect(refusedRange("2606:4700::1111", none)).toBeUndefined();
    expect(refusedRange("127.0.0.1", none)).toBe("loopback");
    expect(refusedRange("10.1.2.3", none)).toBe("private");
    expect(refusedRange("172.16.0.1", none)).toBe("private");
    expect(refusedRange("192.168.1.1", none)).toBe("private");
    expect(refusedRange("169.254.169.254", none)).toBe("linkLocal");
    expect(refusedRange("100.64.0.1", none)).toBe("carrierGradeNat");
    expect(refusedRange("0.0.0.0", none)).toBe("unspecified");
    expect(refusedRange("::1", none)).toBe("loopback");
    expect(refusedRange("fd00::1", none)).toBe("uniqueLocal");
    expect(refusedRange("::ffff:10.0.0.1", none)).toBe("private");
    expect(refusedRange("not-an-ip", none)).toBe("invalid");
    expect(refusedRange("::7f00:1", none)).toBe("ipv4Compatible"); // [::127.0.0.1]
    expect(refusedRange("::a00:1", none)).toBe("ipv4Compatible");
    expect(refusedRange("4000::1", none)).toBe("reserved");
    expect(refusedRange("64:ff9b::7f00:1", none)).toBe("rfc6052");
  });

  it("allows listed addresses and ranges only", () => {
    const list = parseAddressAllowlist(["127.0.0.1", "10.0.0.0/8", "::1"]);
    if (typeof list === "string") throw new Error(`bad entry ${list}`);
    expect(refusedRange("127.0.0.1", list)).toBeUndefined();
    expect(refusedRange("10.200.0.9", list)).toBeUndefined();
    expect(refusedRange("::1", list)).toBeUndefined();
    expect(refusedRange("127.0.0.2", list)).toBe("loopback");
    expect(refusedRange("192.168.0.1", list)).toBe("private");
    expect(parseAddressAllowlist(["10.0.0.0/99"])).toBe("10.0.0.0/99");
  });
});
