// Shared helpers for the OpenAIChatModel tests (not exported from the package).
import type { AIMessageChunk } from "@langchain/core/messages";
import { afterEach } from "vitest";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "../testing/openai-compatible-server/index";
import type { OpenAICompatibleServerOptions } from "../testing/openai-compatible-server/start-openai-compatible-server";
import { OpenAIChatModel } from "./openai-chat-model";
import type { OpenAIChatModelOptions } from "./openai-chat-model-options";

let server: OpenAICompatibleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Starts a loopback server (closed after the test) and a model pointed at it, without retries. */
export async function setup(serverOptions: OpenAICompatibleServerOptions, modelOptions: Partial<OpenAIChatModelOptions> = {}) {
  server = await startOpenAICompatibleServer(serverOptions);
  const model = new OpenAIChatModel({ model: "test-model", baseURL: server.baseURL, apiKey: "test", maxRetries: 0, ...modelOptions });
  return { server, model };
}

/** Every chunk of `model.stream(input)`. */
export async function streamAll(model: { stream: OpenAIChatModel["stream"] }, input: string): Promise<AIMessageChunk[]> {
  const chunks: AIMessageChunk[] = [];
  for await (const chunk of await model.stream(input)) chunks.push(chunk);
  return chunks;
}

/** The error `promise` rejects with; fails the test when it resolves. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to fail");
}
