// Shared helpers for the tests that start a loopback server (not exported from the package).
import { afterEach } from "vitest";
import {
  type OpenAICompatibleServer,
  type OpenAICompatibleServerOptions,
  startOpenAICompatibleServer,
} from "./start-openai-compatible-server";

const started: OpenAICompatibleServer[] = [];
afterEach(async () => {
  // A test may have closed its servers already; closing again is harmless here.
  await Promise.allSettled(started.splice(0).map((server) => server.close()));
});

/** Starts a loopback server that is closed after the current test. */
export async function start(options: OpenAICompatibleServerOptions): Promise<OpenAICompatibleServer> {
  const server = await startOpenAICompatibleServer(options);
  started.push(server);
  return server;
}
