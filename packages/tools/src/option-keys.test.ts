import { InvalidArgumentError } from "@agentrx/core";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCalculatorTool, createHttpRequestTool, createKnowledgeBaseTool, createOpenApiToolkit, createSafeHttpClient, withCache, withConcurrencyLimit, withRetry, withTimeout } from "./index";

const echo = tool(async ({ text }: { text: string }) => text, { name: "echo", description: "Echoes.", schema: z.object({ text: z.string() }) });
const document = { openapi: "3.0.0", info: { title: "t", version: "1" }, servers: [{ url: "https://api.example.com" }], paths: { "/ping": { get: { operationId: "ping", responses: { "200": { description: "ok" } } } } } };

describe("the tools' options refuse a misspelt key instead of keeping the default", () => {
  it.each([
    ["withRetry", () => withRetry(echo, { maxAttempt: 5 } as never), /retryPolicy: unknown option `maxAttempt`; did you mean `maxAttempts`\? Known options: maxAttempts, initialDelayMs/],
    ["withCache", () => withCache(echo, { ttl: 10 } as never), /cachePolicy: unknown option `ttl`\. Known options: ttlMs, maxEntries, key/],
    ["withTimeout", () => withTimeout(echo, { ms: 100, timeoutMs: 5 } as never), /timeoutPolicy: unknown option `timeoutMs`\. Known options: ms, retryable\./],
    ["withConcurrencyLimit", () => withConcurrencyLimit(echo, { max: 2 } as never), /concurrencyLimitPolicy: unknown option `max`\. Known options: maxConcurrent\./],
    ["createSafeHttpClient", () => createSafeHttpClient({ allowedHosts: ["api.example.com"], timeout: 10 } as never), /createSafeHttpClient: unknown option `timeout`/],
    ["createHttpRequestTool", () => createHttpRequestTool({ allowedHosts: ["api.example.com"], allowedMethod: ["POST"] } as never), /createHttpRequestTool: unknown option `allowedMethod`; did you mean `allowedMethods`\? Known options: .*allowedMethods.*retryableStatuses/],
    ["createOpenApiToolkit", () => createOpenApiToolkit({ document, operation: ["ping"] } as never), /createOpenApiToolkit: unknown option `operation`; did you mean `operations`\? Known options: .*operations/],
  ])("%s", (_name, make, message) => {
    expect(make).toThrow(InvalidArgumentError);
    expect(make).toThrow(message);
  });

  it("takes every option it documents", () => {
    expect(withRetry(echo, { maxAttempts: 2, initialDelayMs: 1, factor: 2, maxDelayMs: 5, jitter: false, isRetryable: () => true }).name).toBe("echo");
    expect(withCache(echo, { ttlMs: 10, maxEntries: 2, key: (name) => name }).name).toBe("echo");
    expect(withTimeout(echo, { ms: 100, retryable: false }).name).toBe("echo");
    expect(createHttpRequestTool({ allowedHosts: ["api.example.com"], allowedMethods: ["GET"], timeoutMs: 100, maxRedirects: 0, name: "http", description: "d", retryableStatuses: [503], allowedPorts: [443] }).name).toBe("http");
    expect(createOpenApiToolkit({ document, operations: ["ping"], timeoutMs: 100, allowedHosts: ["api.example.com"], allowedPorts: [443] }).getTools().map((t) => t.name)).toEqual(["ping"]);
  });
});

describe("the tools' options refuse a value of the wrong kind, naming it", () => {
  it.each([
    ["retryPolicy(null)", () => withRetry(echo, null as never), "retryPolicy: the options must be an object such as { maxAttempts: 3 }, got null."],
    ["cachePolicy(null)", () => withCache(echo, null as never), "cachePolicy: the options must be an object such as { ttlMs: 60_000 }, got null."],
    ["retryPolicy jitter", () => withRetry(echo, { jitter: "no" } as never), 'retryPolicy jitter must be true or false, got "no".'],
    ["headers as a string", () => createHttpRequestTool({ allowedHosts: ["api.example.com"], headers: "Bearer tok" } as never), 'headers must be an object of header values such as { authorization: "Bearer <token>" }, got "Bearer tok".'],
    ["headers as an array", () => createSafeHttpClient({ allowedHosts: ["api.example.com"], headers: ["x"] } as never), /headers must be an object of header values .*, got an array\./],
    ["allowedProtocols as a string", () => createSafeHttpClient({ allowedHosts: ["api.example.com"], allowedProtocols: "https:" } as never), /allowedProtocols must be a non-empty list of "http:" and "https:"/],
    ["allowedProtocols empty", () => createSafeHttpClient({ allowedHosts: ["api.example.com"], allowedProtocols: [] }), /allowedProtocols must be a non-empty list .*, got \[\]/],
    ["calculator name", () => createCalculatorTool({ name: 5 } as never), "createCalculatorTool: `name` must be a non-empty string (the model calls the tool by it), got 5."],
    ["calculator empty name", () => createCalculatorTool({ name: " " }), /createCalculatorTool: `name` must be a non-empty string/],
    ["http tool name", () => createHttpRequestTool({ allowedHosts: ["api.example.com"], name: "" }), /createHttpRequestTool: `name` must be a non-empty string/],
    ["knowledge base name", () => createKnowledgeBaseTool({ documents: [{ pageContent: "a" }], name: 5 } as never), /createKnowledgeBaseTool: `name` must be a non-empty string/],
  ])("%s", (_name, make, message) => {
    expect(make).toThrow(InvalidArgumentError);
    expect(make).toThrow(message);
  });
});

describe("the tools' factories refuse options that are not an object, naming them", () => {
  // They used to throw a raw TypeError for undefined and null ("Cannot read properties of undefined
  // (reading 'name')"), and the calculator took 0, "x" and [] as if no options had been given.
  const factories = {
    createCalculatorTool: (options: unknown) => createCalculatorTool(options as never),
    createHttpRequestTool: (options: unknown) => createHttpRequestTool(options as never),
    createKnowledgeBaseTool: (options: unknown) => createKnowledgeBaseTool(options as never),
    createOpenApiToolkit: (options: unknown) => createOpenApiToolkit(options as never),
    createSafeHttpClient: (options: unknown) => createSafeHttpClient(options as never),
  };
  it.each(Object.keys(factories) as (keyof typeof factories)[])("%s", (name) => {
    const values: unknown[] = name === "createCalculatorTool" ? [null, 0, "x", [], true] : [undefined, null, 0, "x", [], true];
    for (const value of values) {
      let error: unknown;
      try {
        factories[name](value);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidArgumentError.isInstance(error), `${name}(${String(value)}): ${String(error)}`).toBe(true);
      expect((error as InvalidArgumentError).argument).toBe(`${name} options`);
      expect((error as Error).message).toMatch(new RegExp(`^${name}: the options must be an object such as \\{ .+ \\}, got `));
    }
    expect(() => factories[name](null)).toThrow(`${name}: the options must be an object`);
    expect(() => factories[name]([])).toThrow(/, got an array\.$/);
  });

  it("keeps the calculator's defaults when it is given no options", () => {
    expect(createCalculatorTool().name).toBe("calculator");
    expect(createCalculatorTool(undefined).name).toBe("calculator");
  });
});
