// Shared helpers for the OpenAIChatModel tests (not exported from the package).
import type { AIMessageChunk } from "@langchain/core/messages";
import type { OpenAICompatibleServerOptions } from "../testing/openai-compatible-server/start-openai-compatible-server";
import { start } from "../testing/openai-compatible-server/test-helpers";
import { OpenAIChatModel } from "./openai-chat-model";
import type { OpenAIChatModelOptions } from "./openai-chat-model-options";

/** Starts a loopback server (closed after the test) and a model pointed at it, without retries. */
export async function setup(serverOptions: OpenAICompatibleServerOptions, modelOptions: Partial<OpenAIChatModelOptions> = {}) {
  const server = await start(serverOptions);
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

const realSetTimeout = globalThis.setTimeout;

/** Polls in real time (even under fake timers) until `condition` holds, for at most 10 s. */
export async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 10_000) throw new Error("condition not met within 10 s");
    await new Promise((resolve) => realSetTimeout(resolve, 5));
  }
}

/** Lets real I/O (the loopback server and the client) make progress while timers are faked. */
export function realPause(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve)).then(() => new Promise((resolve) => setImmediate(resolve)));
}
