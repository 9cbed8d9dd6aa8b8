// Ctrl-C in the examples that run an agent (examples/quickstart.ts, examples/runs.ts resume and
// fork): it cancels the run through its signal, so that the store records it as cancelled, with
// "Ctrl-C" as the reason, and it can be resumed at once.
import { AbortError } from "@agentrx/core";
import type { RunStore } from "@agentrx/executors";

/**
 * The signal the first Ctrl-C (SIGINT) aborts, with the reason `"Ctrl-C"`. Pass it to the run
 * (`executor.stream(inputs, { signal })`, `resume(runId, { signal })`, `fork(runId, { signal })`):
 * the executor cancels it, records it as cancelled with that reason and gives its lease back, so
 * `resume` can finish it at once. The process then ends with exit code 130 (128 + SIGINT, as a
 * shell reports it). A second Ctrl-C ends the process at once.
 */
export function cancelOnCtrlC(): AbortSignal {
  const controller = new AbortController();
  process.once("SIGINT", () => {
    process.exitCode = 130;
    controller.abort("Ctrl-C");
  });
  return controller.signal;
}

/**
 * Whether `error` is the cancellation of a run that `signal` (from {@link cancelOnCtrlC}) aborted:
 * the run's `AbortError`.
 */
export function cancelledByCtrlC(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted && AbortError.isInstance(error);
}

/** How long {@link sayCancelled} waits for the record to say the run was cancelled. */
const RECORD_WAIT_MS = 5_000;

/**
 * Says that run `runId` was cancelled and how to finish it, once its record in `store` no longer
 * says it is running (the executor records the cancellation as the run ends); or that nothing was
 * recorded, for a fork cancelled while it was made (it leaves no run behind).
 */
export async function sayCancelled(store: RunStore, runId: string): Promise<void> {
  const until = Date.now() + RECORD_WAIT_MS;
  let run = await store.getRun(runId);
  while (run?.status === "running" && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    run = await store.getRun(runId);
  }
  if (run === undefined) console.log("\nCancelled before the run was recorded: there is nothing to resume.");
  else console.log(`\nCancelled. Finish it with: npx tsx examples/runs.ts resume ${runId}`);
}
