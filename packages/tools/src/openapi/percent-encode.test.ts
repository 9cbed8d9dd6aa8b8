import { describe, expect, it } from "vitest";
import { encodeAllowingReserved, encodeForm, encodeStrict, UnencodableTextError } from "./percent-encode";

describe("encodeStrict", () => {
  it("encodes all but RFC 3986's unreserved characters, as OpenAPI's cookie example does", () => {
    expect(encodeStrict("Hello, world!")).toBe("Hello%2C%20world%21");
    expect(encodeStrict("a-._~Z9;=\"\\'()*\r\né😀")).toBe("a-._~Z9%3B%3D%22%5C%27%28%29%2A%0D%0A%C3%A9%F0%9F%98%80");
  });

  it("refuses a lone surrogate", () => {
    expect(() => encodeStrict("a\udc00")).toThrow(UnencodableTextError);
  });
});

describe("encodeAllowingReserved", () => {
  it("passes reserved characters and percent-encoded triples, but encodes what would change a query or a form", () => {
    expect(encodeAllowingReserved(":/?@!$'()*,;")).toBe(":/?@!$'()*,;");
    expect(encodeAllowingReserved("&=+#[]")).toBe("%26%3D%2B%23%5B%5D");
    expect(encodeAllowingReserved("%2F %zz %4")).toBe("%2F%20%25zz%20%254");
    expect(encodeAllowingReserved("é|😀")).toBe("%C3%A9%7C%F0%9F%98%80");
    expect(() => encodeAllowingReserved("\ud800")).toThrow(UnencodableTextError);
  });
});

describe("encodeForm", () => {
  it("encodes as URLSearchParams does", () => {
    expect(encodeForm("a b&c/é")).toBe("a+b%26c%2F%C3%A9");
  });
});
