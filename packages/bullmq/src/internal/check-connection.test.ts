// The `connection` option of RunClient and createRunWorker: ioredis options of the wrong type, or
// misspelt, are refused where they are given (no connection is opened), and an ioredis instance or
// the options ioredis takes are let through.
import { InvalidArgumentError } from "@agentrx/core";
import { MemoryRunStore } from "@agentrx/runs";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { RunClient } from "../client/run-client";
import { doublingExecutor } from "../test-helpers/doubling-agent";
import { createRunWorker } from "../worker/create-run-worker";

const store = new MemoryRunStore();
const makers = {
  RunClient: (connection: unknown) => new RunClient({ connection: connection as never, store }),
  createRunWorker: (connection: unknown) => createRunWorker({ connection: connection as never, store, executors: { double: () => doublingExecutor() } }),
};

describe.each(Object.entries(makers))("%s's connection", (where, make) => {
  it.each([
    [{ url: 5 }, "connection.url", /a Redis URL \("redis:\/\/host:port", "rediss:\/\/\.\.\."\) or a socket path, got 5/],
    [{ url: "not a url" }, "connection.url", /a Redis URL .* got "not a url"/],
    [{ url: "http://127.0.0.1:6379" }, "connection.url", /a Redis URL/],
    [{ url: "" }, "connection.url", /a Redis URL/],
    [{ port: "abc" }, "connection.port", /an integer from 0 to 65535, got "abc"/],
    [{ port: 70000 }, "connection.port", /an integer from 0 to 65535/],
    [{ port: 6379.5 }, "connection.port", /an integer from 0 to 65535/],
    [{ host: 5 }, "connection.host", /a host name or address \(a non-empty string\), got 5/],
    [{ path: "" }, "connection.path", /a Unix socket path/],
    [{ db: -1 }, "connection.db", /an integer >= 0, got -1/],
    [{ db: "0" }, "connection.db", /an integer >= 0/],
    [{ password: 1234 }, "connection.password", /a string, got "\(a number\)"/],
    [{ username: {} }, "connection.username", /a string, got "\(an object\)"/],
    [{ url: "http://user:secret@127.0.0.1:6379" }, "connection.url", /got "http:\/\/\*\*\*@127\.0\.0\.1:6379"/],
    [{ tls: 1 }, "connection.tls", /TLS options/],
    [{ family: 5 }, "connection.family", /4, 6 or 0/],
    [{ hots: "127.0.0.1" }, "connection.hots", /unknown option `connection.hots`: not an option ioredis takes; did you mean `host`\?/],
    [{ host: "127.0.0.1", Port: 6379 }, "connection.Port", /did you mean `port`\?/],
    [{ host: "127.0.0.1", maxRetriesPerRequests: null }, "connection.maxRetriesPerRequests", /did you mean `maxRetriesPerRequest`\?/],
    [{ bogus: 1 }, "connection.bogus", /not an option ioredis takes.*pass an ioredis instance/],
  ])("refuses %j naming the option", (connection, argument, message) => {
    let caught: unknown;
    try {
      make(connection);
    } catch (error) {
      caught = error;
    }
    expect(InvalidArgumentError.isInstance(caught)).toBe(true);
    expect((caught as InvalidArgumentError).argument).toBe(argument);
    expect((caught as Error).message).toMatch(new RegExp(`^${where}: `));
    expect((caught as Error).message).toMatch(message);
  });

  it("takes the ioredis options, a URL in the forms ioredis reads, and an ioredis instance as they are", async () => {
    const good: unknown[] = [
      { host: "127.0.0.1", port: 6379 },
      { host: "127.0.0.1", port: "6379", db: 2, password: "secret", username: "app", family: 4 },
      { url: "redis://127.0.0.1:6379/0" },
      { url: "rediss://user:pass@redis.example.com:6380", tls: {} },
      { url: "127.0.0.1:6379" },
      { url: "/tmp/redis.sock" },
      { path: "/tmp/redis.sock" },
      { host: "127.0.0.1", password: null, username: undefined, tls: undefined, keyPrefix: "", connectTimeout: 1000, retryStrategy: () => 50, lazyConnect: true, skipVersionCheck: true, enableOfflineQueue: false, maxRetriesPerRequest: null, sentinels: [{ host: "a", port: 26379 }], name: "mymaster" },
      new Redis({ lazyConnect: true, maxRetriesPerRequest: null }),
    ];
    for (const connection of good) {
      const made = make(connection);
      if (made instanceof RunClient) await made.close();
      else await made.close({ gracePeriodMs: 0, forceAfterMs: 100 }).catch(() => undefined);
    }
    (good.at(-1) as Redis).disconnect();
  });
});
