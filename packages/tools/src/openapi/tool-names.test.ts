import { InvalidArgumentError } from "@agentrx/core";
import { describe, expect, it } from "vitest";
import { createOpenApiToolkit } from "./openapi-toolkit";

const get = (operationId?: string) => ({ get: { ...(operationId === undefined ? {} : { operationId }), responses: {} } });
const documentOf = (paths: Record<string, unknown>) => ({ openapi: "3.0.3", info: { title: "t", version: "1" }, paths });
const errorOf = (build: () => unknown): Error => {
  try {
    build();
  } catch (error) {
    return error as Error;
  }
  throw new Error("it did not throw");
};

describe("createOpenApiToolkit tool names", () => {
  it("builds the kept operations when operations it leaves out would share a name", () => {
    const document = documentOf({ "/pets/{id}": get(), "/pets/{id}/": get(), "/owners": get("listOwners") });
    const toolkit = createOpenApiToolkit({ document, baseUrl: "https://x.example", operations: ["listOwners"] });
    expect(toolkit.getTools().map((tool) => tool.name)).toEqual(["listOwners"]);
  });

  it("refuses kept operations that share a name, naming both and how to tell them apart", () => {
    const clashes = [
      { paths: { "/pets/{id}": get(), "/pets/{id}/": get() }, name: "get_pets_id", where: /GET \/pets\/\{id\} and GET \/pets\/\{id\}\// },
      { paths: { "/a": get("ペット"), "/b": get("動物") }, name: "operation", where: /GET \/a and GET \/b/ },
      { paths: { "/a": get(`${"x".repeat(64)}_a`), "/b": get(`${"x".repeat(64)}_b`) }, name: "x".repeat(64), where: /GET \/a and GET \/b/ },
    ];
    for (const { paths, name, where } of clashes) {
      const error = errorOf(() => createOpenApiToolkit({ document: documentOf(paths), baseUrl: "https://x.example" }));
      expect(InvalidArgumentError.isInstance(error), name).toBe(true);
      expect(error.message).toContain(`both be named "${name}"`);
      expect(error.message).toMatch(where);
      expect(error.message).toMatch(/operationId.*`operations`/);
    }
  });
});
