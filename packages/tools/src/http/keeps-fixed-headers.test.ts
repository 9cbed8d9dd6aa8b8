import { describe, expect, it } from "vitest";
import { keepsFixedHeaders } from "./keeps-fixed-headers";

describe("keepsFixedHeaders", () => {
  it("keeps the fixed headers on the same origin only", () => {
    expect(keepsFixedHeaders("https://api.example.com/a", "https://API.example.com:443/b?c")).toBe(true);
    expect(keepsFixedHeaders("https://api.example.com/a", "http://api.example.com/b")).toBe(false); // downgrade: clear text
    expect(keepsFixedHeaders("https://api.example.com/a", "https://api.example.com:8443/b")).toBe(false);
    expect(keepsFixedHeaders("https://api.example.com/a", "https://other.example.com/b")).toBe(false);
    expect(keepsFixedHeaders("not a url", "not a url")).toBe(false);
  });
});
