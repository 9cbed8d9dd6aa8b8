import { InvalidArgumentError } from "@agentrx/core";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { describe, expect, it } from "vitest";
import { createSchemaCache, DocumentTooLargeError, jsonSchemaToZod } from "./json-schema-to-zod";
import { createOpenApiToolkit } from "./openapi-toolkit";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const fanOut = (prefix: string, schema: unknown) => Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${prefix}${i}`, schema]));
// A 50-property schema of references to a 50-property schema: 2551 nodes, past one parameter's 2000.
const schemas = {
  Big: { type: "object", properties: fanOut("p", ref("Big2")) },
  Big2: { type: "object", properties: fanOut("q", { type: "string", description: "q" }) },
  Node: { type: "object", required: ["value"], properties: { value: { type: "number" }, left: ref("Node"), right: ref("Node"), leaf: ref("Leaf") } },
  Leaf: { type: "object", properties: { a: ref("Deep"), n: { type: "integer", nullable: true } } },
  Deep: { type: "object", properties: { b: { type: "array", items: ref("Deeper") } } },
  Deeper: { allOf: [ref("Leaf2")], properties: { z: { type: "string" } } },
  Leaf2: { type: "object", properties: { x: { type: "string", readOnly: true }, y: { oneOf: [{ type: "string" }, ref("Big2")] } } },
};
const document = { openapi: "3.0.3", info: { title: "t", version: "1" }, components: { schemas } };
const nested = (schema: unknown, levels: number): unknown => (levels === 0 ? schema : { type: "array", items: nested(schema, levels - 1) });

describe("jsonSchemaToZod with a SchemaCache", () => {
  it("gives the same schemas as converting each one on its own, wherever the depth and node limits cut", () => {
    const inputs = Object.keys(schemas).flatMap((name) => [ref(name), nested(ref(name), 7), { type: "object", properties: { a: ref("Node"), b: ref(name), c: ref("Big") } }]);
    const cache = createSchemaCache();
    for (const input of [...inputs, ...inputs.reverse()]) {
      const shared = toJsonSchema(jsonSchemaToZod(document, input, cache));
      expect(shared).toEqual(toJsonSchema(jsonSchemaToZod(document, input)));
    }
  });

  it("converts a shared $ref once, so 300 parameters of a large one convert few nodes", () => {
    const cache = createSchemaCache();
    for (let i = 0; i < 300; i++) jsonSchemaToZod(document, ref("Big"), cache);
    for (let i = 0; i < 300; i++) jsonSchemaToZod(document, ref("Node"), cache);
    // Without reuse: 300 * 2000 nodes for each.
    expect(cache.built).toBeGreaterThan(0);
    expect(cache.built).toBeLessThan(2000);
  });

  it("throws DocumentTooLargeError past the cache's limit", () => {
    const cache = createSchemaCache(50);
    expect(() => jsonSchemaToZod(document, ref("Big2"), cache)).toThrow(DocumentTooLargeError);
  });
});

const operationsOf = (count: number, schema: string) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`/r${i}/{id}`, { get: { operationId: `op${i}`, parameters: [{ name: "q", in: "query", schema: ref(schema) }] } }]));

describe("createOpenApiToolkit with a large document", () => {
  it("builds 300 operations whose parameter is a large shared schema (past the document's limit when each rebuilt it)", () => {
    // Rebuilt for each operation, the shared schema's nodes would pass the 50,000 a document may
    // have (and took some 10 s and 900 MB); converted once, they stay far below.
    const toolkit = createOpenApiToolkit({ document: { ...document, paths: operationsOf(300, "Big") }, baseUrl: "http://127.0.0.1:1" });
    expect(toolkit.getTools()).toHaveLength(300);
  });

  it("refuses a document too large to build every operation, saying to pick them with `operations`", () => {
    // Distinct schemas, so that nothing is reused: 101 operations of 500 nodes each, past the 50,000 a document may have.
    const paths = Object.fromEntries(
      Array.from({ length: 101 }, (_, i) => [`/r${i}`, { get: { operationId: `op${i}`, parameters: [{ name: "q", in: "query", schema: { type: "object", properties: Object.fromEntries(Array.from({ length: 499 }, (_, j) => [`p${i}_${j}`, { type: "integer", minimum: i }])) } }] } }]),
    );
    const build = (operations?: string[]) => createOpenApiToolkit({ document: { ...document, paths }, baseUrl: "http://127.0.0.1:1", ...(operations ? { operations } : {}) });
    let error: unknown;
    try {
      build();
    } catch (caught) {
      error = caught;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/too large to build a tool for every operation.*`operations` option/);
    expect(build(["op0", "op100"]).getTools()).toHaveLength(2);
  }, 30_000);
});
