import { InvalidArgumentError } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { checkPositiveInteger, checkUsage } from "./check-options";

describe("option checks name the option for a value JSON cannot write", () => {
  it("checkPositiveInteger refuses a BigInt with an InvalidArgumentError, not a TypeError", () => {
    const check = () => checkPositiveInteger("createAGUIHandler", "maxBodyBytes", 1024n);
    expect(check).toThrow(InvalidArgumentError);
    expect(check).toThrow(/^createAGUIHandler: `maxBodyBytes` must be an integer > 0, got 1024n\.$/);
  });

  it("checkUsage refuses a cyclic usage with an InvalidArgumentError, not a TypeError", () => {
    const usage: Record<string, unknown> = { input_tokens: 1 };
    usage["self"] = usage;
    const check = () => checkUsage("toUIMessageChunks", "earlierUsage", usage);
    expect(check).toThrow(InvalidArgumentError);
    expect(check).toThrow(/^toUIMessageChunks: `earlierUsage` must be a usage with numbers .*, got an object\.$/);
  });
});
