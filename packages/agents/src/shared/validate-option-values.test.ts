import { describe, expect, it } from "vitest";
import { expectInvalidArgument } from "../test-utils/expect-invalid-argument";
import { assertNonEmptyString, assertOneOf, assertStringArray } from "./validate-option-values";

describe("option value checks", () => {
  it("name the owner and option, and show the value given as JSON or, when it cannot be, as its kind", () => {
    expectInvalidArgument(() => assertNonEmptyString("Owner", "prefix", " ", 'such as "AI"'), "prefix", /^Owner: `prefix` must be a non-empty string such as "AI", got " "\.$/);
    expectInvalidArgument(() => assertNonEmptyString("Owner", "prefix", 10n), "prefix", /^Owner: `prefix` must be a non-empty string, got a bigint\.$/);
    expectInvalidArgument(() => assertStringArray("Owner", "names", "ab"), "names", /^Owner: `names` must be an array of non-empty strings, got "ab"\.$/);
    expectInvalidArgument(() => assertStringArray("Owner", "names", [], { nonEmpty: true }), "names", /must be a non-empty array of non-empty strings, got \[\]\.$/);
    expectInvalidArgument(() => assertStringArray("Owner", "names", () => 1), "names", /got a function\.$/);
    expectInvalidArgument(() => assertOneOf("Owner", "mode", "full", ["a", "b", "c"]), "mode", /^Owner: `mode` must be "a", "b" or "c", got "full"\.$/);
  });

  it("accept valid values; stop sequences may be white space", () => {
    expect(() => assertStringArray("Owner", "stop", ["\n"], { whiteSpace: true })).not.toThrow();
    expect(() => assertStringArray("Owner", "names", [])).not.toThrow();
    expect(() => assertOneOf("Owner", "mode", "b", ["a", "b"])).not.toThrow();
    expectInvalidArgument(() => assertStringArray("Owner", "names", ["\n"]), "names", /got \["\\n"\]\.$/);
  });
});
