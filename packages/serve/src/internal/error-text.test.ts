import { describe, expect, it } from "vitest";
import { errorText } from "./error-text";

describe("errorText (the default text of an error a client sees)", () => {
  it("reads the message of anything that has one, an Error's or a thrown object's, first line only", () => {
    expect(errorText(new TypeError("boom\nat stack"))).toBe("boom");
    expect(errorText({ message: "quota exceeded", status: 429 })).toBe("quota exceeded"); // what HTTP and SDK clients throw
  });

  it("describes a value without a message as its own string, else its JSON, never as [object Object]", () => {
    expect(errorText("plain text")).toBe("plain text");
    expect(errorText(42)).toBe("42");
    expect(errorText(Symbol("why"))).toBe("Symbol(why)");
    expect(errorText({ toString: () => "custom text" })).toBe("custom text");
    expect(errorText({ status: 429, code: "rate_limited" })).toBe('{"status":429,"code":"rate_limited"}');
  });

  it("says what cannot be shown, as the executor does (describeThrown), without throwing", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const hostile = new Proxy({}, { get: () => { throw new Error("no reading"); } });
    for (const value of [{}, cyclic, hostile]) expect(errorText(value)).toBe("the run threw an object that cannot be shown as text");
    expect(errorText(Object.create(null))).toBe("the run threw an object without a prototype that cannot be shown as text");
    expect(errorText(new Error(""))).toBe("The run failed.");
    expect([errorText(undefined), errorText(null)]).toEqual(["undefined", "null"]);
  });
});
