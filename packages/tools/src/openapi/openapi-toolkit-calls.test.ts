import { IDEMPOTENCY_KEY_METADATA } from "@agentrx/core";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../http/test-server";
import { createOpenApiToolkit } from "./openapi-toolkit";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer((request, response) => {
    if (request.method === "HEAD") return void response.writeHead(200, { "content-type": "application/pdf", "content-length": "50000000" }).end();
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ method: request.method, url: request.url, key: request.headers["idempotency-key"] ?? null }));
  });
});
afterEach(() => server.close());

const doc = (paths: Record<string, unknown>) => ({ openapi: "3.0.3", info: { title: "x", version: "1" }, paths });
const argumentsOf = (tool: { schema: unknown }) => toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0]) as { properties?: Record<string, unknown>; required?: string[] };

describe("createOpenApiToolkit calls", () => {
  it("answers a head operation for a resource larger than maxResponseBytes with its headers", async () => {
    const document = doc({ "/files/{name}": { head: { operationId: "fileInfo", parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }] } } });
    const [fileInfo] = createOpenApiToolkit({ document, baseUrl: server.origin, allowedAddresses: ["127.0.0.1"] }).getTools();
    await expect(fileInfo!.invoke({ name: "big.pdf" })).resolves.toBe("HTTP 200 OK\ncontent-type: application/pdf\ncontent-length: 50000000\n\n");
    expect(server.requests.map((request) => request.method)).toEqual(["HEAD"]);
  });

  it("leaves out a header parameter named like idempotencyKeyHeader, in any case: the call's key is sent", async () => {
    const idempotencyKey = { name: "Idempotency-Key", in: "header", required: true, schema: { type: "string" } };
    const document = doc({ "/charges": { post: { operationId: "createCharge", parameters: [idempotencyKey, { name: "amount", in: "query", schema: { type: "integer" } }] } } });
    const [createCharge] = createOpenApiToolkit({ document, baseUrl: server.origin, allowedAddresses: ["127.0.0.1"], idempotencyKeyHeader: "idempotency-key" }).getTools();
    expect(argumentsOf(createCharge!).properties).not.toHaveProperty("Idempotency-Key");
    expect(argumentsOf(createCharge!).required ?? []).not.toContain("Idempotency-Key");
    const sent = await createCharge!.invoke({ amount: 5, "Idempotency-Key": "the-model's" } as never, { metadata: { [IDEMPOTENCY_KEY_METADATA]: "run-1:0:0" } });
    expect(sent).toContain('"key":"run-1:0:0"');
    // Outside an executor the call has no key: none is sent, not the model's.
    expect(await createCharge!.invoke({ amount: 5, "Idempotency-Key": "the-model's" } as never)).toContain('"key":null');
  });
});
