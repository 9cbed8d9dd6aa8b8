import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { describe, expect, it } from "vitest";
import { jsonSchemaToZod } from "./json-schema-to-zod";
import { createOpenApiToolkit } from "./openapi-toolkit";

const accepts = (schema: unknown, value: unknown) => jsonSchemaToZod({}, schema).safeParse(value).success;

describe("jsonSchemaToZod constraints", () => {
  it("checks pattern (unanchored, as JSON Schema matches it)", () => {
    const schema = { type: "string", pattern: "^[A-Z]{3}-\\d+$" };
    expect(accepts(schema, "ABC-12")).toBe(true);
    expect(accepts(schema, "abc-12")).toBe(false);
    expect(accepts({ type: "string", pattern: "\\d" }, "a1b")).toBe(true);
  });

  it("leaves a pattern JavaScript cannot run unchecked, and names it in the description", () => {
    const schema = jsonSchemaToZod({}, { type: "string", pattern: "(?i)^abc$", description: "A code." });
    expect(schema.safeParse("anything").success).toBe(true);
    expect(schema.description).toBe("A code. Must match the pattern (?i)^abc$ (not checked here).");
  });

  it("checks exclusive bounds in OpenAPI 3.0's boolean and 3.1's numeric spelling, and multipleOf", () => {
    const open30 = { type: "number", minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true };
    const open31 = { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 10 };
    for (const schema of [open30, open31]) {
      expect([0, 0.5, 9.5, 10].map((value) => accepts(schema, value)), JSON.stringify(schema)).toEqual([false, true, true, false]);
    }
    expect([0, 10].map((value) => accepts({ type: "number", minimum: 0, exclusiveMinimum: false, maximum: 10 }, value))).toEqual([true, true]);
    expect([0.07, 0.075].map((value) => accepts({ type: "number", multipleOf: 0.01 }, value))).toEqual([true, false]);
    expect([15, 7].map((value) => accepts({ type: "integer", multipleOf: 5 }, value))).toEqual([true, false]);
  });

  it("checks minItems, maxItems and uniqueItems (items compared as JSON, keys in any order)", () => {
    const schema = { type: "array", items: {}, minItems: 1, maxItems: 3, uniqueItems: true };
    expect(accepts(schema, [])).toBe(false);
    expect(accepts(schema, [1, 2, 3, 4])).toBe(false);
    expect(accepts(schema, [1, "1", { a: 1, b: 2 }])).toBe(true);
    expect(accepts(schema, [{ a: 1, b: 2 }, { b: 2, a: 1 }])).toBe(false);
    expect(jsonSchemaToZod({}, schema).description).toBe("Items must be unique.");
  });

  it("checks the formats zod knows, and names any other in the description", () => {
    const cases: Array<[string, string, string]> = [
      ["email", "ann@example.com", "ann at example.com"],
      ["uri", "https://example.com/a?b=c", "not a uri"],
      ["url", "https://example.com", "example com"],
      ["uuid", "00000000-0000-0000-0000-000000000000", "0000-0000"],
      ["date-time", "2024-05-01T12:30:00+02:00", "2024-05-01 12:30"],
      ["date", "2024-02-29", "2023-02-29"],
      ["ipv4", "192.0.2.1", "192.0.2.256"],
      ["ipv6", "2001:db8::1", "2001:db8::g"],
    ];
    for (const [format, good, bad] of cases) {
      expect([accepts({ type: "string", format }, good), accepts({ type: "string", format }, bad)], format).toEqual([true, false]);
      expect(jsonSchemaToZod({}, { type: "string", format }).description, format).toBeUndefined();
    }
    const int64 = jsonSchemaToZod({}, { type: "integer", format: "int64" });
    expect(int64.safeParse(12).success).toBe(true);
    expect(int64.description).toBe("Format: int64.");
    expect(jsonSchemaToZod({}, { type: "string", format: "unix-time", description: "When." }).description).toBe("When. Format: unix-time.");
  });
});

describe("createOpenApiToolkit with schema constraints", () => {
  const document = {
    openapi: "3.1.0",
    info: { title: "x", version: "1" },
    paths: {
      "/orders": {
        post: {
          operationId: "createOrder",
          parameters: [
            { name: "code", in: "query", required: true, description: "The order code.", schema: { type: "string", pattern: "^[A-Z]{3}$" } },
            { name: "since", in: "query", schema: { type: "integer", format: "unix-time" }, description: "Orders since then." },
          ],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["email", "quantity", "tags"],
                  properties: {
                    email: { type: "string", format: "email" },
                    quantity: { type: "integer", exclusiveMinimum: 0, multipleOf: 5 },
                    tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2, uniqueItems: true },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
  const [createOrder] = createOpenApiToolkit({ document, baseUrl: "https://shop.example" }).getTools();

  it("shows the constraints to the model in the tool's JSON schema", () => {
    const schema = toJsonSchema(createOrder!.schema as Parameters<typeof toJsonSchema>[0]) as { properties: Record<string, Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> }> };
    expect(schema.properties.code).toMatchObject({ type: "string", pattern: "^[A-Z]{3}$", description: "The order code." });
    expect(schema.properties.since).toMatchObject({ type: "integer", description: "Orders since then. Format: unix-time." });
    const body = schema.properties.body!.properties!;
    expect(body.email).toMatchObject({ type: "string", format: "email" });
    expect(body.quantity).toMatchObject({ type: "integer", exclusiveMinimum: 0, multipleOf: 5 });
    expect(body.tags).toMatchObject({ type: "array", minItems: 1, maxItems: 2, description: "Items must be unique." });
  });

  it("refuses a call that breaks one, naming the field, before sending anything", async () => {
    const valid = { code: "ABC", body: { email: "ann@example.com", quantity: 5, tags: ["a"] } };
    const broken: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...valid, code: "abc" }, /→ at code/],
      [{ ...valid, body: { ...valid.body, email: "ann" } }, /→ at body\.email/],
      [{ ...valid, body: { ...valid.body, quantity: 0 } }, /→ at body\.quantity/],
      [{ ...valid, body: { ...valid.body, quantity: 7 } }, /→ at body\.quantity/],
      [{ ...valid, body: { ...valid.body, tags: [] } }, /→ at body\.tags/],
      [{ ...valid, body: { ...valid.body, tags: ["a", "a"] } }, /Items must be unique[\s\S]*→ at body\.tags/],
    ];
    for (const [args, field] of broken) {
      await expect(createOrder!.invoke(args as never), JSON.stringify(args)).rejects.toThrow(field);
    }
  });
});
