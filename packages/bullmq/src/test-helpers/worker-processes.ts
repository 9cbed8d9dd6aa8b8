// Test-only: starts worker processes (see worker-process.ts) and stops them.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { WorkerProcessArgs } from "./worker-process";
import type { TestServers } from "./test-servers";
import { childScript } from "../../../../test/support/child-script";

const SCRIPT = await childScript(fileURLToPath(new URL("./worker-process.ts", import.meta.url)));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url)); // its tsconfig maps @agentrx/* to sources

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /** Resolves when the process has exited and its output is read (with its signal, if it was killed). */
  exited: Promise<NodeJS.Signals | null>;
  stderr(): string;
}

/** A worker process's arguments: the test's servers and queue, then `settings`. */
export function workerArgs(
  servers: TestServers,
  queueName: string,
  settings: Omit<WorkerProcessArgs, "redisUrl" | "prefix" | "queueName" | "connectionString" | "schema">,
): WorkerProcessArgs {
  const { redisUrl, prefix, postgres } = servers;
  return { redisUrl, prefix, queueName, connectionString: postgres?.connectionString ?? "", schema: postgres?.schema ?? "", ...settings };
}

/** Starts a worker process; resolves once it takes jobs. */
export async function startWorkerProcess(args: WorkerProcessArgs): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(args)], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  let exit = "";
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once("close", (code, signal) => {
      exit = signal === null ? `code ${code}` : `signal ${signal}`;
      resolve(signal);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("ready")) resolve();
    });
    void exited.then(() => reject(new Error(`worker process exited (${exit}) before it was ready:\n${stderr}`)));
  });
  return { child, pid: child.pid as number, exited, stderr: () => stderr };
}

/** Asks the process to close (SIGTERM) and waits for it; kills it when it takes longer than `ms`. */
export async function stopWorkerProcess(worker: WorkerProcess, ms = 10_000): Promise<void> {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  worker.child.kill("SIGTERM");
  const timer = setTimeout(() => worker.child.kill("SIGKILL"), ms);
  await worker.exited;
  clearTimeout(timer);
}
