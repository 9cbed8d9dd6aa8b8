// The load of the capacity scenario (bench/capacity.ts), shared by the bench process and its
// worker processes: a streaming chat model that waits 1 s, then streams 50 tokens at 50 tokens/s
// (each chunk due at a fixed time from the call's start, however late the reader is),
// and two 100 ms tools per tool-calling turn. The same timeline drives the LangChain chat model
// (AgentRx and LangGraph) and the AI SDK model.
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel, type ScriptedCall, type ScriptedResponse } from "@agentrx/core/testing";
import { AgentExecutor, type RunStore } from "@agentrx/executors";
import type { BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { prompt } from "./setup";
import { sleep, sleepUntil } from "./sleep";

/** Milliseconds from a model call to its first token. */
export const FIRST_TOKEN_MS = 1000;
/** Text tokens each model call streams, one every `TOKEN_MS` (50 tokens/s). */
export const TOKENS = 50;
export const TOKEN_MS = 20;
/** Each tool sleeps this long. */
export const TOOL_MS = 100;
/** Model calls per run: `TOOL_TURNS` turns that call `TOOLS_PER_TURN` tools each, then the answer. */
export const TOOL_TURNS = 2;
export const TOOLS_PER_TURN = 2;
export const STEPS = TOOL_TURNS + 1;
export const ANSWER = "The values are in.";

/**
 * The ideal time of one model call: the first token after `FIRST_TOKEN_MS`, then a token (or, after
 * the text, a whole tool call) every `TOKEN_MS` (what `ScriptedChatModel` does with
 * `tokenDelayMs`).
 */
export function modelCallMs(toolCalls: number): number {
  return FIRST_TOKEN_MS + (TOKENS - 1 + toolCalls) * TOKEN_MS;
}

/** The ideal run: every model call and tool at its scripted duration, nothing else. */
export const IDEAL_RUN_MS = TOOL_TURNS * (modelCallMs(TOOLS_PER_TURN) + TOOL_MS) + modelCallMs(0);

/**
 * The timer floor: one run's waits (the model's first token, its tokens and tool calls, the tools)
 * as bare timers, with no framework around them. What it adds over the ideal is the machine's timer
 * lateness at that load, which every contestant pays too.
 */
export async function timerFloorRun(): Promise<void> {
  for (let turn = 0; turn <= TOOL_TURNS; turn++) {
    const toolCalls = turn < TOOL_TURNS ? TOOLS_PER_TURN : 0;
    const began = performance.now();
    // The model's chunks are due at fixed times from the call's start (as the load's models pace them).
    for (let chunk = 0; chunk < TOKENS + toolCalls; chunk++) await sleepUntil(began + FIRST_TOKEN_MS + chunk * TOKEN_MS);
    if (toolCalls > 0) await Promise.all(Array.from({ length: toolCalls }, () => sleep(TOOL_MS)));
  }
}

const ANSWER_WORDS = ANSWER.split(" ").length;

/** The text of one model call: `words` words. */
function tokenText(turn: number, words: number): string {
  return Array.from({ length: words }, (_, index) => `t${turn}-${index}`).join(" ");
}

/** What the model says after `toolResults` tool results: two tool calls, or the answer. */
export function turnOf(toolResults: number): { text: string; toolCalls: { id: string; name: string; args: { i: number } }[] } {
  const turn = Math.floor(toolResults / TOOLS_PER_TURN);
  if (turn >= TOOL_TURNS) return { text: `${tokenText(turn, TOKENS - ANSWER_WORDS)} ${ANSWER}`, toolCalls: [] };
  const toolCalls = Array.from({ length: TOOLS_PER_TURN }, (_, index) => ({ id: `call-${turn}-${index}`, name: "sleep", args: { i: toolResults + index } }));
  return { text: tokenText(turn, TOKENS), toolCalls };
}

/** The 100 ms tool, as a LangChain tool (AgentRx and LangGraph). */
export const sleepTool = tool(
  async ({ i }: { i: number }, config) => {
    await sleep(TOOL_MS, config?.signal);
    return `value ${i}`;
  },
  { name: "sleep", description: "Sleeps 100 ms, then returns a value.", schema: z.object({ i: z.number() }) },
);

/**
 * Stands in for the model's record of calls: it counts them (the count numbers each response's
 * message and tool-call ids) but keeps none, so one model serves any number of runs without growing.
 */
function callCounter(): ScriptedCall[] {
  const counter = {
    length: 0,
    push(): number {
      return ++counter.length;
    },
  };
  return counter as unknown as ScriptedCall[];
}

function countToolMessages(messages: BaseMessage[]): number {
  let count = 0;
  for (const message of messages) if (message.getType() === "tool") count++;
  return count;
}

const script: ScriptedResponse = (messages) => {
  const { text, toolCalls } = turnOf(countToolMessages(messages));
  return toolCalls.length === 0 ? text : { content: text, toolCalls };
};

/** The streaming LangChain chat model of the load; it records no calls, so one serves every run. */
export function capacityModel(): ScriptedChatModel {
  const model = new ScriptedChatModel({
    responses: [script],
    onExhausted: "repeat-last",
    streaming: true,
    latencyMs: FIRST_TOKEN_MS,
    tokenDelayMs: TOKEN_MS,
    // Chunks due at fixed times from the call's start, as a provider streams them: a busy event
    // loop reads them late, but its lateness does not push back the ones after.
    pacing: "fixed-rate",
    chunkSize: "word",
    toolCallChunkSize: 10_000, // one chunk per tool call
  });
  Object.defineProperty(model, "calls", { value: callCounter() });
  return model;
}

/** An AgentRx executor over the load, recording into `store` when given. */
export function capacityExecutor(store?: RunStore): AgentExecutor {
  const llm = capacityModel();
  const tools = [sleepTool];
  return new AgentExecutor({ agent: createToolCallingAgent({ llm, tools, prompt }), tools, ...(store ? { store } : {}) });
}
