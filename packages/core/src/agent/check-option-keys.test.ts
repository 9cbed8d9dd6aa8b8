import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { checkOptionKeys } from "./check-option-keys";
import { nearMissOf } from "./near-miss";

/** The error `checkOptionKeys` throws for `options`, or undefined. */
function refusal(options: unknown, known: readonly string[], how?: Parameters<typeof checkOptionKeys>[3]): InvalidArgumentError | undefined {
  try {
    checkOptionKeys("MyStore", options, known, how);
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error;
    throw error;
  }
  return undefined;
}

describe("checkOptionKeys", () => {
  it("lets known keys and non-objects through", () => {
    expect(refusal({ path: "runs.db" }, ["path"])).toBeUndefined();
    expect(refusal(undefined, ["path"])).toBeUndefined();
    expect(refusal("runs.db", ["path"])).toBeUndefined();
  });

  it("names an unknown key, its value and the known options", () => {
    const error = refusal({ file: "runs.db" }, ["path", "leaseMs"]);
    expect(error?.message).toBe("MyStore: unknown option `file`. Known options: path, leaseMs.");
    expect(error?.argument).toBe("file");
    expect(error?.value).toBe("runs.db");
  });

  it("asks whether a near miss meant the option it is close to", () => {
    expect(refusal({ pathh: "runs.db" }, ["path"])?.message).toBe("MyStore: unknown option `pathh`; did you mean `path`? Known options: path.");
    expect(refusal({ lease_ms: 1 }, ["path", "leaseMs"])?.message).toMatch(/; did you mean `leaseMs`\?/);
    // One letter changed in a short name is another word, not a typo.
    expect(refusal({ score: 1 }, ["store"])?.message).toBe("MyStore: unknown option `score`. Known options: store.");
  });

  it("says a hint's phrase instead, and puts the prefix before the key", () => {
    const error = refusal({ model: 1 }, ["llm"], { prefix: "options.", hints: { model: "the model goes in `llm`" } });
    expect(error?.message).toBe("MyStore: unknown option `options.model`: the model goes in `llm`. Known options: llm.");
    expect(error?.argument).toBe("options.model");
    expect(refusal({ model: 1 }, ["llm"], "options.")?.argument).toBe("options.model");
    // A hint for another key changes nothing; an inherited name is not a hint.
    expect(refusal({ toString: 1 }, ["llm"], { hints: { model: "x" } })?.message).toBe("MyStore: unknown option `toString`. Known options: llm.");
  });

  it("says when there are no options at all", () => {
    expect(refusal({ path: 1 }, [])?.message).toBe("MyStore: unknown option `path`; MyStore takes no options yet.");
    expect(refusal({ path: 1 }, [], { hints: { path: "it moved" } })?.message).toBe("MyStore: unknown option `path`: it moved. MyStore takes no options yet.");
  });

  it("finds near misses by case, separators and a few edits, the closest first", () => {
    expect(nearMissOf("stop_when", ["stopWhen"])).toBe("stopWhen");
    expect(nearMissOf("maxIteraions", ["maxIterations", "maxExecutionTime"])).toBe("maxIterations");
    expect(nearMissOf("at", ["AT"])).toBe("AT");
    expect(nearMissOf("ab", ["at"])).toBeUndefined();
    expect(nearMissOf("zzzzzz", ["path"])).toBeUndefined();
  });
});
