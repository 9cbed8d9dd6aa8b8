import { createServer } from "node:http";
import { type Task, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory } from "@a2a-js/sdk/client";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { MemoryRunStore } from "@agentrx/runs";
import { createA2AHandler, createAGUIHandler } from "@agentrx/serve";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { tool } from "@langchain/core/tools";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { artifactText, dataMessage, messageRequest } from "../test-helpers/a2a-messages";
import { closeServers, listenOnLoopback } from "../test-helpers/http-servers";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
afterEach(closeServers);

async function serve(executor: AgentExecutor): Promise<{ url: string; client: Client }> {
  const url = await listenOnLoopback(createServer(createA2AHandler(executor, { agentCard: { name: "Weather agent", description: "Tells the weather in a city." } })));
  return { url, client: await new ClientFactory().createFromUrl(url) };
}

const send = (client: Client, text: string, taskId?: string) => client.sendMessage(messageRequest(text, taskId)) as Promise<Task>;

function weatherExecutor(options: { store?: MemoryRunStore; slow?: { started: () => void; aborted: () => void }; approval?: boolean } = {}) {
  const weather = tool(
    async ({ city }: { city: string }, config) => {
      if (options.slow) {
        options.slow.started();
        await new Promise<void>((_, reject) =>
          config?.signal?.addEventListener("abort", () => {
            options.slow?.aborted();
            reject(new Error("aborted"));
          }),
        );
      }
      return `Sunny in ${city}`;
    },
    { name: "weather", description: "Tells the weather.", schema: z.object({ city: z.string() }) },
  );
  const llm = new ScriptedChatModel({
    streaming: true,
    onExhausted: "cycle",
    responses: [{ toolCalls: [{ name: "weather", args: { city: "Paris" } }] }, (messages) => `The weather: ${messages.at(-1)?.text}.`],
  });
  return new AgentExecutor({
    agent: createToolCallingAgent({ llm, tools: [weather], prompt }),
    tools: [weather],
    ...(options.store ? { store: options.store } : {}),
    ...(options.approval ? { needsApproval: () => true } : {}),
  });
}

describe("createA2AHandler", () => {
  it("serves the agent card, and message/send (SendMessage) runs the executor as a task whose id is the run's id", async () => {
    const store = new MemoryRunStore();
    const { url, client } = await serve(weatherExecutor({ store }));
    const card = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
    expect(card).toMatchObject({ name: "Weather agent", description: "Tells the weather in a city.", capabilities: { streaming: true } });
    expect(card.supportedInterfaces[0]).toMatchObject({ url: `${url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" });

    const task = await send(client, "Weather in Paris?");
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(task)).toBe("The weather: Sunny in Paris.");
    expect(task.metadata).toMatchObject({ agentrx: { runId: task.id } });
    // The task is the run: recorded under the task's id, its thread the task's context.
    expect(await store.getRun(task.id)).toMatchObject({ status: "finished", stopReason: "finish", threadId: task.contextId });
    const again = await client.getTask({ tenant: "", id: task.id });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("message/stream (SendStreamingMessage) streams the task: working, the tool call, the answer's tokens, completed", async () => {
    const { client } = await serve(weatherExecutor());
    const kinds: string[] = [];
    let streamed = "";
    let last: unknown;
    for await (const event of client.sendMessageStream(messageRequest("Weather?"))) {
      const payload = event.payload!;
      kinds.push(payload.$case === "statusUpdate" ? `status:${payload.value.status?.state}` : payload.$case);
      if (payload.$case === "artifactUpdate" && !payload.value.lastChunk) streamed += payload.value.artifact?.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
      last = payload.value;
    }
    expect(kinds[0]).toBe("task");
    expect(kinds).toContain(`status:${TaskState.TASK_STATE_WORKING}`);
    expect(kinds.at(-1)).toBe(`status:${TaskState.TASK_STATE_COMPLETED}`);
    // The streamed text (in batches: these tokens come in one burst), then the whole answer.
    expect(kinds.filter((kind) => kind === "artifactUpdate").length).toBeGreaterThanOrEqual(2);
    expect(streamed).toBe("The weather: Sunny in Paris.");
    expect(last).toMatchObject({ status: { message: { parts: [{ content: { value: "The weather: Sunny in Paris." } }] } } });
  });

  it("answers a v0.3 client's message/send", async () => {
    const { url } = await serve(weatherExecutor());
    const response = await fetch(`${url}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "message/send", params: { message: { kind: "message", messageId: "m-1", role: "user", parts: [{ kind: "text", text: "Weather?" }] } } }),
    });
    const body = await response.json();
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 7, result: { kind: "task", status: { state: "completed" } } });
    expect(body.result.artifacts[0].parts[0]).toEqual({ kind: "text", text: "The weather: Sunny in Paris." });
  });

  it("CancelTask cancels the run: the tool's signal fires and the run is recorded as cancelled", async () => {
    const store = new MemoryRunStore();
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    let aborted = false;
    const { client } = await serve(weatherExecutor({ store, slow: { started, aborted: () => (aborted = true) } }));
    const stream = client.sendMessageStream(messageRequest("Weather?"));
    const first = await stream.next();
    const taskId = first.value?.payload?.$case === "task" ? first.value.payload.value.id : "";
    const rest = (async () => {
      const states: number[] = [];
      for await (const event of stream) if (event.payload?.$case === "statusUpdate") states.push(event.payload.value.status!.state);
      return states;
    })();
    await toolStarted;
    const cancelled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await rest).at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    expect(aborted).toBe(true);
    expect((await store.getRun(taskId))?.status).toBe("cancelled");
  });

  it("an approval pause is input-required; the next message's decision resumes the run", async () => {
    const { client } = await serve(weatherExecutor({ approval: true }));
    const paused = await send(client, "Weather in Paris?");
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const parts = paused.status?.message?.parts ?? [];
    expect(parts[0]?.content).toMatchObject({ $case: "text", value: expect.stringContaining('Approval needed for weather({"city":"Paris"})') });
    expect(parts[1]?.content).toMatchObject({ $case: "data", value: { interrupts: [{ tool: "weather", toolInput: { city: "Paris" } }] } });

    const unclear = await send(client, "hmm, maybe?", paused.id);
    expect(unclear.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = await send(client, "approve", paused.id);
    expect(done.id).toBe(paused.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(done)).toBe("The weather: Sunny in Paris.");

    const second = await send(client, "Weather in Paris?");
    const rejected = await send(client, "reject: not now", second.id);
    expect(rejected.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(rejected)).toBe("The weather: not now.");
  });

  it("a decision's stream opens with the resumed task working, never with the pause it answered", async () => {
    const { client } = await serve(weatherExecutor({ approval: true }));
    const paused = await send(client, "Weather in Paris?");
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const states: string[] = [];
    for await (const event of client.sendMessageStream(messageRequest("approve", paused.id))) {
      const payload = event.payload;
      if (payload?.$case === "task") states.push(`task:${TaskState[payload.value.status?.state ?? 0]}`);
      if (payload?.$case === "statusUpdate") states.push(TaskState[payload.value.status?.state ?? 0] ?? "");
    }
    expect(states[0]).toBe("task:TASK_STATE_WORKING");
    expect(states).not.toContain("TASK_STATE_INPUT_REQUIRED");
    expect(states.at(-1)).toBe("TASK_STATE_COMPLETED");
  });

  it("a decision the paused run refuses (an unknown interrupt) leaves the task at input-required; an edit then resumes it", async () => {
    const store = new MemoryRunStore();
    const { client } = await serve(weatherExecutor({ approval: true, store }));
    const decide = (value: unknown, taskId: string) => client.sendMessage({ tenant: "", message: dataMessage(value, taskId), configuration: undefined, metadata: undefined }) as Promise<Task>;
    const paused = await send(client, "Weather in Paris?");
    const refused = await decide({ decisions: { "no-such-interrupt": "approve" } }, paused.id);
    expect(refused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const parts = refused.status?.message?.parts ?? [];
    expect(parts[0]?.content).toMatchObject({ $case: "text", value: expect.stringContaining('no interrupt "no-such-interrupt"') });
    expect(parts[1]?.content).toMatchObject({ $case: "data", value: { interrupts: [{ tool: "weather" }] } });
    expect((await store.getRun(paused.id))?.status).toBe("interrupted");

    const interrupt = (parts[1]?.content?.$case === "data" ? (parts[1].content.value as { interrupts: { id: string }[] }).interrupts[0]?.id : undefined) ?? "";
    const done = await decide({ decisions: { [interrupt]: { type: "edit", toolInput: { city: "Rome" } } } }, paused.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(done)).toBe("The weather: Sunny in Rome.");
  });

  it("refuses what it cannot serve", async () => {
    const { url } = await serve(weatherExecutor());
    expect((await fetch(`${url}/elsewhere`)).status).toBe(404);
    expect((await fetch(`${url}/`)).status).toBe(405);
    const parse = await (await fetch(`${url}/`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" })).json();
    expect(parse.error.code).toBe(-32700);
    // A request sent as a JSON string (v0.3, no A2A-Version header) is no request: nothing runs.
    const request = { jsonrpc: "2.0", id: 7, method: "message/send", params: { message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }] } } };
    for (const body of [JSON.stringify(JSON.stringify(request)), '"hi"', "5", "null"]) {
      const answer = await (await fetch(`${url}/`, { method: "POST", headers: { "content-type": "application/json" }, body })).json();
      expect(answer).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("a JSON-RPC request is an object") } });
    }
    expect(() => createA2AHandler(weatherExecutor(), { agentCard: { name: "" } } as never)).toThrow(/agentCard/);
    expect(() => createA2AHandler(weatherExecutor(), { agentCard: { name: "A", description: "B" }, maxBufferedBytes: 0 })).toThrow(/maxBufferedBytes/);
    // The AG-UI handler checks its executor and its functions when it is made, as this one does.
    expect(() => createAGUIHandler(null as never)).toThrow("createAGUIHandler: `executor` must be an AgentExecutor from @agentrx/executors.");
    expect(() => createAGUIHandler(weatherExecutor(), { onError: "x" } as never)).toThrow("createAGUIHandler: `onError` must be a function `(error) => string`.");
    expect(() => createAGUIHandler(weatherExecutor(), { inputs: "x" } as never)).toThrow(/createAGUIHandler: `inputs` must be a function/);
    expect(() => createAGUIHandler(weatherExecutor(), null as never)).toThrow(/`options` must be an object/);
    expect(() => createA2AHandler(weatherExecutor(), { agentCard: { name: "A", description: "B" }, onError: 5 } as never)).toThrow("createA2AHandler: `onError` must be a function `(error) => string`.");
    expect(() => createA2AHandler(weatherExecutor(), { agentCard: { name: "A", description: "B" }, heartbeatMs: Number.NaN })).toThrow(/heartbeatMs/);
    // Past the longest delay a timer takes, Node would send a heartbeat every millisecond: refused when the handler is made.
    for (const make of [() => createA2AHandler(weatherExecutor(), { agentCard: { name: "A", description: "B" }, heartbeatMs: 3_000_000_000 }), () => createAGUIHandler(weatherExecutor(), { heartbeatMs: 3_000_000_000 })]) {
      expect(make).toThrow(/`heartbeatMs` must be at most 2147483647 \(about 24\.8 days, the longest a timer waits/);
    }
  });
});
