// The `agentrx` command as the CLI tests run it: in this process (`runCli` with captured output),
// or as a child process of the built-on-the-fly `main.ts` (exit codes, signals, real stdio).
import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { childScript } from "../../../../test/support/child-script";
import { runCli } from "./run-cli";

/** What a command printed and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const root = resolve(__dirname, "../../../..");

/**
 * Runs `agentrx args` in this process, in `cwd`, with `env` as its whole environment (`NO_COLOR`
 * set unless `env` is given), `signal` as its Ctrl-C, `onStdout` told what it printed so far.
 */
export async function agentrxIn(
  cwd: string,
  args: string[],
  { env = { NO_COLOR: "1" }, signal, onStdout }: { env?: Record<string, string>; signal?: AbortSignal; onStdout?: (printed: string) => void } = {},
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const write = (text: string) => ((stdout += text), onStdout?.(stdout), true);
  const code = await runCli(args, { stdout: { write }, stderr: { write: (text: string) => ((stderr += text), true) }, env, cwd, ...(signal ? { signal } : {}) });
  return { code, stdout, stderr };
}

/** Runs `agentrx args` as a child process in `cwd`, without the store variables of this process's environment, with `env` added. */
export async function agentrxChild(cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const cli = await childScript(join(root, "packages/runs/src/cli/main.ts"));
  const { DATABASE_URL: _url, AGENTRX_RUNS_DB: _db, FORCE_COLOR: _force, ...inherited } = process.env;
  return new Promise((done) => {
    execFile(process.execPath, [cli, ...args], { cwd, env: { ...inherited, NO_COLOR: "1", ...env }, timeout: 30_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      done({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
