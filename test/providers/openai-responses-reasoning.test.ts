// @langchain/openai with useResponsesApi, through createToolCallingAgent and AgentExecutor, against
// the Responses loopback server, which refuses (with OpenAI's 400) any input where a function call
// comes back without the reasoning item that preceded it, a reasoning item without its following
// item, or unpaired calls and outputs. Every call must be valid, live and after a pause resumed
// from SQLite by another executor and store.
import { join } from "node:path";
import { type OpenAIResponsesServer, type ResponsesLoopbackTurn, startOpenAIResponsesServer } from "@agentrx/core/testing";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { createOpenAIFunctionsAgent } from "@agentrx/agents";
import { AgentExecutor } from "@agentrx/executors";
import { responsesReasoning } from "./models";
import { approvalResumedFromSqlite, cleanupAfterEach, eagerToolsRun, expectEarlyStarts, multiply, prompt, subAgentRun, toolCallingExecutor, twoRunsWithMemory, weather } from "./support";
const SCRIPT: ResponsesLoopbackTurn[] = [
  { reasoning: "Two cities: both at once.", toolCalls: [{ name: "weather", arguments: { city: "Paris" } }, { name: "weather", arguments: { city: "Rome" } }] },
  { reasoning: "21 × 2 with the tool.", toolCalls: [{ name: "multiply", arguments: { a: 21, b: 2 } }] },
  { reasoning: "Done.", text: "Paris and Rome are sunny at 21°C; 21 × 2 = 42." },
];
const ANSWER = "Paris and Rome are sunny at 21°C; 21 × 2 = 42.";

const llmFor = (server: OpenAIResponsesServer) => responsesReasoning(server.baseURL);

/** The types and ids of the input items of a request. */
const shape = (request: { input: { type?: string; id?: string; role?: string }[] }) => request.input.map((item) => `${item.type ?? "message"}${item.id ? `:${item.id}` : ""}`);

const { track, tempDir } = cleanupAfterEach();

describe("@langchain/openai (Responses API) with reasoning, through the executor", () => {
  for (const mode of ["invoke", "stream"] as const) {
    it(`runs a multi-turn, parallel tool-calling run with every call valid (${mode})`, async () => {
      const server = track(await startOpenAIResponsesServer({ responses: SCRIPT }));
      const executor = toolCallingExecutor(llmFor(server), [weather, multiply]);
      const input = { input: "Weather in Paris and Rome, and twice the temperature?" };
      const events = mode === "invoke" ? [await lastValueFrom(executor.invoke(input))] : await lastValueFrom(executor.stream(input).pipe(toArray()));
      expect(server.rejections).toEqual([]);
      expect((events.at(-1) as { output: string }).output).toBe(ANSWER);
      const last = server.responseRequests()[2];
      // Each reasoning item went back just before the calls it led to.
      expect(shape(last).filter((entry) => entry !== "message")).toEqual([
        "reasoning:rs_loopback_0",
        "function_call:fc_loopback_0_0",
        "function_call:fc_loopback_0_1",
        "function_call_output",
        "function_call_output",
        "reasoning:rs_loopback_1",
        "function_call:fc_loopback_1_0",
        "function_call_output",
      ]);
    });
  }

  it("the server refuses a function call sent back without its reasoning item", async () => {
    const server = track(await startOpenAIResponsesServer({ responses: [] }));
    const response = await fetch(`${server.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "o4-mini", input: [{ role: "user", content: "hi" }, { type: "function_call_output", call_id: "call_x", output: "?" }] }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toBe("No tool call found for function call output with call_id call_x.");
  });

  it("pauses for approval, and another executor resumes from SQLite with the reasoning items intact", async () => {
    const server = track(await startOpenAIResponsesServer({ responses: SCRIPT }));
    const done = await approvalResumedFromSqlite(() => llmFor(server), join(tempDir("agentrx-responses-"), "runs.db"), "Weather, and twice the temperature?");
    expect(server.rejections).toEqual([]);
    expect(done.output).toBe(ANSWER);
    expect(shape(server.responseRequests()[2])).toContain("reasoning:rs_loopback_1");
  });
});

describe("@langchain/openai (Responses API): trimming", () => {
  it("trimming a turn's calls keeps its reasoning item before the calls that remain", async () => {
    const server = track(await startOpenAIResponsesServer({ responses: [...SCRIPT.slice(0, 2), { reasoning: "More.", toolCalls: [{ name: "weather", arguments: { city: "Oslo" } }] }, SCRIPT[2] as ResponsesLoopbackTurn] }));
    const executor = toolCallingExecutor(llmFor(server), [weather, multiply], { trimIntermediateSteps: 1 });
    const result = await lastValueFrom(executor.invoke({ input: "Weather?" }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe(ANSWER);
  });
});

describe("@langchain/openai (Responses API): more runs", () => {
  it("eagerTools starts the streamed calls before the model's answer is complete, every call valid", async () => {
    const server = track(await startOpenAIResponsesServer({ responses: [{ reasoning: "All three.", toolCalls: ["Paris", "Rome", "Oslo"].map((city) => ({ name: "weather", arguments: { city } })) }, { reasoning: "Done.", text: "Sunny." }], tokenDelayMs: 3 }));
    const { log, events } = await eagerToolsRun(llmFor(server));
    expect(server.rejections).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "output", output: "Sunny." });
    expectEarlyStarts(log, 3);
  });

  it("memory across runs, tool messages and reasoning items kept, stays valid on the next run", async () => {
    const server = track(
      await startOpenAIResponsesServer({
        responses: [
          { reasoning: "Paris first.", toolCalls: [{ name: "weather", arguments: { city: "Paris" } }] },
          { reasoning: "Done.", text: "Sunny in Paris." },
          { reasoning: "Now Rome.", toolCalls: [{ name: "weather", arguments: { city: "Rome" } }] },
          { reasoning: "Done.", text: "Sunny in Rome too." },
        ],
      }),
    );
    expect(await twoRunsWithMemory(llmFor(server))).toBe("Sunny in Rome too.");
    expect(server.rejections).toEqual([]);
    // The first run's tool turn came back from memory: its reasoning item before its call, then the
    // call's output; its answer came back as the model's own message, after its reasoning item.
    expect(shape(server.responseRequests()[3]).filter((entry) => entry !== "message")).toEqual([
      "reasoning:rs_loopback_0",
      "function_call:fc_loopback_0_0",
      "function_call_output",
      "reasoning:rs_loopback_1",
      "message:msg_loopback_1",
      "reasoning:rs_loopback_2",
      "function_call:fc_loopback_2_0",
      "function_call_output",
    ]);
  });

  it("a sub-agent on the same provider, called as a tool, keeps both agents valid", async () => {
    const server = track(await startOpenAIResponsesServer({
      responses: [
        { reasoning: "Delegate.", toolCalls: [{ name: "researcher", arguments: { input: "Paris?" } }] },
        { reasoning: "Look.", toolCalls: [{ name: "weather", arguments: { city: "Paris" } }] },
        { reasoning: "Done.", text: "Paris: sunny." },
        { reasoning: "Relay.", text: "The researcher says Paris is sunny." },
      ],
    }));
    expect(await subAgentRun(() => llmFor(server))).toBe("The researcher says Paris is sunny.");
    expect(server.rejections).toEqual([]);
  });
});

describe("@langchain/openai (Responses API): the OpenAI functions agent", () => {
  it("acts on the first of two calls and sends the turn back without the other call's output item or the reasoning item", async () => {
    const server = track(await startOpenAIResponsesServer({ responses: SCRIPT.slice(0, 1).concat({ reasoning: "Done.", text: "Sunny." }) }));
    const agent = createOpenAIFunctionsAgent({ llm: llmFor(server), tools: [weather], prompt });
    const result = await lastValueFrom(new AgentExecutor({ agent, tools: [weather] }).invoke({ input: "Paris and Rome?" }));
    expect(server.rejections).toEqual([]);
    expect(result.output).toBe("Sunny.");
    const sent = server.responseRequests()[1] as { input: { type?: string; call_id?: string }[] };
    expect(sent.input.filter((item) => item.type === "function_call" || item.type === "function_call_output").map((item) => `${item.type}:${item.call_id}`)).toEqual([
      "function_call:call_loopback_0_0",
      "function_call_output:call_loopback_0_0",
    ]);
  });
});

