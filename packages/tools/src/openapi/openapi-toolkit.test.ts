import { InvalidArgumentError } from "@agentrx/core";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
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
      response.end(
        JSON.stringify({ method: request.method, url: request.url, auth: request.headers.authorization ?? null, trace: request.headers["x-trace"] ?? null, cookie: request.headers.cookie ?? null, type: request.headers["content-type"] ?? null, body }),
      );
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

  it("refuses a declared path parameter the path template does not have", () => {
    const stray = constructionError(doc({ "/items": { get: { operationId: "list", parameters: [{ name: "id", in: "path", required: true }] } } }));
    expect(InvalidArgumentError.isInstance(stray)).toBe(true);
    expect(stray?.message).toContain('GET /items (list) declares the path parameter "id", which its path template does not have');
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

  it("sends an object header value in the simple style, not as [object Object]", async () => {
    const document = doc({ "/who": { get: { operationId: "who", parameters: [{ name: "X-Trace", in: "header", schema: { type: "object", properties: { id: { type: "string" } } } }] } } });
    const [who] = createOpenApiToolkit({ document, baseUrl: `${server.origin}/v1`, allowedAddresses: ["127.0.0.1"] }).getTools();
    expect(echoed(await who!.invoke({ "X-Trace": { id: "t1" } } as never)).trace).toBe("id,t1");
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

describe("createOpenApiToolkit serializes parameters and bodies as OpenAPI's style, explode and media types say", () => {
  const doc = (paths: Record<string, unknown>) => ({ openapi: "3.1.0", info: { title: "x", version: "1" }, paths });
  const toolsOf = (paths: Record<string, unknown>) =>
    Object.fromEntries(createOpenApiToolkit({ document: doc(paths), baseUrl: server.origin, allowedAddresses: ["127.0.0.1"] }).getTools().map((t) => [t.name, t]));
  const call = async (tool: { invoke: (input: never) => Promise<unknown> } | undefined, input: unknown) => echoed(String(await tool!.invoke(input as never)));
  const constructionError = (paths: Record<string, unknown>) => {
    try {
      toolsOf(paths);
    } catch (error) {
      return error as Error;
    }
    return undefined;
  };
  const object = { type: "object", additionalProperties: { type: ["string", "integer"] } };
  const strings = { type: "array", items: { type: "string" } };

  it("spells query parameters in each query style: form (exploded or not), deepObject, spaceDelimited, pipeDelimited", async () => {
    const { search } = toolsOf({
      "/q": {
        get: {
          operationId: "search",
          parameters: [
            { name: "filter", in: "query", schema: object },
            { name: "ids", in: "query", style: "form", explode: false, schema: strings },
            { name: "flat", in: "query", style: "form", explode: false, schema: object },
            { name: "deep", in: "query", style: "deepObject", explode: true, schema: object },
            { name: "spaces", in: "query", style: "spaceDelimited", schema: strings },
            { name: "pipes", in: "query", style: "pipeDelimited", schema: object },
            { name: "tag", in: "query", schema: strings },
          ],
        },
      },
    });
    const sent = await call(search, {
      filter: { color: "red blue", size: 2 },
      ids: ["1,5", "2"],
      flat: { k: "v", n: 3 },
      deep: { x: 1, "y z": "&" },
      spaces: ["a", "b c"],
      pipes: { r: 1, g: "|" },
      tag: ["a", "b"],
    });
    expect(sent.url).toBe("/q?color=red+blue&size=2&ids=1%2C5,2&flat=k,v,n,3&deep%5Bx%5D=1&deep%5By+z%5D=%26&spaces=a%20b+c&pipes=r%7C1%7Cg%7C%7C&tag=a&tag=b");
    // An empty array or object is left out, as RFC 6570 leaves out an empty list.
    expect((await call(search, { filter: {}, ids: [], tag: ["x"] })).url).toBe("/q?tag=x");
  });

  it("spells header parameters in the simple style, and path parameters in the simple, label and matrix styles", async () => {
    const { headers, paths } = toolsOf({
      "/h": {
        get: {
          operationId: "headers",
          parameters: [{ name: "X-Trace", in: "header", schema: { oneOf: [strings, object] } }],
        },
      },
      "/p/{plain}/{label}/{matrix}/{exploded}": {
        get: {
          operationId: "paths",
          parameters: [
            { name: "plain", in: "path", required: true, schema: object },
            { name: "label", in: "path", required: true, style: "label", schema: strings },
            { name: "matrix", in: "path", required: true, style: "matrix", explode: true, schema: object },
            { name: "exploded", in: "path", required: true, explode: true, schema: object },
          ],
        },
      },
    });
    expect((await call(headers, { "X-Trace": ["a", "b"] })).trace).toBe("a,b");
    expect((await call(headers, { "X-Trace": { id: "t1", n: 2 } })).trace).toBe("id,t1,n,2");
    const sent = await call(paths, { plain: { a: "x/y" }, label: ["1", "2"], matrix: { r: 1, g: 2 }, exploded: { k: "v w" } });
    expect(sent.url).toBe("/p/a,x%2Fy/.1,2/;r=1;g=2/k=v%20w");
    const dots = await paths!.invoke({ plain: { a: "x" }, label: ["."], matrix: { r: 1 }, exploded: { k: "v" } } as never).catch((error: unknown) => error);
    expect((dots as RequestRefusedError).reason).toBe("invalid_path_parameter");
    expect((dots as Error).message).toContain('the path parameter "label" may not be ".."');
  });

  it("sends a content parameter as the text of its media type, JSON for a JSON type", async () => {
    const { near } = toolsOf({
      "/near": { get: { operationId: "near", parameters: [{ name: "at", in: "query", content: { "application/json": { schema: { type: "object", properties: { lat: { type: "number" } } } } } }] } },
    });
    expect((await call(near, { at: { lat: 1.5 } })).url).toBe("/near?at=%7B%22lat%22%3A1.5%7D");
  });

  it("refuses, naming the parameter, a nested value its style cannot spell, before sending anything", async () => {
    const { search } = toolsOf({ "/q": { get: { operationId: "search", parameters: [{ name: "free", in: "query", schema: { type: "object" } }] } } });
    const error = await search!.invoke({ free: { a: { b: 1 } } } as never).catch((caught: unknown) => caught);
    expect(RequestRefusedError.isInstance(error)).toBe(true);
    expect((error as RequestRefusedError).reason).toBe("invalid_parameter");
    expect((error as Error).message).toContain('the query parameter "free" cannot be sent: "free.a" is a nested object or array');
    expect(server.requests).toHaveLength(0);
  });

  it("refuses, when the tools are built, a style OpenAPI does not allow for the parameter's place, or an undefined explode", () => {
    const op = (parameter: Record<string, unknown>) => ({ "/a/{p}": { get: { operationId: "a", parameters: [{ name: "p", in: "path", required: true }, parameter] } } });
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "q", in: "query", style: "simple" }, 'the query parameter "q" of GET /a/{p} has the style "simple", which OpenAPI does not allow in a query; a query parameter\'s style is form, spaceDelimited, pipeDelimited or deepObject'],
      [{ name: "X-A", in: "header", style: "form" }, 'the header parameter "X-A" of GET /a/{p} has the style "form", which OpenAPI does not allow in a header; a header parameter\'s style is simple'],
      [{ name: "q", in: "query", style: "pipeDelimited", explode: true, schema: strings }, "has the style pipeDelimited with explode: true, which OpenAPI leaves undefined"],
      [{ name: "q", in: "query", style: "deepObject", explode: false, schema: object }, "has the style deepObject with explode: false, which OpenAPI leaves undefined"],
      [{ name: "q", in: "query", style: "deepObject", schema: { type: "string" } }, "has the style deepObject, which sends an object, but its schema's type is string"],
      [{ name: "q", in: "query", explode: "yes" }, 'has explode "yes"; explode is true or false'],
      [{ name: "q", in: "query", content: { "application/json": {}, "text/plain": {} } }, "has a content with 2 media types; OpenAPI requires exactly one"],
    ];
    for (const [parameter, message] of cases) {
      const error = constructionError(op(parameter));
      expect(InvalidArgumentError.isInstance(error), message).toBe(true);
      expect(error?.message).toContain(message);
    }
    const path = constructionError({ "/a/{p}": { get: { operationId: "a", parameters: [{ name: "p", in: "path", required: true, style: "form" }] } } });
    expect(path?.message).toContain('the path parameter "p" of GET /a/{p} has the style "form", which OpenAPI does not allow in a path; a path parameter\'s style is simple, label or matrix');
  });

  it("sends an application/x-www-form-urlencoded body as a form, objects as JSON unless their encoding gives a style", async () => {
    const form = (encoding?: Record<string, unknown>) => ({
      required: true,
      content: { "application/x-www-form-urlencoded": { schema: { type: "object", properties: { name: { type: "string" }, tags: strings, meta: object } }, ...(encoding ? { encoding } : {}) } },
    });
    const { plain, styled } = toolsOf({
      "/plain": { post: { operationId: "plain", requestBody: form() } },
      "/styled": { post: { operationId: "styled", requestBody: form({ meta: { style: "deepObject", explode: true }, tags: { style: "form", explode: false } }) } },
    });
    const body = { name: "Rex & co", tags: ["a", "b"], meta: { k: 1 } };
    const sent = await call(plain, { body });
    expect(sent.type).toBe("application/x-www-form-urlencoded");
    expect(sent.body).toBe("name=Rex+%26+co&tags=a&tags=b&meta=%7B%22k%22%3A1%7D");
    expect((await call(styled, { body })).body).toBe("name=Rex+%26+co&tags=a,b&meta%5Bk%5D=1");
  });

  it("spells a form body property whose encoding gives a style as a query parameter of that style: delimiters literal, members encoded", async () => {
    const styles = [
      ["ids", { style: "form", explode: false }, strings],
      ["flat", { style: "form", explode: false }, object],
      ["spaces", { style: "spaceDelimited" }, strings],
      ["pipes", { style: "pipeDelimited" }, object],
      ["raw", { explode: false, allowReserved: true }, strings],
      ["tag", { style: "form", explode: true }, strings],
    ] as const;
    const { search, post } = toolsOf({
      "/q": {
        get: { operationId: "search", parameters: styles.map(([name, style, schema]) => ({ name, in: "query", ...style, schema })) },
        post: {
          operationId: "post",
          requestBody: {
            content: {
              "application/x-www-form-urlencoded": {
                schema: { type: "object", properties: Object.fromEntries(styles.map(([name, , schema]) => [name, schema])) },
                encoding: Object.fromEntries(styles.map(([name, style]) => [name, style])),
              },
            },
          },
        },
      },
    });
    const values = { ids: ["1,5", "2 3", "é&"], flat: { k: "v,w", n: 3 }, spaces: ["a", "b c"], pipes: { r: 1, g: "|" }, raw: ["a/b", "c,d&e"], tag: ["x", "y"] };
    const expected = "ids=1%2C5,2+3,%C3%A9%26&flat=k,v%2Cw,n,3&spaces=a%20b+c&pipes=r%7C1%7Cg%7C%7C&raw=a/b,c,d%26e&tag=x&tag=y";
    const sent = await call(post, { body: values });
    expect(sent.body).toBe(expected);
    // The same spelling as the query parameters of those styles: one serializer for both.
    expect(sent.url).toBe("/q");
    expect((await call(search, values)).url).toBe(`/q?${expected}`);
    // Split at its literal commas, then decoded, the list gives back each member, commas inside included.
    const decode = (text: string) => new URLSearchParams(`v=${text}`).get("v");
    expect(String(sent.body).split("&")[0]!.slice("ids=".length).split(",").map(decode)).toEqual(values.ids);
  });

  it("sends a multipart/form-data body as well-formed parts, an object as a JSON part", async () => {
    const { upload } = toolsOf({
      "/upload": {
        post: {
          operationId: "upload",
          requestBody: { content: { "multipart/form-data": { schema: { type: "object", properties: { name: { type: "string" }, tags: strings, meta: object } } } } },
        },
      },
    });
    const sent = await call(upload, { body: { name: 'Rex "the dog"', tags: ["a", "b"], meta: { k: 1 } } });
    expect(sent.type).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.body).toContain('Content-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"k":1}\r\n');
    const parsed = await new Response(sent.body as string, { headers: { "content-type": sent.type as string } }).formData();
    expect(Object.fromEntries(["name", "tags", "meta"].map((name) => [name, parsed.getAll(name)]))).toEqual({ name: ['Rex "the dog"'], tags: ["a", "b"], meta: ['{"k":1}'] });
  });
});

describe("createOpenApiToolkit sends cookie parameters", () => {
  const doc = (paths: Record<string, unknown>) => ({ openapi: "3.1.1", info: { title: "x", version: "1" }, paths });
  const build = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    Object.fromEntries(createOpenApiToolkit({ document: doc(paths), baseUrl: server.origin, allowedAddresses: ["127.0.0.1"], ...extra }).getTools().map((t) => [t.name, t]));
  const call = async (tool: { invoke: (input: never) => Promise<unknown> } | undefined, input: unknown) => echoed(String(await tool!.invoke(input as never)));
  const strings = { type: "array", items: { type: "string" } };
  const object = { type: "object", additionalProperties: { type: ["string", "integer"] } };
  const me = (parameters: unknown[]) => ({ "/me": { get: { operationId: "me", parameters } } });

  it("sends them in one Cookie header in the form style, each value percent-encoded, beside the fixed cookie, which wins", async () => {
    const paths = me([
      { name: "session", in: "cookie", required: true, schema: { type: "string" } },
      { name: "theme", in: "cookie", schema: { type: "string" } },
      { name: "ids", in: "cookie", explode: false, schema: strings },
      { name: "tags", in: "cookie", schema: strings },
      { name: "prefs", in: "cookie", style: "form", explode: true, schema: object },
      { name: "lang", in: "cookie", content: { "application/json": { schema: object } } },
    ]);
    const { me: tool } = build(paths, { headers: { Cookie: "session=abc" } });
    const sent = await call(tool, { theme: "dark; admin=1\r\nX-Evil: 1", ids: ["1", "2,3"], tags: ["a", "b"], prefs: { R: 100, session: "forged", "a b": "é" }, lang: { main: "en" } });
    expect(sent.cookie).toBe("session=abc; theme=dark%3B%20admin%3D1%0D%0AX-Evil%3A%201; ids=1,2%2C3; tags=a; tags=b; R=100; a%20b=%C3%A9; lang=%7B%22main%22%3A%22en%22%7D");
    // Without a value, nothing of the model's is sent; the fixed cookie alone is.
    expect((await call(tool, {})).cookie).toBe("session=abc");
    // A cookie the fixed headers do not send is the model's to give: required stays required.
    const { me: open } = build(paths);
    await expect(open!.invoke({ theme: "dark" } as never)).rejects.toThrow(/session/);
    expect((await call(open, { session: "s 1", theme: "", ids: [] })).cookie).toBe("session=s%201; theme=");
  });

  it("refuses a value no cookie can carry, naming the parameter, before sending anything", async () => {
    const { me: tool } = build(me([{ name: "prefs", in: "cookie", schema: object }, { name: "theme", in: "cookie", schema: { type: "string" } }]));
    for (const [input, message] of [
      [{ prefs: { "": "x" } }, 'the cookie parameter "prefs" cannot be sent: "prefs" has an empty property name'],
      [{ theme: "\ud800" }, 'the cookie parameter "theme" cannot be sent: "theme" holds a lone UTF-16 surrogate'],
    ] as const) {
      const error = await tool!.invoke(input as never).catch((caught: unknown) => caught);
      expect((error as RequestRefusedError).reason).toBe("invalid_parameter");
      expect((error as Error).message).toContain(message);
    }
    expect(server.requests).toHaveLength(0);
  });

  it("refuses, when the tools are built, a cookie style other than form, and a name that is no cookie name", () => {
    const cases: [unknown[], string][] = [
      [[{ name: "c", in: "cookie", style: "simple" }], 'the cookie parameter "c" of GET /me has the style "simple", which OpenAPI does not allow in a cookie; a cookie parameter\'s style is form'],
      [[{ name: "c", in: "cookie", style: "cookie" }], 'the cookie parameter "c" of GET /me has the style "cookie" (OpenAPI 3.2), which sends its value unencoded and is not supported; use the form style'],
      [[{ name: "a b", in: "cookie" }], 'the cookie parameter "a b" of GET /me is not a valid cookie name'],
    ];
    for (const [parameters, message] of cases) {
      expect(() => build(me(parameters)), message).toThrow(message);
    }
  });
});

describe("createOpenApiToolkit with header parameters for the headers the tool sets itself", () => {
  const doc = (paths: Record<string, unknown>) => ({ openapi: "3.1.1", info: { title: "x", version: "1" }, paths });
  const build = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    Object.fromEntries(createOpenApiToolkit({ document: doc(paths), baseUrl: server.origin, allowedAddresses: ["127.0.0.1"], ...extra }).getTools().map((t) => [t.name, t]));
  const call = async (tool: { invoke: (input: never) => Promise<unknown> } | undefined, input: unknown) => echoed(String(await tool!.invoke(input as never)));
  const constructionError = (paths: Record<string, unknown>, extra?: Record<string, unknown>) => {
    try {
      build(paths, extra);
    } catch (error) {
      return error as Error;
    }
    return undefined;
  };

  it("ignores header parameters named Accept, Content-Type and Authorization, as OpenAPI says", async () => {
    const { a } = build({
      "/a": {
        post: {
          operationId: "a",
          parameters: [
            { name: "Accept", in: "header", required: true, schema: { type: "string" } },
            { name: "content-type", in: "header", schema: { type: "string" } },
            { name: "AUTHORIZATION", in: "header", required: true, schema: { type: "string" } },
            { name: "X-Trace", in: "header", schema: { type: "string" } },
          ],
          requestBody: { content: { "application/json": { schema: { type: "object" } } } },
        },
      },
    });
    // Not arguments of the tool: required as they are, a call without them is sent.
    const sent = await call(a, { "X-Trace": "t", body: { k: 1 } });
    expect([sent.trace, sent.type, sent.auth, sent.body]).toEqual(["t", "application/json", null, '{"k":1}']);
    // Given anyway, they are not sent.
    const given = await call(a, { Accept: "text/evil", "content-type": "text/evil", AUTHORIZATION: "Bearer evil", body: { k: 1 } });
    expect([given.type, given.auth]).toEqual(["application/json", null]);
    expect(server.requests[1]!.headers.accept).toBeUndefined();
  });

  it("refuses a header parameter named Cookie beside cookie parameters when the tools are built, naming it, unless the fixed headers send a cookie; alone, it is sent as given", async () => {
    const me = (parameters: unknown[]) => ({ "/me": { get: { operationId: "me", parameters } }, "/other": { get: { operationId: "other" } } });
    for (const parameters of [[{ name: "c", in: "cookie" }, { name: "Cookie", in: "header", schema: { type: "string" } }], [{ name: "c", in: "cookie" }, { name: "cookie", in: "header", required: true }]]) {
      const error = constructionError(me(parameters));
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect(error?.message).toContain(`GET /me (me) has a header parameter named "${(parameters.at(-1) as { name: string }).name}" beside cookie parameters, which would both set the Cookie header`);
      expect(error?.message).toContain("declare each cookie as an `in: cookie` parameter only");
    }
    // Alone, its text is the header's, as the document has it.
    const { me: alone } = build(me([{ name: "Cookie", in: "header", schema: { type: "string" } }]));
    expect((await call(alone, { Cookie: "a=1; b=2" })).cookie).toBe("a=1; b=2");
    const parameters = [{ name: "Cookie", in: "header", required: true, schema: { type: "string" } }, { name: "c", in: "cookie", schema: { type: "string" } }];
    // Left out with `operations`, the operation no longer stands in the way of the others.
    expect(Object.keys(build(me(parameters), { operations: ["other"] }))).toEqual(["other"]);
    // A fixed cookie stands in for the parameter: it is no argument, and the model's cookies join the fixed one.
    const { me: tool } = build(me(parameters), { headers: { Cookie: "session=abc" } });
    expect((await call(tool, { Cookie: "admin=1", c: "x y" })).cookie).toBe("session=abc; c=x%20y");
  });

  it("leaves out a header parameter whose header the fixed headers set, in any case, even when required: the fixed value is sent once", async () => {
    const paths = {
      "/me": {
        get: {
          operationId: "me",
          parameters: [
            { name: "X-Trace", in: "header", required: true, schema: { type: "string" }, description: "The caller's trace id." },
            { name: "X-Other", in: "header", schema: { type: "string" } },
          ],
        },
      },
    };
    const { me: tool } = build(paths, { headers: { "x-TRACE": "fixed" } });
    // What the model is shown: the tool's arguments as JSON Schema.
    const argumentsOf = (t: typeof tool) => toJsonSchema(t!.schema as Parameters<typeof toJsonSchema>[0]) as { properties?: Record<string, unknown>; required?: string[] };
    expect(Object.keys(argumentsOf(tool).properties ?? {})).toEqual(["X-Other"]);
    expect(argumentsOf(tool).required ?? []).toEqual([]);
    // Required in the document, yet a call without it is sent, with the fixed value.
    expect((await call(tool, {})).trace).toBe("fixed");
    // Given anyway, the model's value is not sent beside or instead of the fixed one.
    expect((await call(tool, { "X-Trace": "forged", "X-Other": "o" })).trace).toBe("fixed");
    const { rawHeaders, headers } = server.requests[1]!;
    expect(rawHeaders.filter((name, i) => i % 2 === 0 && name.toLowerCase() === "x-trace")).toHaveLength(1);
    expect([headers["x-trace"], headers["x-other"]]).toEqual(["fixed", "o"]);
    // A header the fixed headers do not set is the model's to give: required stays required.
    const { me: open } = build(paths, { headers: { "x-api-key": "k" } });
    expect(argumentsOf(open)).toMatchObject({ properties: { "X-Trace": { description: "The caller's trace id." }, "X-Other": {} }, required: ["X-Trace"] });
    await expect(open!.invoke({} as never)).rejects.toThrow(/X-Trace/);
  });
});

describe("createOpenApiToolkit with allowReserved", () => {
  const doc = (paths: Record<string, unknown>) => ({ openapi: "3.1.1", info: { title: "x", version: "1" }, paths });
  const build = (paths: Record<string, unknown>) =>
    Object.fromEntries(createOpenApiToolkit({ document: doc(paths), baseUrl: server.origin, allowedAddresses: ["127.0.0.1"] }).getTools().map((t) => [t.name, t]));
  const call = async (tool: { invoke: (input: never) => Promise<unknown> } | undefined, input: unknown) => echoed(String(await tool!.invoke(input as never)));
  const text = "/a:b?c@d!$'()*,;e&f=g+h#i[j] k%2F%zz";

  it("leaves a query value's reserved characters unencoded, but for those that would change the query", async () => {
    const { find } = build({
      "/find/{p}": {
        get: {
          operationId: "find",
          parameters: [
            { name: "p", in: "path", required: true, allowReserved: true },
            { name: "raw", in: "query", allowReserved: true, schema: { type: "string" } },
            { name: "list", in: "query", allowReserved: true, explode: false, schema: { type: "array", items: { type: "string" } } },
            { name: "plain", in: "query", schema: { type: "string" } },
          ],
        },
      },
    });
    const sent = await call(find, { p: "x/y", raw: text, list: ["a/b", "c"], plain: "a/b" });
    // `'` is sent as %27: the URL standard encodes it in an http(s) query.
    expect(sent.url).toBe("/find/x%2Fy?raw=/a:b?c@d!$%27()*,;e%26f%3Dg%2Bh%23i%5Bj%5D%20k%2F%25zz&list=a/b,c&plain=a%2Fb");
    expect(new URL(`http://x${String(sent.url)}`).searchParams.get("raw")).toBe(text.replace("%2F", "/"));
  });

  it("leaves a form body property's reserved characters unencoded when its encoding says allowReserved", async () => {
    const { post } = build({
      "/post": {
        post: {
          operationId: "post",
          requestBody: {
            content: {
              "application/x-www-form-urlencoded": {
                schema: { type: "object", properties: { raw: { type: "string" }, plain: { type: "string" } } },
                encoding: { raw: { allowReserved: true } },
              },
            },
          },
        },
      },
    });
    const sent = await call(post, { body: { raw: text, plain: "a/b" } });
    expect(sent.body).toBe("raw=/a:b?c@d!$'()*,;e%26f%3Dg%2Bh%23i%5Bj%5D%20k%2F%25zz&plain=a%2Fb");
    expect(new URLSearchParams(String(sent.body)).get("raw")).toBe(text.replace("%2F", "/"));
  });

  it("refuses an allowReserved that is not a boolean when the tools are built", () => {
    expect(() => build({ "/q": { get: { operationId: "q", parameters: [{ name: "q", in: "query", allowReserved: "yes" }] } } })).toThrow(
      'the query parameter "q" of GET /q has allowReserved "yes"; allowReserved is true or false',
    );
    const encoding = { content: { "application/x-www-form-urlencoded": { schema: { type: "object" }, encoding: { q: { allowReserved: 1 } } } } };
    expect(() => build({ "/q": { post: { operationId: "q", requestBody: encoding } } })).toThrow('has allowReserved 1; allowReserved is true or false');
  });
});
