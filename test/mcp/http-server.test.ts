// MCP tools from a server over Streamable HTTP on loopback (written with the official SDK), loaded
// with @langchain/mcp-adapters and run by AgentExecutor: object schemas, failures, cancellation
// that reaches the server, a server that lists 200 tools, a server that goes away mid-run, and the
// tool policies of @agentrx/tools, each checked on the server's side.
import { AbortError } from "@agentrx/core";
import type { StepEvent } from "@agentrx/executors";
import { cachePolicy, concurrencyLimitPolicy, retryPolicy, timeoutPolicy, withPolicies } from "@agentrx/tools";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { lastValueFrom } from "rxjs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startHttpFixtureServer, type HttpFixtureServer } from "./fixtures/http-server";
import { allEvents, byName, observations, scriptedExecutor, waitFor } from "./support";

describe("MCP tools over Streamable HTTP", () => {
  let server: HttpFixtureServer;
  let client: MultiServerMCPClient;
  let tools: StructuredToolInterface[];
  beforeAll(async () => {
    server = await startHttpFixtureServer();
    client = new MultiServerMCPClient({ mcpServers: { remote: { transport: "http", url: server.url } } });
    tools = await client.getTools();
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it("runs an agent's calls with object arguments; the observations are the server's answers", async () => {
    const { executor } = scriptedExecutor(
      [
        { toolCalls: [{ name: "create_ticket", args: { customer: { id: "C-9", email: "bo@example.com" }, priority: "low" } }] },
        { toolCalls: [{ name: "get_forecast", args: { city: "Rome" } }] },
        "Ticket open; Rome is clear.",
      ],
      tools,
    );
    const events = await allEvents(executor.stream({ input: "Open a ticket, then Rome weather" }));

    expect(observations(events)).toEqual([
      { tool: "create_ticket", observation: "ticket T-1 opened for C-9 (low)" },
      { tool: "get_forecast", observation: "Rome: clear, 26°C" },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "Ticket open; Rome is clear.", stopReason: "finish" });
    expect(server.events.filter((event) => event.type === "started").map((event) => [event.tool, event.args])).toEqual([
      ["create_ticket", { customer: { id: "C-9", email: "bo@example.com" }, priority: "low" }],
      ["get_forecast", { city: "Rome" }],
    ]);
  });

  it("turns a tool's error result into an observation", async () => {
    const { executor } = scriptedExecutor([{ toolCalls: [{ name: "lookup_order", args: { orderId: "Q0" } }] }, "No such order."], tools);
    const events = await allEvents(executor.stream({ input: "Where is Q0?" }));

    expect(observations(events)).toEqual([
      { tool: "lookup_order", observation: `Tool "lookup_order" failed with error: MCP tool 'lookup_order' on server 'remote' returned an error: No order with id "Q0".` },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "finish" });
  });

  it("cancels the server's request when the run's AbortSignal fires", async () => {
    const { executor } = scriptedExecutor([{ toolCalls: [{ name: "slow_report", args: { topic: "http-abort", ms: 20_000 } }] }, "unreachable"], tools);
    const controller = new AbortController();
    const run = lastValueFrom(executor.invoke({ input: "Report" }, { signal: controller.signal }));
    const started = await waitFor(() => server.events.find((event) => event.type === "started" && event.args.topic === "http-abort"));
    controller.abort(new Error("the user left"));

    expect(AbortError.isInstance(await run.catch((thrown: unknown) => thrown))).toBe(true);
    const cancelled = await waitFor(() => server.events.find((event) => event.type === "cancelled" && event.requestId === started.requestId));
    expect(cancelled).toMatchObject({ tool: "slow_report", reason: expect.stringContaining("the user left") });
  });

  it("cancels the server's request when the stream's subscriber unsubscribes", async () => {
    const { executor } = scriptedExecutor([{ toolCalls: [{ name: "slow_report", args: { topic: "http-unsubscribe", ms: 20_000 } }] }, "unreachable"], tools);
    const subscription = executor.stream({ input: "Report" }).subscribe({ error: () => undefined });
    const started = await waitFor(() => server.events.find((event) => event.type === "started" && event.args.topic === "http-unsubscribe"));
    subscription.unsubscribe();

    const cancelled = await waitFor(() => server.events.find((event) => event.type === "cancelled" && event.requestId === started.requestId));
    expect(cancelled).toMatchObject({ reason: "AbortError: The run was cancelled: its subscriber unsubscribed." });
  });

  it("cancels the server's request when maxExecutionTime runs out", async () => {
    const { executor } = scriptedExecutor([{ toolCalls: [{ name: "slow_report", args: { topic: "http-deadline", ms: 20_000 } }] }], tools, { maxExecutionTime: 200 });
    const events = await allEvents(executor.stream({ input: "Report" }));

    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "max_execution_time" });
    const started = server.events.find((event) => event.type === "started" && event.args.topic === "http-deadline");
    const cancelled = await waitFor(() => server.events.find((event) => event.type === "cancelled" && event.requestId === started?.requestId));
    expect(cancelled).toMatchObject({ reason: "AbortError: The run was stopped (max_execution_time)." });
  });
});

describe("an MCP server over HTTP that lists 200 tools", () => {
  let server: HttpFixtureServer;
  let client: MultiServerMCPClient;
  beforeAll(async () => {
    server = await startHttpFixtureServer({ extraTools: 200 });
    client = new MultiServerMCPClient({ mcpServers: { big: { transport: "http", url: server.url } } });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it("gives the agent every tool, and a call to the last one works", async () => {
    const tools = await client.getTools();
    expect(tools).toHaveLength(206);
    expect(tools.at(-1)?.name).toBe("tool_199");
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(206);

    const { executor, model } = scriptedExecutor([{ toolCalls: [{ name: "tool_199", args: { value: 21 } }] }, "42."], tools);
    const events = await allEvents(executor.stream({ input: "Double 21 with tool 199" }));

    expect(model.calls[0]?.toolNames).toHaveLength(206);
    expect(observations(events)).toEqual([{ tool: "tool_199", observation: "tool_199(21) = 42" }]);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "42.", stopReason: "finish" });
  });
});

describe("an MCP server over HTTP that goes away in the middle of a run", () => {
  let server: HttpFixtureServer;
  let client: MultiServerMCPClient;
  beforeAll(async () => {
    server = await startHttpFixtureServer();
    client = new MultiServerMCPClient({ mcpServers: { remote: { transport: "http", url: server.url } } });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  // The SDK's HTTP client leaves a request pending when its response stream breaks, until the
  // request's own timeout (60 s by default): a time limit on the call ends it.
  it("ends the call at the tool's time limit with a clear observation, and later calls fail at once", async () => {
    const tools = (await client.getTools()).map((tool) => withPolicies(tool, [timeoutPolicy({ ms: 500 })]));
    const { executor } = scriptedExecutor(
      [{ toolCalls: [{ name: "crash", args: {} }] }, { toolCalls: [{ name: "get_forecast", args: { city: "Paris" } }] }, "The weather service is down."],
      tools,
    );
    const startedAt = Date.now();
    const events = await allEvents(executor.stream({ input: "Paris weather" }));

    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(observations(events)).toEqual([
      { tool: "crash", observation: expect.stringMatching(/^Tool "crash" failed with error: Tool "crash" timed out after 500 ms\./) },
      { tool: "get_forecast", observation: expect.stringMatching(/^Tool "get_forecast" failed with error: Error calling tool get_forecast: .*fetch failed/) },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "The weather service is down.", stopReason: "finish" });
    // The server went away during the first call: the second never reached it.
    expect(server.events.filter((event) => event.type === "started").map((event) => event.tool)).toEqual(["crash"]);
  });
});

/** MCP errors that say the server is busy are worth another attempt; other errors are not. */
const isBusy = (error: unknown) => /busy/i.test(error instanceof Error ? error.message : String(error));

describe("tool policies on MCP tools", () => {
  let server: HttpFixtureServer;
  let client: MultiServerMCPClient;
  let tools: StructuredToolInterface[];
  beforeAll(async () => {
    server = await startHttpFixtureServer();
    client = new MultiServerMCPClient({ mcpServers: { remote: { transport: "http", url: server.url } } });
    tools = await client.getTools();
  });
  beforeEach(() => {
    server.events.length = 0;
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  const steps = (events: Awaited<ReturnType<typeof allEvents>>) => events.filter((event): event is StepEvent => event.type === "step");

  it("timeoutPolicy: the call fails with a timeout observation and the server's request is cancelled", async () => {
    const slow = withPolicies(byName(tools, "slow_report"), [timeoutPolicy({ ms: 150 })]);
    const { executor } = scriptedExecutor([{ toolCalls: [{ name: "slow_report", args: { topic: "q3", ms: 20_000 } }] }, "It took too long."], [slow]);
    const events = await allEvents(executor.stream({ input: "Q3 report" }));

    expect(observations(events)).toEqual([{ tool: "slow_report", observation: expect.stringMatching(/^Tool "slow_report" failed with error: Tool "slow_report" timed out after 150 ms\./) }]);
    expect(steps(events)[0]?.metadata).toMatchObject({ timedOut: true });
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "finish" });
    const cancelled = await waitFor(() => server.events.find((event) => event.type === "cancelled"));
    expect(cancelled).toMatchObject({ tool: "slow_report", reason: expect.stringContaining('Tool "slow_report" timed out after 150 ms') });
    expect(server.events.some((event) => event.type === "finished")).toBe(false);
  });

  it("retryPolicy: an error result the policy's isRetryable accepts is tried again, on the server", async () => {
    const rate = withPolicies(byName(tools, "exchange_rate"), [retryPolicy({ maxAttempts: 3, initialDelayMs: 1, isRetryable: isBusy })]);
    const { executor } = scriptedExecutor([{ toolCalls: [{ name: "exchange_rate", args: { pair: "EUR/USD", failures: 2 } }] }, "1.08."], [rate]);
    const events = await allEvents(executor.stream({ input: "EUR/USD?" }));

    expect(observations(events)).toEqual([{ tool: "exchange_rate", observation: "EUR/USD: 1.08" }]);
    expect(steps(events)[0]?.metadata).toMatchObject({ attempts: 3 });
    expect(server.events.filter((event) => event.type === "started")).toHaveLength(3);
  });

  it("retryPolicy: without an isRetryable that accepts them, MCP errors are not retried", async () => {
    const rate = withPolicies(byName(tools, "exchange_rate"), [retryPolicy({ initialDelayMs: 1 })]);
    const { executor } = scriptedExecutor([{ toolCalls: [{ name: "exchange_rate", args: { pair: "EUR/GBP", failures: 1 } }] }, "Busy."], [rate]);
    const events = await allEvents(executor.stream({ input: "EUR/GBP?" }));

    expect(observations(events)[0]?.observation).toMatch(/returned an error: Rate service busy \(attempt 1\)/);
    expect(server.events.filter((event) => event.type === "started")).toHaveLength(1);
  });

  it("cachePolicy: the same call in a later turn is answered from the cache, without the server", async () => {
    const forecast = withPolicies(byName(tools, "get_forecast"), [cachePolicy({ ttlMs: 60_000 })]);
    const call = { name: "get_forecast", args: { city: "Paris", days: 2 } };
    const { executor } = scriptedExecutor([{ toolCalls: [call] }, { toolCalls: [call] }, "Sunny."], [forecast]);
    const events = await allEvents(executor.stream({ input: "Paris, twice" }));

    expect(observations(events).map((step) => step.observation)).toEqual(["Paris, next 2 days: sunny, 21°C", "Paris, next 2 days: sunny, 21°C"]);
    expect(steps(events).map((step) => step.metadata?.cached)).toEqual([false, true]);
    expect(server.events.filter((event) => event.type === "started")).toHaveLength(1);
  });

  it("concurrencyLimitPolicy: one limit shared by a server's tools bounds the calls the server runs at once", async () => {
    const calls = Array.from({ length: 5 }, (_, i) => ({ name: "slow_report", args: { topic: `t${i}`, ms: 250 } }));
    const run = async (wrap: (tool: StructuredToolInterface) => StructuredToolInterface) => {
      server.events.length = 0;
      const { executor } = scriptedExecutor([{ toolCalls: calls }, "Done."], tools.map(wrap));
      const events = await allEvents(executor.stream({ input: "Five reports" }));
      expect(observations(events)).toHaveLength(5);
      return Math.max(...server.events.flatMap((event) => (event.type === "started" ? [event.active] : [])));
    };

    // Unlimited, the executor runs the turn's five calls at once; limited, the server never sees more than two.
    expect(await run((tool) => tool)).toBe(5);
    const limit = concurrencyLimitPolicy({ maxConcurrent: 2 });
    expect(await run((tool) => withPolicies(tool, [limit]))).toBe(2);
    expect(limit.active).toBe(0);
  });

  it("policies compose on every tool of a server: cache, retry and timeout together", async () => {
    const wrapped = tools.map((tool) =>
      withPolicies(tool, [cachePolicy(), retryPolicy({ maxAttempts: 2, initialDelayMs: 1, isRetryable: isBusy }), timeoutPolicy({ ms: 2_000 })]),
    );
    expect(wrapped.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
    const { executor } = scriptedExecutor(
      [
        { toolCalls: [{ name: "exchange_rate", args: { pair: "USD/JPY", failures: 1 } }, { name: "get_forecast", args: { city: "Oslo" } }] },
        { toolCalls: [{ name: "exchange_rate", args: { pair: "USD/JPY", failures: 1 } }] },
        "Done.",
      ],
      wrapped,
    );
    const events = await allEvents(executor.stream({ input: "Rate and weather" }));

    expect(observations(events).map((step) => step.observation).sort()).toEqual(["Oslo: snow, -3°C", "USD/JPY: 1.08", "USD/JPY: 1.08"]);
    // exchange_rate: busy once, then answered; the second turn's call came from the cache.
    expect(server.events.filter((event) => event.type === "started").map((event) => event.tool).sort()).toEqual(["exchange_rate", "exchange_rate", "get_forecast"]);
  });
});
