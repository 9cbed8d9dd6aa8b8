// Test-only (not exported by the package): runs `another-process-main.ts` in child `node`
// processes (bundled from the sources by test/support/child-script.ts), so the tests can check what a second process sees and does.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { AnotherProcessReport, AnotherProcessRequest } from "./run-store-conformance";
import { childScript } from "../../../../test/support/child-script";

/** The records the other process opens. */
export type AnotherProcessTarget = { kind: "sqlite"; path: string } | { kind: "postgres"; connectionString: string; schema: string };

/** What the child does: the conformance suite's claim-and-write, open the store and create one run, or append to a thread. */
export type AnotherProcessJob =
  | { mode: "conformance"; target: AnotherProcessTarget; request: AnotherProcessRequest }
  | { mode: "create"; target: AnotherProcessTarget }
  | { mode: "appendThread"; target: AnotherProcessTarget; threadId: string; appends: number; size: number };

/** What a child that appended to a thread reports: the seqs each of its appends got, in order. */
export interface AppendReport {
  pid: number;
  seqs: number[][];
}

const MAIN = await childScript(fileURLToPath(new URL("./another-process-main.ts", import.meta.url)));
// The repository root, whose tsconfig.json maps @agentrx/* to their sources.
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

function runChild<T>(job: AnotherProcessJob): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [MAIN, JSON.stringify(job)], { cwd: ROOT, timeout: 50_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`the other process failed: ${error.message}\n${stderr}`));
      try {
        resolve(JSON.parse(stdout) as T);
      } catch {
        reject(new Error(`the other process printed no report: ${stdout}\n${stderr}`));
      }
    });
  });
}

/** Opens `target` in a child process that does what `inAnotherProcess` asks, and resolves with its report. */
export function runInAnotherProcess(target: AnotherProcessTarget, request: AnotherProcessRequest): Promise<AnotherProcessReport> {
  return runChild({ mode: "conformance", target, request });
}

/** Starts `count` child processes at once, each opening `target` and creating one run; resolves with their pids and run ids. */
export function runManyProcesses(target: AnotherProcessTarget, count: number): Promise<{ pid: number; runId: string }[]> {
  return Promise.all(Array.from({ length: count }, () => runChild<{ pid: number; runId: string }>({ mode: "create", target })));
}

/**
 * Starts `count` child processes at once, each appending `appends` times `size` messages (labelled
 * with its pid and their position) to the thread, one append after the other.
 */
export function appendInManyProcesses(target: AnotherProcessTarget, threadId: string, count: number, appends: number, size: number): Promise<AppendReport[]> {
  return Promise.all(Array.from({ length: count }, () => runChild<AppendReport>({ mode: "appendThread", target, threadId, appends, size })));
}
