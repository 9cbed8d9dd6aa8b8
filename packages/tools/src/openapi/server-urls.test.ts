import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../http/test-server";
import { createOpenApiToolkit } from "./openapi-toolkit";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer((request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.end(`${request.method} ${request.headers.host} ${request.url}`);
  });
});
afterEach(() => server.close());

const doc = (paths: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ openapi: "3.1.0", info: { title: "x", version: "1" }, paths, ...extra });
const body = (observation: string) => observation.slice(observation.indexOf("\n\n") + 2);
/** Every host name resolves to the test server, so a request shows which host name it was sent to. */
const toLoopback = { resolver: async () => ["127.0.0.1"], allowedAddresses: ["127.0.0.1"] };

describe("createOpenApiToolkit with servers on paths and operations", () => {
  const paths = () => ({
    "/pets": { get: { operationId: "listPets" } },
    "/files": {
      servers: [{ url: `http://files.example:${server.port}/store` }],
      get: { operationId: "listFiles" },
      post: { operationId: "upload", servers: [{ url: `http://{zone}.upload.example:${server.port}`, variables: { zone: { default: "eu" } } }] },
    },
    "/reports": { get: { operationId: "report", servers: [{ url: "/analytics" }] } },
    "/exports": { get: { operationId: "exportAll", servers: [{ url: "exports" }] } },
    "/empty": { servers: [], get: { operationId: "emptyServers", servers: [] } },
  });
  const tools = (extra: Record<string, unknown> = {}) =>
    Object.fromEntries(createOpenApiToolkit({ document: doc(paths(), { servers: [{ url: `http://api.example:${server.port}/v1` }] }), ...toLoopback, ...extra }).getTools().map((t) => [t.name, t]));

  it("sends an operation to its own servers, else its path's, else the document's; relative ones resolved against the document's", async () => {
    const all = tools();
    expect(body(await all.listPets!.invoke({}))).toBe(`GET api.example:${server.port} /v1/pets`);
    expect(body(await all.listFiles!.invoke({}))).toBe(`GET files.example:${server.port} /store/files`);
    expect(body(await all.upload!.invoke({}))).toBe(`POST eu.upload.example:${server.port} /files`);
    expect(body(await all.report!.invoke({}))).toBe(`GET api.example:${server.port} /analytics/reports`);
    expect(body(await all.exportAll!.invoke({}))).toBe(`GET api.example:${server.port} /v1/exports/exports`);
    expect(body(await all.emptyServers!.invoke({}))).toBe(`GET api.example:${server.port} /v1/empty`);
  });

  it("resolves relative servers against baseUrl when it is given, and keeps the operations' absolute servers", async () => {
    const all = tools({ baseUrl: `http://staging.example:${server.port}/v2` });
    expect(body(await all.listPets!.invoke({}))).toBe(`GET staging.example:${server.port} /v2/pets`);
    expect(body(await all.report!.invoke({}))).toBe(`GET staging.example:${server.port} /analytics/reports`);
    expect(body(await all.listFiles!.invoke({}))).toBe(`GET files.example:${server.port} /store/files`);
  });

  it("allows the hosts of the servers the tools use by default, but never widens a given allowedHosts", async () => {
    const given = tools({ allowedHosts: ["api.example"] });
    expect(body(await given.listPets!.invoke({}))).toBe(`GET api.example:${server.port} /v1/pets`);
    await expect(given.listFiles!.invoke({})).rejects.toThrow(/the host "files.example" is not in allowedHosts \(api.example\)/);
    await expect(given.upload!.invoke({})).rejects.toThrow(/the host "eu.upload.example" is not in allowedHosts/);
  });

  it("needs no document-level base URL when every operation names an absolute server of its own", async () => {
    const [upload] = createOpenApiToolkit({ document: doc({ "/up": { post: { operationId: "up", servers: [{ url: `http://up.example:${server.port}` }] } } }), ...toLoopback }).getTools();
    expect(body(await upload!.invoke({}))).toBe(`POST up.example:${server.port} /up`);
    const relative = doc({ "/up": { post: { operationId: "up", servers: [{ url: "/v1" }] } } });
    expect(() => createOpenApiToolkit({ document: relative })).toThrow(/baseUrl must be an absolute http\(s\) URL/);
  });

  it("refuses, naming it, an operation's server the tool cannot send to", () => {
    const broken = (servers: unknown[]) => doc({ "/up": { post: { operationId: "up", servers } } });
    expect(() => createOpenApiToolkit({ document: broken([{ url: "https://{zone}.up.example" }]) })).toThrow(
      'createOpenApiToolkit: paths["/up"].post.servers[0].url "https://{zone}.up.example" has the variable {zone} without a default value in paths["/up"].post.servers[0].variables; give the variable a default in the document, or leave the operation out with `operations` (it is the tool up).',
    );
    expect(() => createOpenApiToolkit({ document: broken([{ url: "ftp://up.example" }]) })).toThrow(/paths\["\/up"\].post.servers\[0\].url "ftp:\/\/up.example" is not an http\(s\) URL/);
    expect(() => createOpenApiToolkit({ document: broken([{ url: "https://up.example/?key=1" }]) })).toThrow(/holds a query, a fragment or credentials/);
    expect(() => createOpenApiToolkit({ document: broken([{ url: "https://up.example" }]), allowedPorts: [8443] })).toThrow(/leaves out the port of the server of up https:\/\/up.example \(443\)/);
    const pathLevel = doc({ "/up": { servers: [{ url: 5 }], get: { operationId: "up" } } });
    expect(() => createOpenApiToolkit({ document: pathLevel, baseUrl: "https://x.example" })).toThrow(/paths\["\/up"\].servers\[0\].url 5 is not a string/);
  });
});
