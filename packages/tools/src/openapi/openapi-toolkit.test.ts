import { InvalidArgumentError } from "@agentrx/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RequestRefusedError } from "../errors/request-refused-error";
import { startTestServer, type TestServer } from "../http/test-server";
import { createOpenApiToolkit } from "./openapi-toolkit";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ method: request.method, url: request.url, auth: request.headers.authorization ?? null, trace: request.headers["x-trace"] ?? null, body }));
    });
  });
});
afterEach(() => server.close());

const petsDocument = {
  openapi: "3.0.3",
  info: { title: "Pets", version: "1" },
  paths: {
    "/pets/{petId}": {
      parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" }, description: "The pet's id." }],
      get: {
        operationId: "getPet",
        summary: "Get a pet.",
        parameters: [{ name: "X-Trace", in: "header", schema: { type: "string" } }],
      },
    },
    "/pets": {
      get: {
        operationId: "listPets",
        parameters: [
          { name: "limit", in: "query", schema: { type: "integer", maximum: 100 } },
          { name: "tag", in: "query", schema: { type: "array", items: { type: "string" } } },
        ],
      },
      post: {
        operationId: "createPet",
        summary: "Create a pet.",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/NewPet" } } } },
      },
    },
  },
  components: {
    schemas: {
      NewPet: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" }, kind: { type: "string", enum: ["cat", "dog"] }, age: { type: "integer", nullable: true } },
      },
    },
  },
};

const toolkit = (extra: Record<string, unknown> = {}) =>
  createOpenApiToolkit({ document: petsDocument, baseUrl: `${server.origin}/v1`, allowedAddresses: ["127.0.0.1"], headers: { authorization: "Bearer k" }, ...extra });
const toolNamed = (name: string, extra?: Record<string, unknown>) => toolkit(extra).getTools().find((t) => t.name === name)!;
const echoed = (observation: string) => JSON.parse(observation.slice(observation.indexOf("\n\n") + 2)) as Record<string, unknown>;

describe("createOpenApiToolkit", () => {
  it("builds one described tool per operation", () => {
    const tools = toolkit().getTools();
    expect(tools.map((t) => t.name)).toEqual(["getPet", "listPets", "createPet"]);
    expect(tools[0]?.description).toBe("Get a pet. (GET /pets/{petId})");
    expect(toolkit({ operations: ["createPet"] }).getTools().map((t) => t.name)).toEqual(["createPet"]);
  });

  it("calls the operation with path, query and header parameters and the auth header", async () => {
    const pet = echoed(await toolNamed("getPet").invoke({ petId: "42", "X-Trace": "t1" }));
    expect(pet).toMatchObject({ method: "GET", url: "/v1/pets/42", auth: "Bearer k", trace: "t1" });
    const list = echoed(await toolNamed("listPets").invoke({ limit: 2, tag: ["a b", "c"] }));
    expect(list.url).toBe("/v1/pets?limit=2&tag=a+b&tag=c");
  });

  it("sends a validated JSON body", async () => {
    const created = echoed(await toolNamed("createPet").invoke({ body: { name: "Rex", kind: "dog", age: null } }));
    expect(created).toMatchObject({ method: "POST", url: "/v1/pets" });
    expect(JSON.parse(created.body as string)).toEqual({ name: "Rex", kind: "dog", age: null });
  });

  it("rejects missing and wrong-typed arguments", async () => {
    await expect(toolNamed("getPet").invoke({} as never)).rejects.toThrow(/did not match expected schema/);
    await expect(toolNamed("listPets").invoke({ limit: "ten" } as never)).rejects.toThrow(/did not match expected schema/);
    await expect(toolNamed("listPets").invoke({ limit: 1000 } as never)).rejects.toThrow(/did not match expected schema/);
    await expect(toolNamed("createPet").invoke({} as never)).rejects.toThrow(/did not match expected schema/);
    await expect(toolNamed("createPet").invoke({ body: { name: "Tom", kind: "cow" } } as never)).rejects.toThrow(/did not match expected schema/);
    expect(server.requests).toHaveLength(0);
  });

  it("never lets a path parameter change the path", async () => {
    const getPet = toolNamed("getPet");
    expect(echoed(await getPet.invoke({ petId: "../admin" })).url).toBe("/v1/pets/..%2Fadmin");
    expect(echoed(await getPet.invoke({ petId: "a/b" })).url).toBe("/v1/pets/a%2Fb");
    expect(echoed(await getPet.invoke({ petId: "%2e%2e" })).url).toBe("/v1/pets/%252e%252e");
    expect(echoed(await getPet.invoke({ petId: "x?admin=1#y" })).url).toBe("/v1/pets/x%3Fadmin%3D1%23y");
    for (const petId of ["..", ".", ""]) {
      const error = await getPet.invoke({ petId }).catch((e: unknown) => e);
      expect(RequestRefusedError.isInstance(error)).toBe(true);
      expect((error as RequestRefusedError).reason).toBe("invalid_path_parameter");
    }
    expect(server.requests.map((r) => r.url)).not.toContain("/v1/admin");
  });

  it("goes through the safe HTTP layer: private addresses are refused unless allowed", async () => {
    const tools = createOpenApiToolkit({
      document: petsDocument,
      baseUrl: "https://pets.example.com/v1",
      resolver: async () => ["192.168.0.10"],
    }).getTools();
    await expect(tools[0]!.invoke({ petId: "1" })).rejects.toThrow(/Request refused: the host "pets.example.com" resolves to 192.168.0.10/);
    const unlisted = toolkit({ allowedAddresses: [] }).getTools();
    await expect(unlisted[0]!.invoke({ petId: "1" })).rejects.toThrow(/is not a public address/);
  });

  it("reads YAML documents and takes the base URL from servers", async () => {
    const yaml = `
openapi: 3.1.0
info: { title: Status, version: "1" }
servers: [{ url: "${server.origin}/api" }]
paths:
  /status:
    get:
      summary: Service status.
`;
    const [status] = createOpenApiToolkit({ document: yaml, allowedAddresses: ["127.0.0.1"] }).getTools();
    expect(status?.name).toBe("get_status");
    expect(echoed(await status!.invoke({})).url).toBe("/api/status");
  });

  it("refuses documents and options it cannot use", () => {
    expect(() => createOpenApiToolkit({ document: "{ not: [valid" })).toThrow(/neither JSON nor YAML/);
    expect(() => createOpenApiToolkit({ document: { swagger: "2.0", paths: {} } })).toThrow(/must be an OpenAPI 3 document/);
    expect(() => createOpenApiToolkit({ document: petsDocument })).toThrow(/baseUrl must be an absolute http\(s\) URL/);
    expect(() => createOpenApiToolkit({ document: petsDocument, baseUrl: "file:///etc" })).toThrow(InvalidArgumentError);
    expect(() => toolkit({ retryableStatuses: [503, "504"] })).toThrow(/createOpenApiToolkit: retryableStatuses must be a list of HTTP statuses/);
    const duplicate = { ...petsDocument, paths: { "/a": { get: { operationId: "same" } }, "/b": { get: { operationId: "same" } } } };
    expect(() => createOpenApiToolkit({ document: duplicate, baseUrl: "https://x.example" })).toThrow(/both be named "same"/);
    expect(() => toolkit({ operations: ["getPett"] })).toThrow(/operations names "getPett", which the document does not have; its operations are getPet, listPets, createPet/);
    for (const baseUrl of ["https://x.example/v1?key=abc", "https://x.example/v1#top", "https://user:pw@x.example/v1"]) {
      expect(() => createOpenApiToolkit({ document: petsDocument, baseUrl }), baseUrl).toThrow(/baseUrl may not hold a query, a fragment or credentials/);
    }
  });
});

describe("createOpenApiToolkit with hostile documents and arguments", () => {
  const doc = (paths: Record<string, unknown>, components: Record<string, unknown> = {}) => ({ openapi: "3.0.0", info: { title: "x", version: "1" }, paths, components });

  it("says what is wrong with a document without operations, and with an empty `operations` option", () => {
    for (const paths of [{}, { "/a": {} }, { "/a": { parameters: [], summary: "nothing" } }]) {
      const error = (() => {
        try {
          createOpenApiToolkit({ document: doc(paths), baseUrl: "https://x.example" });
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe("document");
      expect((error as Error).message).toContain('the document has no operations: its "paths" object holds no path with a get');
      expect((error as Error).message).not.toMatch(/allowedMethods/);
    }
    expect(() => toolkit({ operations: [] })).toThrow(/operations is empty, so no tool would be built; name some of the document's operations \(getPet, listPets, createPet\)/);
  });

  it("builds shapes without a prototype: parameters named like Object.prototype's properties are plain parameters", async () => {
    const document = doc({
      "/items": {
        post: {
          operationId: "make",
          parameters: [
            { name: "constructor", in: "query", required: true, schema: { type: "string" } },
            { name: "toString", in: "query", schema: { type: "string" } },
            { name: "hasOwnProperty", in: "header", schema: { type: "string" } },
          ],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { type: "object", required: ["constructor"], properties: { constructor: { type: "string" }, valueOf: { type: "number" } } } } },
          },
        },
      },
    });
    const [make] = createOpenApiToolkit({ document, baseUrl: `${server.origin}/v1`, allowedAddresses: ["127.0.0.1"] }).getTools();
    const sent = echoed(await make!.invoke({ constructor: "c", body: { constructor: "x" } }));
    // Optional parameters not given are not sent, although every object has a toString.
    expect(sent).toMatchObject({ url: "/v1/items?constructor=c", body: '{"constructor":"x"}' });
    for (const args of [{ body: { constructor: "x" } }, { constructor: "c", body: {} }]) {
      const error = await make!.invoke(args as never).catch((caught: unknown) => caught);
      expect(String(error)).toMatch(/expected string, received undefined/);
      expect(String(error)).not.toMatch(/received function/);
    }
    expect(server.requests).toHaveLength(1);
  });

  it("refuses a parameter or a body property named __proto__, which no tool arguments can carry", () => {
    const withParameter = doc({ "/items": { get: { operationId: "list", parameters: [{ name: "__proto__", in: "query", required: true, schema: { type: "string" } }] } } });
    const withProperty = doc({
      "/items": { post: { operationId: "make", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } } } } },
    }, { schemas: { Item: JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "string"}}}') } });
    for (const document of [withParameter, withProperty]) {
      let error: unknown;
      try {
        createOpenApiToolkit({ document, baseUrl: "https://x.example" });
      } catch (caught) {
        error = caught;
      }
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/is named "__proto__", which a tool's arguments cannot carry; rename it in the document/);
    }
    expect(() => createOpenApiToolkit({ document: withParameter, baseUrl: "https://x.example" })).toThrow(/a parameter of GET \/items is named "__proto__"/);
  });

  it("converts schemas that fan out through references in bounded time", () => {
    // Tree fans out 8 ways per level and refers to itself: 8^12 nodes if converted naively.
    const properties = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`child${i}`, { $ref: "#/components/schemas/Tree" }]));
    const document = doc(
      { "/trees": { post: { operationId: "plant", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Tree" } } } } } } },
      { schemas: { Tree: { type: "object", properties } } },
    );
    const [plant] = createOpenApiToolkit({ document, baseUrl: "https://trees.example" }).getTools();
    expect(plant?.name).toBe("plant");
  });

  it("names a broken reference inside a schema at construction, as an InvalidArgumentError", () => {
    const document = doc({ "/a": { get: { operationId: "a", parameters: [{ name: "q", in: "query", schema: { $ref: "#/components/schemas/Missing" } }] } } });
    let error: unknown;
    try {
      createOpenApiToolkit({ document, baseUrl: "https://x.example" });
    } catch (e) {
      error = e;
    }
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/the reference "#\/components\/schemas\/Missing" points nowhere/);
  });

  it("requires path variables the document forgot to declare, instead of sending \"undefined\"", async () => {
    const document = doc({ "/users/{userId}/files/{fileId}": { get: { operationId: "getFile", parameters: [{ name: "userId", in: "path", required: true }] } } });
    const [getFile] = createOpenApiToolkit({ document, baseUrl: `${server.origin}/v1`, allowedAddresses: ["127.0.0.1"] }).getTools();
    await expect(getFile!.invoke({ userId: "u1" } as never)).rejects.toThrow(/did not match expected schema/);
    expect(server.requests).toHaveLength(0);
    expect(echoed(await getFile!.invoke({ userId: "u1", fileId: "f 1" } as never)).url).toBe("/v1/users/u1/files/f%201");
  });

  it("refuses a path parameter that cannot be encoded, and keeps query and header values in their place", async () => {
    const error = await toolNamed("getPet").invoke({ petId: "\ud800" }).catch((e: unknown) => e);
    expect((error as RequestRefusedError).reason).toBe("invalid_path_parameter");
    expect((error as Error).message).toMatch(/lone UTF-16 surrogate/);
    const header = await toolNamed("getPet").invoke({ petId: "1", "X-Trace": "a\r\nX-Admin: 1" } as never).catch((e: unknown) => e);
    expect((header as RequestRefusedError).reason).toBe("header_not_allowed");
    expect(server.requests).toHaveLength(0);
    expect(echoed(await toolNamed("listPets").invoke({ tag: ["a&admin=1", "b#c"] } as never)).url).toBe("/v1/pets?tag=a%26admin%3D1&tag=b%23c");
  });
});

describe("createOpenApiToolkit references", () => {
  it("names a broken reference at construction", () => {
    const broken = { openapi: "3.0.0", info: { title: "x", version: "1" }, paths: { "/a": { $ref: "#/components/pathItems/Nope" } } };
    expect(() => createOpenApiToolkit({ document: broken, baseUrl: "https://x.example" })).toThrow(/the reference "#\/components\/pathItems\/Nope" points nowhere/);
  });
});

describe("createOpenApiToolkit with documents a tool cannot follow faithfully", () => {
  const doc = (paths: Record<string, unknown>, components: Record<string, unknown> = {}) => ({ openapi: "3.0.0", info: { title: "x", version: "1" }, paths, components });
  const constructionError = (document: Record<string, unknown>) => {
    try {
      createOpenApiToolkit({ document, baseUrl: "https://x.example" });
    } catch (error) {
      return error as InvalidArgumentError;
    }
    return undefined;
  };

  it("refuses a parameter that is not in path, query, header or cookie (it would never be sent)", () => {
    const error = constructionError(doc({ "/pets": { post: { operationId: "add", parameters: [{ name: "pet", in: "body", required: true, schema: { type: "object" } }] } } }));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error?.message).toContain('the parameter "pet" of POST /pets is in "body"; an OpenAPI 3 parameter is in path, query, header or cookie (a body goes in requestBody)');
  });

  it("refuses two parameters of one name, and a parameter named body beside a request body (one argument would feed both)", () => {
    const twice = constructionError(doc({ "/items/{id}": { get: { operationId: "get", parameters: [{ name: "id", in: "path", required: true }, { name: "id", in: "query" }] } } }));
    expect(InvalidArgumentError.isInstance(twice)).toBe(true);
    expect(twice?.message).toContain('GET /items/{id} has two parameters named "id" (in path and in query), but a tool takes one argument per name; rename one in the document');
    const body = constructionError(doc({ "/items": { post: { operationId: "add", parameters: [{ name: "body", in: "query" }], requestBody: { content: { "application/json": { schema: { type: "object" } } } } } } }));
    expect(body?.message).toContain('POST /items has a query parameter named "body" and a request body, which its tool takes as the argument "body"; rename the parameter');
  });

  it("refuses a declared path parameter the path template does not have, and a required cookie without a fixed cookie header", () => {
    const stray = constructionError(doc({ "/items": { get: { operationId: "list", parameters: [{ name: "id", in: "path", required: true }] } } }));
    expect(InvalidArgumentError.isInstance(stray)).toBe(true);
    expect(stray?.message).toContain('GET /items (list) declares the path parameter "id", which its path template does not have');
    const cookieDoc = doc({
      "/me": { get: { operationId: "me", parameters: [{ name: "session", in: "cookie", required: true }] } },
      "/ping": { get: { operationId: "ping", parameters: [{ name: "theme", in: "cookie" }] } },
    });
    const cookie = constructionError(cookieDoc);
    expect(cookie?.message).toContain('GET /me (me) requires the cookie "session", which its tool cannot take from the model; send it in the fixed `headers` ({ cookie: "session=..." })');
    // Sent in the fixed headers, or the operation left out: fine. An optional cookie is no reason to refuse.
    expect(createOpenApiToolkit({ document: cookieDoc, baseUrl: "https://x.example", headers: { Cookie: "session=abc" } }).getTools().map((t) => t.name)).toEqual(["me", "ping"]);
    expect(createOpenApiToolkit({ document: cookieDoc, baseUrl: "https://x.example", operations: ["ping"] }).getTools().map((t) => t.name)).toEqual(["ping"]);
  });

  it("names a header parameter whose name is not a header name, instead of blaming allowedRequestHeaders", () => {
    const error = constructionError(doc({ "/a": { get: { operationId: "a", parameters: [{ name: "X Trace", in: "header" }] } } }));
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error?.message).toContain('the header parameter "X Trace" of GET /a is not a valid header name');
  });

  it("names the references of a $ref cycle", () => {
    const document = doc(
      { "/a": { get: { operationId: "a", parameters: [{ name: "q", in: "query", schema: { $ref: "#/components/schemas/A" } }] } } },
      { schemas: { A: { $ref: "#/components/schemas/B" }, B: { $ref: "#/components/schemas/A" } } },
    );
    const error = constructionError(document);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect(error?.message).toContain('the reference "#/components/schemas/A" leads back to itself (#/components/schemas/A -> #/components/schemas/B -> #/components/schemas/A)');
  });

  it("sends an object header value as JSON, not as [object Object]", async () => {
    const document = doc({ "/who": { get: { operationId: "who", parameters: [{ name: "X-Trace", in: "header", schema: { type: "object", properties: { id: { type: "string" } } } }] } } });
    const [who] = createOpenApiToolkit({ document, baseUrl: `${server.origin}/v1`, allowedAddresses: ["127.0.0.1"] }).getTools();
    expect(echoed(await who!.invoke({ "X-Trace": { id: "t1" } } as never)).trace).toBe('{"id":"t1"}');
  });

  it("returns a retryable status of a POST as an observation (it may have been carried out), and fails a GET's retryably", async () => {
    const busy = await startTestServer((request, response) => void response.writeHead(503, { "content-type": "text/plain" }).end(`busy ${request.method}`));
    try {
      const tools = createOpenApiToolkit({ document: petsDocument, baseUrl: `${busy.origin}/v1`, allowedAddresses: ["127.0.0.1"] }).getTools();
      const createPet = tools.find((t) => t.name === "createPet")!;
      await expect(createPet.invoke({ body: { name: "Rex" } })).resolves.toBe("HTTP 503 Service Unavailable\ncontent-type: text/plain\n\nbusy POST");
      const getPet = tools.find((t) => t.name === "getPet")!;
      await expect(getPet.invoke({ petId: "1" })).rejects.toThrow(/HTTP 503 Service Unavailable from .*; try again later/);
    } finally {
      await busy.close();
    }
  });

  it("takes allowedPorts, and refuses one that leaves out the base URL's port", async () => {
    const [getPet] = toolkit({ allowedPorts: [server.port] }).getTools();
    expect(String(await getPet!.invoke({ petId: "7" }))).toContain("HTTP 200");
    expect(() => toolkit({ allowedPorts: [443] })).toThrow(
      `createOpenApiToolkit: allowedPorts (443) leaves out the port of the base URL ${server.origin} (${server.port}), so every request would be refused; add it.`,
    );
    expect(() => createOpenApiToolkit({ document: petsDocument, baseUrl: "https://x.example", allowedPorts: [443] })).not.toThrow();
  });
});

describe("createOpenApiToolkit as the document means it", () => {
  const doc = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ openapi: "3.0.3", info: { title: "x", version: "1" }, paths, ...extra });
  const post = (operationId: string, schema: unknown) => ({ post: { operationId, requestBody: { required: true, content: { "application/json": { schema } } } } });
  const sent = async (tool: { invoke: (input: never) => Promise<unknown> }, input: unknown) => JSON.parse(echoed(String(await tool.invoke(input as never))).body as string) as unknown;

  it("fills in the variables of the server URL with their defaults, and names a variable without one", async () => {
    const servers = [{ url: `${server.origin}/{version}/{area}`, variables: { version: { default: "v2", enum: ["v1", "v2"] }, area: { default: "pets" } } }];
    const [ping] = createOpenApiToolkit({ document: doc({ "/ping": { get: { operationId: "ping" } } }, { servers }), allowedAddresses: ["127.0.0.1"] }).getTools();
    expect(echoed(await ping!.invoke({})).url).toBe("/v2/pets/ping");

    const regional = doc({ "/ping": { get: { operationId: "ping" } } }, { servers: [{ url: "https://{region}.api.example.com/v1", variables: { region: { enum: ["eu", "us"] } } }] });
    expect(() => createOpenApiToolkit({ document: regional })).toThrow(
      'createOpenApiToolkit: servers[0].url "https://{region}.api.example.com/v1" has the variable {region} without a default value in servers[0].variables; pass baseUrl with a value for it filled in.',
    );
    expect(() => createOpenApiToolkit({ document: regional, baseUrl: "https://{region}.api.example.com/v1" })).toThrow(/baseUrl "https:\/\/\{region\}.api.example.com\/v1" holds a \{variable\}/);
    expect(createOpenApiToolkit({ document: regional, baseUrl: "https://eu.api.example.com/v1" }).getTools()).toHaveLength(1);
  });

  it("sends every body property the schema allows: oneOf, allOf beside properties, additionalProperties", async () => {
    const pet = { type: "object", required: ["name"], properties: { name: { type: "string" } } };
    const dog = { type: "object", required: ["name", "barks"], properties: { name: { type: "string" }, barks: { type: "boolean" } } };
    const document = doc({
      "/one": post("one", { oneOf: [pet, dog] }),
      "/all": post("all", { allOf: [pet], properties: { tag: { type: "string" } }, required: ["tag"] }),
      "/more": post("more", { type: "object", properties: { name: { type: "string" } }, additionalProperties: { type: "number" } }),
      "/closed": post("closed", { type: "object", properties: { name: { type: "string" } }, additionalProperties: false }),
    });
    const tools = Object.fromEntries(createOpenApiToolkit({ document, baseUrl: server.origin, allowedAddresses: ["127.0.0.1"] }).getTools().map((t) => [t.name, t]));
    expect(await sent(tools.one!, { body: { name: "Rex", barks: true } })).toEqual({ name: "Rex", barks: true });
    expect(await sent(tools.all!, { body: { name: "Rex", tag: "good" } })).toEqual({ name: "Rex", tag: "good" });
    await expect(tools.all!.invoke({ body: { name: "Rex" } } as never)).rejects.toThrow(/did not match expected schema/);
    expect(await sent(tools.more!, { body: { name: "Rex", weight: 30 } })).toEqual({ name: "Rex", weight: 30 });
    await expect(tools.more!.invoke({ body: { name: "Rex", weight: "heavy" } } as never)).rejects.toThrow(/did not match expected schema/);
    expect(await sent(tools.closed!, { body: { name: "Rex", extra: 1 } })).toEqual({ name: "Rex" });
  });

  it("leaves out readOnly properties, which a request need not send, even when required", async () => {
    const components = { schemas: { Id: { type: "integer", readOnly: true }, Pet: { type: "object", required: ["id", "ref", "name"], properties: { id: { type: "integer", readOnly: true }, ref: { $ref: "#/components/schemas/Id" }, name: { type: "string" } } } } };
    const document = doc({ "/pets": post("createPet", { $ref: "#/components/schemas/Pet" }) }, { components });
    const [createPet] = createOpenApiToolkit({ document, baseUrl: server.origin, allowedAddresses: ["127.0.0.1"] }).getTools();
    expect(await sent(createPet!, { body: { name: "Rex" } })).toEqual({ name: "Rex" });
  });

  it("sends an array path parameter in the simple style, each item encoded", async () => {
    const document = doc({ "/pets/{ids}": { get: { operationId: "getPets", parameters: [{ name: "ids", in: "path", required: true, schema: { type: "array", items: { type: "string" } } }] } } });
    const [getPets] = createOpenApiToolkit({ document, baseUrl: server.origin, allowedAddresses: ["127.0.0.1"] }).getTools();
    expect(echoed(await getPets!.invoke({ ids: ["1", "a/b", "c,d"] })).url).toBe("/pets/1,a%2Fb,c%2Cd");
    await expect(getPets!.invoke({ ids: [] })).rejects.toThrow(/the path parameter "ids" may not be ""/);
  });
});
