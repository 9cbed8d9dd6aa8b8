// A streamed request answered with something other than server-sent events: a server that ignores
// `stream: true` answers with the whole completion as JSON, a proxy or a wrong `baseURL` with an
// HTML page. The first is read as a stream of one chunk; the rest fail as the same reply to a
// request that is not streamed does.
import type OpenAI from "openai";
import { completionProblem, responseError } from "./check-response";
import { argumentsText } from "./from-openai-response";

/** Where the reply came from, for the error message. */
export interface BodySource {
  model: string;
  baseURL: string;
}

/**
 * The chunk that stands for a streamed request's reply that is not a stream: a Chat Completions
 * JSON object becomes one chunk carrying the whole message (content, tool calls, refusal,
 * reasoning and its details), its finish reason and its usage, so the answer reads as if it had been streamed in
 * one piece. Any other body throws the `OpenAIResponseError` of {@link responseError}.
 */
export function bodyAsChunk(text: string, contentType: string | null, source: BodySource): OpenAI.Chat.ChatCompletionChunk {
  const data = parseJson(text) ?? text;
  const problem = completionProblem(data, contentType);
  if (problem) throw responseError(`${problem}, where a stream of server-sent events was expected`, source.model, source.baseURL);
  const completion = data as OpenAI.Chat.ChatCompletion;
  const choice = completion.choices[0] as OpenAI.Chat.ChatCompletion.Choice;
  const message = choice.message as OpenAI.Chat.ChatCompletionMessage & { reasoning_content?: unknown; reasoning?: unknown; reasoning_details?: unknown };
  const toolCalls = (message.tool_calls ?? []).flatMap((call, index) => {
    const fn = (call as { function?: { name?: string; arguments?: unknown } }).function;
    // Arguments that are not a string become their JSON here, as in a response that is not streamed.
    return fn ? [{ index, id: call.id, type: "function" as const, function: { name: fn.name, arguments: argumentsText(fn.arguments) } }] : [];
  });
  const delta = {
    role: "assistant" as const,
    content: message.content ?? null,
    ...(message.refusal ? { refusal: message.refusal } : {}),
    ...(message.function_call ? { function_call: message.function_call } : {}),
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(message.reasoning_content !== undefined ? { reasoning_content: message.reasoning_content } : {}),
    ...(message.reasoning !== undefined ? { reasoning: message.reasoning } : {}),
    ...(message.reasoning_details !== undefined ? { reasoning_details: message.reasoning_details } : {}),
  };
  return {
    id: completion.id,
    object: "chat.completion.chunk",
    created: completion.created,
    model: completion.model,
    ...(completion.system_fingerprint ? { system_fingerprint: completion.system_fingerprint } : {}),
    // The body was read whole, so the answer is complete even when the server named no finish reason.
    choices: [{ index: 0, delta, finish_reason: choice.finish_reason ?? "stop", logprobs: null }],
    ...(completion.usage ? { usage: completion.usage } : {}),
  } as OpenAI.Chat.ChatCompletionChunk;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
