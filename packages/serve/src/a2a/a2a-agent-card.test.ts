import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, get } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientFactory } from "@a2a-js/sdk/client";
import { AgentExecutor } from "@agentrx/executors";
import { type A2AAgentCardInput, createA2AHandler } from "@agentrx/serve";
import { RunnableLambda } from "@langchain/core/runnables";
import { afterEach, describe, expect, it } from "vitest";
import { closeLoopback, startLoopback } from "../../../runs/src/sse/loopback-test-server";

afterEach(closeLoopback);

const executor = () => new AgentExecutor({ agent: RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" })), tools: [] });

/** A card with every field of an A2A 1.0 card set, each security scheme and OAuth flow kind among them. */
const fullCard: A2AAgentCardInput = {
  name: "Weather",
  description: "Tells the weather.",
  provider: { url: "https://example.com", organization: "Example" },
  version: "2.1.0",
  documentationUrl: "https://example.com/docs",
  iconUrl: "https://example.com/icon.png",
  capabilities: {
    streaming: true,
    pushNotifications: false,
    extensions: [{ uri: "https://example.com/ext/region", description: "Where it works.", required: false, params: { regions: ["eu", "us"], vendor: { tier: "gold" } } }],
    extendedAgentCard: false,
  },
  securitySchemes: {
    bearer: { scheme: { $case: "httpAuthSecurityScheme", value: { description: "A JWT.", scheme: "Bearer", bearerFormat: "JWT" } } },
    key: { scheme: { $case: "apiKeySecurityScheme", value: { description: "", location: "header", name: "X-API-Key" } } },
    oauth: {
      scheme: {
        $case: "oauth2SecurityScheme",
        value: {
          description: "OAuth.",
          flows: { flow: { $case: "authorizationCode", value: { authorizationUrl: "https://auth.example.com/authorize", tokenUrl: "https://auth.example.com/token", refreshUrl: "", scopes: { read: "Reads." }, pkceRequired: true } } },
          oauth2MetadataUrl: "https://auth.example.com/.well-known/oauth-authorization-server",
        },
      },
    },
    oidc: { scheme: { $case: "openIdConnectSecurityScheme", value: { description: "", openIdConnectUrl: "https://auth.example.com/.well-known/openid-configuration" } } },
    mtls: { scheme: { $case: "mtlsSecurityScheme", value: { description: "Client certificates." } } },
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { oauth: { list: ["read"] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain", "application/json"],
  skills: [{ id: "forecast", name: "Forecast", description: "The next days.", tags: ["weather"], examples: ["Rain in Paris?"], inputModes: ["text/plain"], outputModes: [], securityRequirements: [{ schemes: { key: { list: [] } } }] }],
  signatures: [{ protected: "eyJhbGciOiJFUzI1NiJ9", signature: "c2lnbmF0dXJl", header: { kid: "key-1" } }],
};

describe("createA2AHandler's agent card", () => {
  it("publishes every field given, as A2A 1.0 JSON (a security scheme and an OAuth flow keyed by their case), and @a2a-js/sdk's client reads them back unchanged", async () => {
    const handler = createA2AHandler(executor(), { agentCard: fullCard });
    const origin = await startLoopback(handler);
    const { supportedInterfaces, ...published } = await (await fetch(`${origin}/.well-known/agent-card.json`)).json();
    expect(published).toEqual({
      ...fullCard,
      securitySchemes: {
        bearer: { httpAuthSecurityScheme: { description: "A JWT.", scheme: "Bearer", bearerFormat: "JWT" } },
        key: { apiKeySecurityScheme: { description: "", location: "header", name: "X-API-Key" } },
        oauth: {
          oauth2SecurityScheme: {
            description: "OAuth.",
            flows: { authorizationCode: { authorizationUrl: "https://auth.example.com/authorize", tokenUrl: "https://auth.example.com/token", refreshUrl: "", scopes: { read: "Reads." }, pkceRequired: true } },
            oauth2MetadataUrl: "https://auth.example.com/.well-known/oauth-authorization-server",
          },
        },
        oidc: { openIdConnectSecurityScheme: { description: "", openIdConnectUrl: "https://auth.example.com/.well-known/openid-configuration" } },
        mtls: { mtlsSecurityScheme: { description: "Client certificates." } },
      },
    });
    expect(supportedInterfaces[0]).toEqual({ url: `${origin}/`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" });

    const client = await new ClientFactory().createFromUrl(origin);
    const read = await client.getAgentCard();
    expect(read).toEqual({ ...fullCard, supportedInterfaces });
  });

  it("fills the capabilities left out, and publishes a card whose security schemes are left out", async () => {
    const handler = createA2AHandler(executor(), { agentCard: { name: "Weather", description: "Tells the weather.", capabilities: { pushNotifications: false, extensions: [] } } });
    const origin = await startLoopback(handler);
    const published = await (await fetch(`${origin}/.well-known/agent-card.json`)).json();
    expect(published).toMatchObject({ capabilities: { streaming: true, pushNotifications: false, extensions: [] }, securitySchemes: {}, skills: [], version: "1.0.0" });
    expect(await (await new ClientFactory().createFromUrl(origin)).getAgentCard()).toMatchObject({ name: "Weather", capabilities: { streaming: true } });
  });

  it("advertises an https endpoint when served over TLS", async () => {
    // A self-signed certificate for 127.0.0.1, made here (openssl), valid for a day.
    const dir = mkdtempSync(join(tmpdir(), "a2a-tls-"));
    try {
      execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
      const cert = readFileSync(join(dir, "cert.pem"));
      const server = createServer({ key: readFileSync(join(dir, "key.pem")), cert }, createA2AHandler(executor(), { agentCard: { name: "Weather", description: "Tells the weather." }, path: "/a2a" }));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      try {
        const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const published = await new Promise<{ supportedInterfaces: { url: string }[] }>((resolve, reject) => {
          get(`${origin}/.well-known/agent-card.json`, { ca: cert }, (response) => {
            let body = "";
            response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
            response.on("end", () => resolve(JSON.parse(body))).on("error", reject);
          }).on("error", reject);
        });
        expect(published.supportedInterfaces.map((item) => item.url)).toEqual([`${origin}/a2a`, `${origin}/a2a`]);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ["a field of your own", { "x-vendor-tier": "gold" }, "`agentCard.x-vendor-tier` is not a field of an A2A 1.0 agent card; data of your own goes in an extension's `params` (`capabilities.extensions`)."],
    ["a misspelt field", { iconURL: "https://example.com/icon.png" }, "`agentCard.iconURL` is not a field of an A2A 1.0 agent card; did you mean `iconUrl`?"],
    ["a field of A2A 0.3", { supportsAuthenticatedExtendedCard: true }, "`agentCard.supportsAuthenticatedExtendedCard` is not a field of an A2A 1.0 agent card; A2A 1.0 says it in `capabilities.extendedAgentCard`."],
    ["a misspelt capability", { capabilities: { streamng: false } }, "`agentCard.capabilities.streamng` is not a capability of an A2A 1.0 agent card; did you mean `streaming`?"],
    ["a capability of A2A 0.3", { capabilities: { stateTransitionHistory: true } }, "`agentCard.capabilities.stateTransitionHistory` is not a capability of an A2A 1.0 agent card"],
    ["a capability of the wrong type", { capabilities: { streaming: "no" } }, "`agentCard.capabilities.streaming` must be a boolean, got \"no\"."],
    ["capabilities that are not an object", { capabilities: [] }, "`agentCard.capabilities` must be an object"],
    ["a security scheme in A2A's JSON form", { securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } } }, "security scheme `bearer` must be in the SDK's form"],
  ])("refuses %s when the handler is made, naming it", (_name, extra, message) => {
    const made = () => createA2AHandler(executor(), { agentCard: { name: "Weather", description: "Tells the weather.", ...extra } as A2AAgentCardInput });
    expect(made).toThrow(expect.objectContaining({ name: "InvalidArgumentError", message: expect.stringContaining(message) }));
  });
});
