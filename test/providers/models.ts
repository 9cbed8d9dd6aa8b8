// The provider models the tests drive, set up as a user would for a reasoning model, pointed at a
// loopback server (no vitest import: the crash tests' child processes use these too).
import { OpenAIChatModel } from "@agentrx/core/openai";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatGoogleGenerativeAI } from "@langchain/google-genai";
import { ChatOpenAI } from "@langchain/openai";

/** `@langchain/anthropic` with extended thinking, against the server at `url`. */
export function anthropicThinking(url: string, streaming = false): ChatAnthropic {
  return new ChatAnthropic({
    model: "claude-sonnet-4-5",
    apiKey: "test",
    anthropicApiUrl: url,
    maxTokens: 4096,
    thinking: { type: "enabled", budget_tokens: 2048 },
    maxRetries: 0,
    streaming,
  });
}

/** `@langchain/openai` on the Responses API with reasoning summaries, against the server at `baseURL`. */
export function responsesReasoning(baseURL: string): ChatOpenAI {
  return new ChatOpenAI({ model: "o4-mini", apiKey: "test", configuration: { baseURL }, useResponsesApi: true, reasoning: { effort: "low", summary: "auto" }, maxRetries: 0 });
}

/** `@langchain/google-genai` with thinking (thoughts included), against the server at `url`. */
export function geminiThinking(url: string, streaming = false): ChatGoogleGenerativeAI {
  return new ChatGoogleGenerativeAI({ model: "gemini-2.5-flash", apiKey: "test", baseUrl: url, maxRetries: 0, streaming, thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } });
}

/**
 * AgentRx's `OpenAIChatModel` on a reasoning model behind a Chat Completions API (DeepSeek's
 * thinking mode), against the server at `baseURL`.
 */
export function chatReasoning(baseURL: string, streaming = false): OpenAIChatModel {
  return new OpenAIChatModel({ model: "deepseek-reasoner", baseURL, apiKey: "test", maxRetries: 0, streaming });
}
