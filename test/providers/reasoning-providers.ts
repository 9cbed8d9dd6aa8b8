// The four reasoning wire formats the cross-process tests drive, each as: its loopback server
// playing a script written once for all (reasoning, then tool calls or a text), the model a user
// would point at it, and what a request carried back of each earlier turn's reasoning.
import { startAnthropicMessagesServer, startGoogleGenAIServer, startOpenAICompatibleServer, startOpenAIResponsesServer } from "@agentrx/core/testing";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { anthropicThinking, chatReasoning, geminiThinking, responsesReasoning } from "./models";

/** One model turn of a script: its reasoning, then its tool calls or its text. */
export interface ReasoningTurn {
  reasoning: string;
  calls?: { name: string; args: Record<string, unknown> }[];
  text?: string;
}

/** A provider's loopback server playing a script. */
export interface ReasoningServer {
  url: string;
  /** The requests the server refused for breaking one of the provider's rules. */
  rejections: unknown[];
  /** The model requests' bodies, in order. */
  requests(): any[];
  /**
   * The reasoning of each earlier model turn that `request` carried back (Gemini's marked
   * ` (signed)` when its first call carries its thought signature), in order.
   */
  reasoningSent(request: any): (string | undefined)[];
  close(): Promise<void>;
}

/** The providers' names. */
export type ReasoningProvider = "anthropic" | "responses" | "gemini" | "chat";

/** The model of `provider` against its server at `url`. */
export function reasoningModel(provider: ReasoningProvider, url: string): BaseChatModel {
  if (provider === "anthropic") return anthropicThinking(url);
  if (provider === "responses") return responsesReasoning(`${url}/v1`);
  if (provider === "gemini") return geminiThinking(url);
  return chatReasoning(`${url}/v1`);
}

/** Starts `provider`'s loopback server playing `turns`. */
export async function startReasoningServer(provider: ReasoningProvider, turns: ReasoningTurn[]): Promise<ReasoningServer> {
  if (provider === "anthropic") {
    const server = await startAnthropicMessagesServer({
      responses: turns.map((turn) => ({ thinking: turn.reasoning, ...(turn.text ? { text: turn.text } : {}), ...(turn.calls ? { toolCalls: turn.calls.map((call) => ({ name: call.name, input: call.args })) } : {}) })),
    });
    return {
      url: server.url,
      rejections: server.rejections,
      requests: () => server.messageRequests(),
      // The thinking block first in each assistant message.
      reasoningSent: (request) => request.messages.filter((message: { role: string }) => message.role === "assistant").map((message: { content: { thinking?: string }[] }) => message.content[0]?.thinking),
      close: () => server.close(),
    };
  }
  if (provider === "responses") {
    const server = await startOpenAIResponsesServer({
      responses: turns.map((turn) => ({ reasoning: turn.reasoning, ...(turn.text ? { text: turn.text } : {}), ...(turn.calls ? { toolCalls: turn.calls.map((call) => ({ name: call.name, arguments: call.args })) } : {}) })),
    });
    return {
      url: server.url,
      rejections: server.rejections,
      requests: () => server.responseRequests(),
      // The reasoning items, by their summary.
      reasoningSent: (request) => request.input.filter((item: { type?: string }) => item.type === "reasoning").map((item: { summary: { text: string }[] }) => item.summary[0]?.text),
      close: () => server.close(),
    };
  }
  if (provider === "gemini") {
    const server = await startGoogleGenAIServer({
      responses: turns.map((turn) => ({ thinking: turn.reasoning, ...(turn.text ? { text: turn.text } : {}), ...(turn.calls ? { toolCalls: turn.calls.map((call) => ({ name: call.name, args: call.args })) } : {}) })),
    });
    return {
      url: server.url,
      rejections: server.rejections,
      requests: () => server.contentRequests(),
      // Each model turn's thought, and whether its first call carries its signature (the server
      // refuses a forged one).
      reasoningSent: (request) =>
        request.contents
          .filter((content: { role: string }) => content.role === "model")
          .map((content: { parts: { text?: string; thought?: boolean; thoughtSignature?: string }[] }) => `${content.parts[0]?.thought ? content.parts[0].text : "-"}${content.parts[1]?.thoughtSignature ? " (signed)" : ""}`),
      close: () => server.close(),
    };
  }
  const server = await startOpenAICompatibleServer({
    requireReasoningBack: true,
    responses: turns.map((turn) => ({ reasoning: turn.reasoning, ...(turn.text ? { content: turn.text } : {}), ...(turn.calls ? { toolCalls: turn.calls.map((call) => ({ name: call.name, arguments: call.args })) } : {}) })),
  });
  return {
    url: server.url,
    rejections: server.rejections,
    requests: () => server.chatRequests(),
    // The reasoning_content of each assistant message.
    reasoningSent: (request) => request.messages.filter((message: { role: string }) => message.role === "assistant").map((message: { reasoning_content?: string }) => message.reasoning_content),
    close: () => server.close(),
  };
}
