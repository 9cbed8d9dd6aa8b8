// MCP tools from a server over stdio (a child process, written with the official SDK), loaded with
// @langchain/mcp-adapters and run by AgentExecutor: object schemas, failures, cancellation that
// reaches the server, approval before a call, and a server that dies in the middle of a run.
import { AbortError, InvalidArgumentError } from "@agentrx/core";
import { timeoutPolicy, withApproval, withPolicies } from "@agentrx/tools";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { lastValueFrom } from "rxjs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { allEvents, isRunning, observations, scriptedExecutor, startStdioFixture, waitFor, type StdioFixture } from "./support";

const ticket = { customer: { id: "C-1", email: "cy@example.com" }, priority: "urgent" };

describe("MCP tools over stdio", () => {
  let fixture: StdioFixture;
  beforeAll(async () => {
    fixture = await startStdioFixture();
  });
  afterAll(async () => {
    const pids = new Set(fixture.events().map((event) => event.pid));
    await fixture.close();
    // Closing the client ends the server's process.
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
  });

  it("lists the server's tools with their JSON schemas", () => {
    expect(fixture.tools.map((tool) => tool.name)).toEqual(["get_forecast", "create_ticket", "lookup_order", "exchange_rate", "slow_report", "crash"]);
    expect(fixture.tool("create_ticket").schema).toMatchObject({
      type: "object",
      properties: {
        customer: { type: "object", properties: { id: { type: "string" }, email: { type: "string", format: "email" } }, required: ["id", "email"] },
        priority: { type: "string", enum: ["low", "normal", "urgent"] },
        tags: { type: "array", items: { type: "string" }, maxItems: 5 },
      },
      required: ["customer", "priority"],
    });
  });

  it("runs an agent's parallel calls with object arguments; the observations are the server's answers", async () => {
    const tools = [fixture.tool("get_forecast"), fixture.tool("create_ticket")];
    const { executor, model } = scriptedExecutor(
      [
        {
          toolCalls: [
            { name: "get_forecast", args: { city: "Oslo", days: 3 } },
            { name: "create_ticket", args: { customer: { id: "C-7", email: "ana@example.com" }, priority: "urgent", tags: ["travel"] } },
          ],
        },
        "Snow in Oslo; ticket T-1 is open.",
      ],
      tools,
    );
    const events = await allEvents(executor.stream({ input: "Oslo weather, and open a ticket for C-7" }));

    expect(observations(events).sort((a, b) => a.tool.localeCompare(b.tool))).toEqual([
      { tool: "create_ticket", observation: "ticket T-1 opened for C-7 (urgent; travel)" },
      { tool: "get_forecast", observation: "Oslo, next 3 days: snow, -3°C" },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "Snow in Oslo; ticket T-1 is open.", stopReason: "finish" });
    // The model was offered the server's schemas, and the server got the arguments as they were.
    expect(model.calls[0]?.toolNames).toEqual(["get_forecast", "create_ticket"]);
    expect(convertToOpenAITool(model.calls[0]?.tools[1] as StructuredToolInterface).function.parameters).toMatchObject({
      properties: { customer: { properties: { email: { format: "email" } } } },
    });
    expect(fixture.events().filter((event) => event.type === "started" && (event.tool === "create_ticket" || event.tool === "get_forecast"))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tool: "create_ticket", args: { customer: { id: "C-7", email: "ana@example.com" }, priority: "urgent", tags: ["travel"] } }),
        expect.objectContaining({ tool: "get_forecast", args: { city: "Oslo", days: 3 } }),
      ]),
    );
  });

  it("answers arguments that do not fit the schema with an observation, without calling the server", async () => {
    const before = fixture.events().length;
    const { executor } = scriptedExecutor(
      [{ toolCalls: [{ name: "create_ticket", args: { customer: { id: "C-7", email: "not-an-email" }, priority: "whenever" } }] }, "I could not open it."],
      [fixture.tool("create_ticket")],
    );
    const events = await allEvents(executor.stream({ input: "Open a ticket" }));

    expect(observations(events)).toEqual([{ tool: "create_ticket", observation: expect.stringMatching(/^Invalid input for tool "create_ticket"/) }]);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "finish" });
    expect(fixture.events().slice(before)).toEqual([]);
  });

  it("turns a tool's error result into an observation that names the tool, the server and the message", async () => {
    const { executor } = scriptedExecutor(
      [{ toolCalls: [{ name: "lookup_order", args: { orderId: "Z9" } }, { name: "lookup_order", args: { orderId: "A1" } }] }, "Z9 does not exist; A1 shipped."],
      [fixture.tool("lookup_order")],
    );
    const events = await allEvents(executor.stream({ input: "Where are Z9 and A1?" }));

    expect(observations(events).map((step) => step.observation).sort()).toEqual([
      `Tool "lookup_order" failed with error: MCP tool 'lookup_order' on server 'fixture' returned an error: No order with id "Z9".`,
      "order A1: shipped",
    ]);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "finish" });
  });

  it("cancels the server's request when the run's AbortSignal fires", async () => {
    const { executor } = scriptedExecutor([{ toolCalls: [{ name: "slow_report", args: { topic: "abort", ms: 20_000 } }] }, "unreachable"], [fixture.tool("slow_report")]);
    const controller = new AbortController();
    const run = lastValueFrom(executor.invoke({ input: "Report" }, { signal: controller.signal }));
    const started = await waitFor(() => fixture.events().find((event) => event.type === "started" && event.args.topic === "abort"));
    const abortedAt = Date.now();
    controller.abort(new Error("the user left"));

    const error = await run.catch((thrown: unknown) => thrown);
    expect(AbortError.isInstance(error)).toBe(true);
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    const cancelled = await waitFor(() => fixture.events().find((event) => event.type === "cancelled" && event.requestId === started.requestId));
    expect(cancelled).toMatchObject({ tool: "slow_report", reason: expect.stringContaining("the user left") });
    expect(fixture.events().some((event) => event.type === "finished" && event.requestId === started.requestId)).toBe(false);
  });

  it("cancels the server's request when maxExecutionTime runs out, and the run ends with that stop reason", async () => {
    const { executor } = scriptedExecutor([{ toolCalls: [{ name: "slow_report", args: { topic: "deadline", ms: 20_000 } }] }], [fixture.tool("slow_report")], {
      maxExecutionTime: 300,
    });
    const startedAt = Date.now();
    const events = await allEvents(executor.stream({ input: "Report" }));

    expect(Date.now() - startedAt).toBeLessThan(2_000);
    expect(events.at(-1)).toMatchObject({ type: "output", stopReason: "max_execution_time" });
    const started = fixture.events().find((event) => event.type === "started" && event.args.topic === "deadline");
    const cancelled = await waitFor(() => fixture.events().find((event) => event.type === "cancelled" && event.requestId === started?.requestId));
    expect(cancelled).toMatchObject({ tool: "slow_report", reason: "AbortError: The run was stopped (max_execution_time)." });
  });

  describe("withApproval on MCP tools", () => {
    let before = 0;
    beforeEach(() => {
      before = fixture.events().length;
    });
    const started = () => fixture.events().slice(before).flatMap((event) => (event.type === "started" ? [[event.tool, event.args]] : []));

    /**
     * An executor with create_ticket needing approval, whose agent opens a ticket and checks the
     * weather, then answers. Without a store, the executor keeps its pauses in this process.
     */
    const ticketExecutor = (createTicket: StructuredToolInterface = withApproval(fixture.tool("create_ticket"))) =>
      scriptedExecutor(
        [{ toolCalls: [{ name: "create_ticket", args: ticket }, { name: "get_forecast", args: { city: "Paris" } }] }, "Done."],
        [createTicket, fixture.tool("get_forecast")],
      ).executor;

    it("pauses before the call; approved, the server runs it once with the input shown", async () => {
      const executor = ticketExecutor();
      const paused = await lastValueFrom(executor.invoke({ input: "Open an urgent ticket for C-1" }, { runId: "approve-1" }));

      expect(paused).toMatchObject({ output: "", interrupts: [{ id: "call-0-0", tool: "create_ticket", toolInput: ticket }] });
      expect(started()).toEqual([["get_forecast", { city: "Paris" }]]);

      const events = await allEvents(executor.resume("approve-1", { decisions: { "call-0-0": "approve" } }));
      expect(observations(events)).toEqual([{ tool: "create_ticket", observation: "ticket T-1 opened for C-1 (urgent)" }]);
      expect(events.at(-1)).toMatchObject({ type: "output", output: "Done.", stopReason: "finish" });
      expect(started()).toEqual([
        ["get_forecast", { city: "Paris" }],
        ["create_ticket", ticket],
      ]);
    });

    it("rejected, the call never reaches the server and the rejection is the observation", async () => {
      const executor = ticketExecutor();
      await lastValueFrom(executor.invoke({ input: "Open an urgent ticket for C-1" }, { runId: "reject-1" }));
      const events = await allEvents(executor.resume("reject-1", { decisions: { "call-0-0": { type: "reject", message: "Not urgent: use the form." } } }));

      expect(observations(events)).toEqual([{ tool: "create_ticket", observation: "Not urgent: use the form." }]);
      expect(started().map(([tool]) => tool)).toEqual(["get_forecast"]);
    });

    it("edited, the server gets the edited input", async () => {
      const executor = ticketExecutor();
      await lastValueFrom(executor.invoke({ input: "Open an urgent ticket for C-1" }, { runId: "edit-1" }));
      const edited = { ...ticket, priority: "normal", tags: ["triaged"] };
      const events = await allEvents(executor.resume("edit-1", { decisions: { "call-0-0": { type: "edit", toolInput: edited } } }));

      expect(observations(events)).toEqual([{ tool: "create_ticket", observation: "ticket T-1 opened for C-1 (normal; triaged)" }]);
      expect(started().at(-1)).toEqual(["create_ticket", edited]);
    });

    it("asks only when needsApproval says so, on an MCP tool wrapped in policies", async () => {
      const urgentOnly = withApproval(withPolicies(fixture.tool("create_ticket"), [timeoutPolicy({ ms: 2_000 })]), (input) => (input as { priority?: string }).priority === "urgent");
      const { executor } = scriptedExecutor(
        [{ toolCalls: [{ name: "create_ticket", args: { ...ticket, priority: "low" } }] }, "Opened."],
        [urgentOnly],
      );
      const events = await allEvents(executor.stream({ input: "Open a low-priority ticket" }));

      expect(events.at(-1)).toMatchObject({ type: "output", output: "Opened.", stopReason: "finish" });
      expect(started()).toEqual([["create_ticket", { ...ticket, priority: "low" }]]);
    });

    // docs/approval.md: an edit that does not fit the tool's schema is refused with an
    // InvalidArgumentError and nothing runs; MCP tools have JSON schemas, checked like zod ones.
    it("refuses an edit that does not fit an MCP tool's JSON schema, and nothing runs", async () => {
      const executor = ticketExecutor();
      await lastValueFrom(executor.invoke({ input: "Open an urgent ticket for C-1" }, { runId: "bad-edit-1" }));
      const error = await lastValueFrom(executor.resume("bad-edit-1", { decisions: { "call-0-0": { type: "edit", toolInput: { ...ticket, priority: "whenever" } } } })).catch(
        (thrown: unknown) => thrown,
      );

      expect(started().map(([tool]) => tool)).toEqual(["get_forecast"]);
      expect(InvalidArgumentError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/does not fit the tool's schema: .*priority/);
    });
  });
});

describe("an MCP server over stdio that dies in the middle of a run", () => {
  let fixture: StdioFixture;
  beforeAll(async () => {
    fixture = await startStdioFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it("gives a clear observation for the call it was running and for later calls, and the run ends", async () => {
    const { executor } = scriptedExecutor(
      [
        { toolCalls: [{ name: "crash", args: {} }] },
        { toolCalls: [{ name: "get_forecast", args: { city: "Paris" } }] },
        "The weather service is down.",
      ],
      [fixture.tool("crash"), fixture.tool("get_forecast")],
    );
    const startedAt = Date.now();
    const events = await allEvents(executor.stream({ input: "Paris weather" }));

    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(observations(events)).toEqual([
      { tool: "crash", observation: 'Tool "crash" failed with error: Error calling tool crash: McpError: MCP error -32000: Connection closed' },
      { tool: "get_forecast", observation: 'Tool "get_forecast" failed with error: Error calling tool get_forecast: Error: Not connected' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "The weather service is down.", stopReason: "finish" });
    const [crashed] = fixture.events();
    expect(crashed).toMatchObject({ type: "started", tool: "crash" });
    expect(isRunning(crashed!.pid)).toBe(false);
  });

  it("fails the run with the tool's error when handleToolRuntimeErrors is false", async () => {
    const { executor } = scriptedExecutor([{ toolCalls: [{ name: "get_forecast", args: { city: "Paris" } }] }, "unreachable"], [fixture.tool("get_forecast")], {
      handleToolRuntimeErrors: false,
    });
    const error = await lastValueFrom(executor.invoke({ input: "Paris weather" })).catch((thrown: unknown) => thrown);

    expect(error).toMatchObject({ name: "ToolException", message: "Error calling tool get_forecast: Error: Not connected" });
  });
});
