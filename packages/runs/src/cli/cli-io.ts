/** Where `agentrx` writes and what it reads of its process: a test passes its own. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  cwd: string;
  /** Aborted to stop a long-running command (`ui`): Ctrl-C in the terminal. */
  signal?: AbortSignal;
}
