import { describe, expect, it } from "vitest";
import { cookiePairs, encodedQueryPairs, expandValue, queryPairs, readAllowReserved, readStyle, type ParameterStyle, type StyledPair } from "./parameter-style";

// The style examples of OpenAPI 3.1.1 (and 3.0.4), for a parameter named "color".
const string = "blue";
const array = ["blue", "black", "brown"];
const object = { R: 100, G: 200, B: 150 };

const expand = (style: ParameterStyle, explode: boolean, value: unknown) => expandValue("color", value, { style, explode }, encodeURIComponent);
const query = (style: ParameterStyle, explode: boolean, value: unknown) =>
  queryPairs("color", value, { style, explode })
    .map((pair: StyledPair) => `${pair.key}=${pair.items.join(pair.delimiter)}`)
    .join("&");

describe("expandValue (path and header styles)", () => {
  it("spells the specification's examples of matrix, label and simple", () => {
    const table: [ParameterStyle, boolean, string, string, string, string][] = [
      ["matrix", false, ";color", ";color=blue", ";color=blue,black,brown", ";color=R,100,G,200,B,150"],
      ["matrix", true, ";color", ";color=blue", ";color=blue;color=black;color=brown", ";R=100;G=200;B=150"],
      ["label", false, ".", ".blue", ".blue,black,brown", ".R,100,G,200,B,150"],
      ["label", true, ".", ".blue", ".blue.black.brown", ".R=100.G=200.B=150"],
      ["simple", false, "", "blue", "blue,black,brown", "R,100,G,200,B,150"],
      ["simple", true, "", "blue", "blue,black,brown", "R=100,G=200,B=150"],
    ];
    for (const [style, explode, empty, forString, forArray, forObject] of table) {
      expect([expand(style, explode, ""), expand(style, explode, string), expand(style, explode, array), expand(style, explode, object)], `${style} ${explode}`).toEqual([empty, forString, forArray, forObject]);
    }
  });

  it("encodes members, so a delimiter inside one is not a delimiter, and refuses a nested value", () => {
    expect(expand("simple", false, ["a,b", "c/d"])).toBe("a%2Cb,c%2Fd");
    expect(expand("matrix", true, { "k;x": "v=w" })).toBe(";k%3Bx=v%3Dw");
    expect(() => expand("simple", false, { a: { b: 1 } })).toThrow('"color.a" is a nested object or array');
    expect(() => expand("simple", false, [[1]])).toThrow('"color[0]" is a nested object or array');
  });
});

describe("queryPairs (query styles)", () => {
  it("spells the specification's examples of form, spaceDelimited, pipeDelimited and deepObject, before percent-encoding", () => {
    expect([query("form", false, ""), query("form", false, string), query("form", false, array), query("form", false, object)]).toEqual(["color=", "color=blue", "color=blue,black,brown", "color=R,100,G,200,B,150"]);
    expect([query("form", true, ""), query("form", true, string), query("form", true, array), query("form", true, object)]).toEqual(["color=", "color=blue", "color=blue&color=black&color=brown", "R=100&G=200&B=150"]);
    expect([query("spaceDelimited", false, array), query("spaceDelimited", false, object)]).toEqual(["color=blue black brown", "color=R 100 G 200 B 150"]);
    expect([query("pipeDelimited", false, array), query("pipeDelimited", false, object)]).toEqual(["color=blue|black|brown", "color=R|100|G|200|B|150"]);
    expect(query("deepObject", true, object)).toBe("color[R]=100&color[G]=200&color[B]=150");
  });

  it("leaves out an empty array or object, and refuses a deepObject that is not an object", () => {
    expect([query("form", true, []), query("form", false, {}), query("pipeDelimited", false, [])]).toEqual(["", "", ""]);
    expect(() => query("deepObject", true, array)).toThrow('"color" is an array, but the deepObject style sends an object\'s properties');
  });
});

describe("encodedQueryPairs (a query string, or a form body property with a style)", () => {
  it("percent-encodes names and members as a form does, the style's delimiter left a delimiter", () => {
    const encode = (style: ParameterStyle, explode: boolean, value: unknown, allowReserved = false) => encodedQueryPairs("c d", value, { style, explode }, allowReserved);
    expect(encode("form", false, ["a,b", "c d"])).toEqual(["c+d=a%2Cb,c+d"]);
    expect(encode("form", true, { "k&": "v=" })).toEqual(["k%26=v%3D"]);
    expect([encode("spaceDelimited", false, ["a b", "c"]), encode("pipeDelimited", false, ["a|b", "c"])]).toEqual([["c+d=a+b%20c"], ["c+d=a%7Cb%7Cc"]]);
    expect(encode("deepObject", true, { x: "[y]" })).toEqual(["c+d%5Bx%5D=%5By%5D"]);
    expect(encode("form", false, ["a/b", "c,d&e"], true)).toEqual(["c+d=a/b,c,d%26e"]);
    expect(() => encode("form", false, ["\ud800"], true)).toThrow('"c d" holds a lone UTF-16 surrogate');
  });
});

describe("readStyle", () => {
  it("gives each place its default style and explode", () => {
    expect(readStyle({}, "query", "q")).toEqual({ style: "form", explode: true });
    expect(readStyle({}, "path", "p")).toEqual({ style: "simple", explode: false });
    expect(readStyle({}, "header", "h")).toEqual({ style: "simple", explode: false });
    expect(readStyle({ style: "deepObject" }, "query", "q")).toEqual({ style: "deepObject", explode: true });
    expect(readStyle({ style: "matrix", explode: true }, "path", "p")).toEqual({ style: "matrix", explode: true });
  });
});

describe("cookiePairs (the form style in a Cookie header)", () => {
  it("spells the specification's form examples as cookies, joined with '; ', every member percent-encoded", () => {
    const cookie = (explode: boolean, value: unknown) => cookiePairs("color", value, { style: "form", explode });
    expect([cookie(false, ""), cookie(false, string), cookie(false, array), cookie(false, object)]).toEqual(["color=", "color=blue", "color=blue,black,brown", "color=R,100,G,200,B,150"]);
    expect([cookie(true, ""), cookie(true, string), cookie(true, array), cookie(true, object)]).toEqual(["color=", "color=blue", "color=blue; color=black; color=brown", "R=100; G=200; B=150"]);
    expect(cookie(true, "Hello, world!")).toBe("color=Hello%2C%20world%21");
    expect(cookie(true, { "x;y": "a=b; c", "ok!": "" })).toBe("x%3By=a%3Db%3B%20c; ok!=");
    expect([cookie(true, []), cookie(false, {})]).toEqual(["", ""]);
  });

  it("takes the form style only, and a boolean allowReserved", () => {
    expect(readStyle({}, "cookie", "c")).toEqual({ style: "form", explode: true });
    expect(() => readStyle({ style: "simple" }, "cookie", "c")).toThrow("a cookie parameter's style is form");
    expect(() => readStyle({ style: "cookie" }, "cookie", "c")).toThrow('has the style "cookie" (OpenAPI 3.2)');
    expect([readAllowReserved({}, "q"), readAllowReserved({ allowReserved: true }, "q")]).toEqual([false, true]);
    expect(() => readAllowReserved({ allowReserved: "true" }, "q")).toThrow('q has allowReserved "true"; allowReserved is true or false');
  });
});
