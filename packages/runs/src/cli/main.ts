// The `agentrx` executable (the package's `bin`): runs the command line and exits with its code.
import { runCli } from "./run-cli";

const controller = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    controller.abort();
    // The command stops at once (exit code 130); what it left open (a connection that does not
    // answer) must not keep the process alive.
    setTimeout(() => process.exit(130), 2000).unref();
  });
}
// Whatever escapes (a driver's late error) is still one line, never a stack trace.
const fail = (error: unknown) => {
  process.stderr.write(`agentrx: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}\n`);
  process.exit(1);
};
process.on("uncaughtException", fail);
process.on("unhandledRejection", fail);
// Output piped into a command that stops reading (`agentrx runs | head -3`): nothing is left to
// say, and that is no failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" ? process.exit(process.exitCode ?? 0) : fail(error)));

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signal: controller.signal });
process.exitCode = code;
// Stopped by Ctrl-C: what the command left running (a query a lock holds on the server) is
// abandoned as soon as "interrupted" is written out.
if (controller.signal.aborted) process.stderr.write("", () => process.exit(code));
// Handles a failed connection may leave open must not keep the process alive.
setTimeout(() => process.exit(code), 1000).unref();
