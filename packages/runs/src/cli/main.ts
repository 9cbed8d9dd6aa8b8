// The `agentrx` executable (the package's `bin`): runs the command line and exits with its code.
import { runCli } from "./run-cli";

const controller = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => controller.abort());
// Whatever escapes (a driver's late error) is still one line, never a stack trace.
const fail = (error: unknown) => {
  process.stderr.write(`agentrx: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}\n`);
  process.exit(1);
};
process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal: controller.signal });
process.exitCode = code;
// Handles a failed connection may leave open must not keep the process alive.
setTimeout(() => process.exit(code), 1000).unref();
