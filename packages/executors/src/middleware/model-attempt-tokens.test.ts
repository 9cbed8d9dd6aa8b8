// With middleware that wraps the model call, an agent call may try the model more than once (a
// fallback after a failure, a second `next`). With an output guardrail, a streamed run holds each
// attempt's tokens until the chain returned, and streams (and records) only those of the attempt
// whose output it returned (the one the guardrail checked). Without one, tokens stream live.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor, type AgentMiddleware, type AgentStreamEvent, guardrail, modelFallback } from "@agentrx/executors";
import type { ChatGenerationChunk } from "@langchain/core/outputs";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { describe, expect, it } from "vitest";
import { InProcessRunStore } from "../runs/in-process-run-store";
import { collect } from "../executor/test-helpers";

const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);

/** A model whose stream breaks after two chunks (a connection reset mid-answer). */
class MidStreamFail extends ScriptedChatModel {
  override async *_streamResponseChunks(...args: Parameters<ScriptedChatModel["_streamResponseChunks"]>): AsyncGenerator<ChatGenerationChunk> {
    let chunks = 0;
    for await (const chunk of super._streamResponseChunks(...args)) {
      if (chunks++ === 2) throw new Error("connection reset mid-stream");
      yield chunk;
    }
  }
}

const noSecrets = guardrail({ name: "no-secrets", on: "output", check: ({ text }) => text.includes("SECRET") && "a secret" });
/** Calls the model twice and answers with the second attempt's output. */
const twice: AgentMiddleware = { name: "twice", wrapModelCall: async (request, next) => (await next(request), next(request)) };

const streamed = (events: readonly { type: string; text?: string }[]) => events.filter((event) => event.type === "token").map((event) => event.text).join("");

async function run(middleware: AgentMiddleware[], llm: ScriptedChatModel, runId: string) {
  const store = new InProcessRunStore();
  const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [], middleware, store });
  const events: AgentStreamEvent[] = await collect(executor.stream({ input: "The password?" }, { runId }));
  const recorded = (await store.readEvents(runId)).map((event) => event.data as { type: string; text?: string });
  return { events, recorded, output: events.at(-1) };
}

describe("streamed tokens of model attempts under wrapModelCall", () => {
  it("a fallback after a model failed mid-stream, under an output guardrail, streams only the backup's answer (the one checked)", async () => {
    const primary = new MidStreamFail({ streaming: true, responses: ["The SECRET password is hunter2"] });
    const backup = new ScriptedChatModel({ streaming: true, responses: ["Sorry, cannot say."] });
    const { events, recorded, output } = await run([noSecrets, modelFallback([backup])], primary, "fallback-guarded");
    expect(output).toMatchObject({ type: "output", output: "Sorry, cannot say.", stopReason: "finish" });
    expect(streamed(events)).toBe("Sorry, cannot say.");
    expect(streamed(recorded)).toBe("Sorry, cannot say.");
    expect(events.map((event) => event.type)).toEqual(["start", "middleware", "usage", "token", "token", "token", "output"]);

    // invoke: the same answer.
    const again = new AgentExecutor({
      agent: createToolCallingAgent({ llm: new MidStreamFail({ streaming: true, responses: ["The SECRET password is hunter2"] }), tools: [], prompt }),
      tools: [],
      middleware: [noSecrets, modelFallback([new ScriptedChatModel({ streaming: true, responses: ["Sorry, cannot say."] })])],
    });
    expect((await again.invoke({ input: "The password?" })).output).toBe("Sorry, cannot say.");
  });

  it("a fallback without a guardrail streams live: the failed attempt's text, then the fallback's event, then the backup's", async () => {
    const primary = new MidStreamFail({ streaming: true, responses: ["The SECRET password is hunter2"] });
    const backup = new ScriptedChatModel({ streaming: true, responses: ["Sorry, cannot say."] });
    const { events, output } = await run([modelFallback([backup])], primary, "fallback-live");
    expect(output).toMatchObject({ output: "Sorry, cannot say.", stopReason: "finish" });
    const shown = events.filter((event) => event.type === "token" || event.type === "middleware").map((event) => (event.type === "token" ? (event as { text: string }).text : "|"));
    expect(shown.join("")).toBe("The SECRET |Sorry, cannot say.");
  });

  it("an outer output guardrail around a middleware that calls next twice: the first answer, never checked, is never streamed", async () => {
    const first = guardrail({ on: "output", check: ({ text }) => text.includes("first") && "the first answer" });
    const llm = new ScriptedChatModel({ streaming: true, responses: ["first answer", "second answer"] });
    const { events, recorded, output } = await run([first, twice], llm, "twice-guarded");
    expect(output).toMatchObject({ output: "second answer", stopReason: "finish" });
    expect(streamed(events)).toBe("second answer");
    // (The record joins a call's tokens into fewer events.)
    expect(streamed(recorded)).toBe("second answer");
    expect(llm.calls).toHaveLength(2);
  });

  it("a middleware that calls next twice, without a guardrail: both attempts stream live", async () => {
    const llm = new ScriptedChatModel({ streaming: true, responses: ["first answer", "second answer"] });
    const { events, output } = await run([twice], llm, "twice");
    expect(output).toMatchObject({ output: "second answer" });
    expect(streamed(events)).toBe("first answersecond answer");
  });

  it("an inner output guardrail that trips on the first attempt: nothing streams", async () => {
    const first = guardrail({ on: "output", check: ({ text }) => text.includes("first") && "the first answer" });
    const { events, recorded, output } = await run([twice, first], new ScriptedChatModel({ streaming: true, responses: ["first answer", "second answer"] }), "twice-inner");
    expect(output).toMatchObject({ stopReason: "guardrail" });
    expect(streamed(events)).toBe("");
    expect(streamed(recorded)).toBe("");
  });

  it("under an output guardrail, an answer a middleware made of its own streams no tokens: its output event carries it", async () => {
    const redact: AgentMiddleware = { name: "redact", wrapModelCall: async (request, next) => ({ ...((await next(request)) as object), returnValues: { output: "REDACTED" } }) as never };
    const { events, output } = await run([noSecrets, redact], new ScriptedChatModel({ streaming: true, responses: ["secret answer"] }), "redacted");
    expect(output).toMatchObject({ output: "REDACTED" });
    expect(streamed(events)).toBe("");
  });

  it("the text before a tool call streams with its turn, and each agent call's tokens come with their iteration", async () => {
    const llm = new ScriptedChatModel({
      streaming: true,
      responses: [{ content: "Let me look.", toolCalls: [{ name: "lookup", args: {} }] }, "Found it."],
    });
    const passThrough: AgentMiddleware = { name: "pass", wrapModelCall: (request, next) => next(request) };
    const { tool } = await import("@langchain/core/tools");
    const { z } = await import("zod");
    const lookup = tool(async () => "42", { name: "lookup", description: "Looks up.", schema: z.object({}) });
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], middleware: [passThrough, noSecrets] });
    const events = await collect(executor.stream({ input: "?" }));
    const tokens = events.filter((event) => event.type === "token") as Extract<AgentStreamEvent, { type: "token" }>[];
    expect(tokens.filter((event) => event.iteration === 0).map((event) => event.text).join("")).toBe("Let me look.");
    expect(tokens.filter((event) => event.iteration === 1).map((event) => event.text).join("")).toBe("Found it.");
    // Held until the call returned: after its usage, before its action.
    const types = events.map((event) => event.type);
    expect(types.indexOf("token")).toBeGreaterThan(types.indexOf("usage"));
    expect(types.indexOf("token")).toBeLessThan(types.indexOf("action"));
  });

  it("the \"generate\" call of a halted run streams its answer once the chain returned it", async () => {
    const { tool } = await import("@langchain/core/tools");
    const { z } = await import("zod");
    const lookup = tool(async () => "42", { name: "lookup", description: "Looks up.", schema: z.object({}) });
    const passThrough: AgentMiddleware = { name: "pass", wrapModelCall: (request, next) => next(request) };
    for (const middleware of [[passThrough], [noSecrets]]) {
      const llm = new ScriptedChatModel({ streaming: true, responses: [{ toolCalls: [{ name: "lookup", args: {} }] }, "Final words."] });
      const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [lookup], prompt }), tools: [lookup], maxIterations: 1, earlyStoppingMethod: "generate", middleware });
      const events = await collect(executor.stream({ input: "?" }));
      expect(events.at(-1)).toMatchObject({ output: "Final words.", stopReason: "max_iterations" });
      expect(streamed(events)).toBe("Final words.");
    }
  });

  it("middleware without an output guardrail leaves tokens live: each comes before its call's usage", async () => {
    const passThrough: AgentMiddleware = { name: "pass", wrapModelCall: (request, next) => next(request) };
    for (const middleware of [[{ name: "view", prepareStep: () => undefined }], [passThrough]]) {
      const llm = new ScriptedChatModel({ streaming: true, responses: ["All good."] });
      const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [], prompt }), tools: [], middleware });
      const types = (await collect(executor.stream({ input: "hi" }))).map((event) => event.type);
      expect(types.indexOf("token")).toBeLessThan(types.indexOf("usage"));
    }
  });
});
