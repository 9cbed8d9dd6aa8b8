import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RequestRefusedError } from "../errors/request-refused-error";
import { encodePathParameter } from "./encode-path-parameter";

describe("encodePathParameter", () => {
  it("keeps any value inside one path segment", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (value) => {
        fc.pre(value !== "" && value !== "." && value !== "..");
        const url = new URL(`http://api.example/v1/items/${encodePathParameter("id", value, "")}/details`);
        const segments = url.pathname.split("/");
        expect(segments).toHaveLength(5);
        expect([segments[1], segments[2], segments[4]]).toEqual(["v1", "items", "details"]);
        expect(decodeURIComponent(segments[3]!)).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses the dot segments and the empty value", () => {
    for (const value of [".", "..", ""]) expect(() => encodePathParameter("id", value, "u")).toThrow(/may not be/);
  });

  it("refuses a missing value and text that is not well-formed UTF-16", () => {
    for (const value of [undefined, null]) expect(() => encodePathParameter("id", value, "u")).toThrow(/the path parameter "id" is missing/);
    for (const value of ["\ud800", "a\udc00b"]) expect(() => encodePathParameter("id", value, "u")).toThrow(RequestRefusedError);
  });
});

describe("encodePathParameter with an array", () => {
  it("joins the encoded items with commas (OpenAPI's simple style), and refuses an empty one", () => {
    expect(encodePathParameter("ids", [1, "a/b", "c,d", ".."], "u")).toBe("1,a%2Fb,c%2Cd,..");
    expect(() => encodePathParameter("ids", [], "u")).toThrow(/the path parameter "ids" may not be ""/);
    expect(() => encodePathParameter("ids", [".."], "u")).toThrow(/may not be "\.\."/);
  });
});

describe("encodePathParameter with a style", () => {
  it("spells an object in the simple style (not as JSON), and arrays and objects in the label and matrix styles", () => {
    expect(encodePathParameter("p", { a: 1, b: "x/y" }, "u")).toBe("a,1,b,x%2Fy");
    expect(encodePathParameter("p", { a: 1, b: 2 }, "u", { style: "simple", explode: true })).toBe("a=1,b=2");
    expect(encodePathParameter("p", [1, 2], "u", { style: "label", explode: false })).toBe(".1,2");
    expect(encodePathParameter("p", [1, 2], "u", { style: "matrix", explode: true })).toBe(";p=1;p=2");
  });

  it("refuses a label value that would make a dot segment, and a nested value", () => {
    expect(() => encodePathParameter("p", ".", "u", { style: "label", explode: false })).toThrow(/the path parameter "p" may not be "\.\."/);
    expect(() => encodePathParameter("p", "", "u", { style: "label", explode: false })).toThrow(/may not be "\."/);
    expect(() => encodePathParameter("p", { a: [1] }, "u")).toThrow(/the path parameter "p" cannot be sent: "p\.a" is a nested object or array/);
  });
});
