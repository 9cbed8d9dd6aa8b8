import type { RunStore } from "@agentrx/executors";
import { startUiServer, type UiServer } from "@agentrx/viewer";
import { CliError } from "./cli-error";
import type { CliIo } from "./cli-io";

/** What `agentrx ui` is asked for. */
export interface UiCommandOptions {
  port: number;
  /** How the store is named on the pages. */
  label: string;
}

/**
 * `agentrx ui`: serves the runs on http://127.0.0.1:<port> until `io.signal` aborts (Ctrl-C).
 *
 * @internal
 */
export async function uiCommand(store: RunStore, options: UiCommandOptions, io: CliIo): Promise<void> {
  let server: UiServer;
  try {
    server = await startUiServer({ store, source: options.label, port: options.port, onError: (message) => void io.stderr.write(`agentrx ui: ${message}\n`) });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "EADDRINUSE") throw new CliError({ message: `port ${options.port} is in use; pick another with --port (0: any free port)`, cause: error });
    if (code === "EACCES") throw new CliError({ message: `no permission to listen on port ${options.port}; pick one above 1023 with --port`, cause: error });
    throw error;
  }
  io.stdout.write(`AgentRx runs (${options.label}) at ${server.url}  · Ctrl-C to stop\n`);
  await new Promise<void>((resolve) => {
    if (io.signal === undefined) return;
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await server.close();
}
