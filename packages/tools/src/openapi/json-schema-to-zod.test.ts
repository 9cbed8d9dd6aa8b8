import { describe, expect, it } from "vitest";
import { jsonSchemaToZod, resolvePointer } from "./json-schema-to-zod";

const document = {
  components: {
    schemas: {
      Node: { type: "object", required: ["value"], properties: { value: { type: "number" }, next: { $ref: "#/components/schemas/Node" } } },
      "a/b": { type: "string" },
    },
  },
};

describe("jsonSchemaToZod", () => {
  it("converts types, enums, nullables, unions and bounds", () => {
    const schema = jsonSchemaToZod(document, {
      type: "object",
      required: ["id", "kind"],
      properties: {
        id: { type: "integer", minimum: 1 },
        kind: { enum: ["a", "b"] },
        note: { type: ["string", "null"] },
        size: { oneOf: [{ type: "number" }, { type: "string", maxLength: 3 }] },
        tags: { type: "array", items: { type: "string" } },
        extra: { type: "object", additionalProperties: { type: "boolean" } },
        maybe: { type: "string", nullable: true },
      },
    });
    expect(schema.parse({ id: 1, kind: "a", note: null, size: "big", tags: ["x"], extra: { on: true }, maybe: null })).toBeTruthy();
    for (const bad of [{ id: 0, kind: "a" }, { id: 1.5, kind: "a" }, { id: 1, kind: "c" }, { id: 1 }, { id: 1, kind: "a", size: "huge" }, { id: 1, kind: "a", extra: { on: 1 } }]) {
      expect(schema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("follows references, also recursive ones, up to a depth", () => {
    const schema = jsonSchemaToZod(document, { $ref: "#/components/schemas/Node" });
    expect(schema.safeParse({ value: 1, next: { value: 2 } }).success).toBe(true);
    expect(schema.safeParse({ value: 1, next: { value: "two" } }).success).toBe(false);
    expect(resolvePointer(document, "#/components/schemas/a~1b")).toEqual({ type: "string" });
    expect(() => resolvePointer(document, "#/components/schemas/Missing")).toThrow(/points nowhere/);
    expect(() => resolvePointer(document, "https://evil.example/schema.json")).toThrow(/only local references/);
  });
});
