import type { AgentExecutor, AgentStreamEvent, Decision, RunInfo, RunStore, RunUpdate } from "@agentrx/executors";
import type { WireItem } from "../internal/wire";
import { RunEventPublisher } from "./run-event-publisher";
import { tapStore } from "./store-tap";

/** How long to wait for a stopped run's last write (its release) before going on without it. */
const RELEASE_WAIT_MS = 5000;

/** What one `executor.resume` call did. */
export type SegmentOutcome =
  /** It ran, and ended with an output (`finished`) or a pause (`interrupted`). */
  | { kind: "ended"; status: "finished" | "interrupted" }
  /** Nothing ran: the run had ended or was paused, and its output (or pause) was emitted again. */
  | { kind: "replayed"; status: "finished" | "interrupted" }
  /** It errored; `started` says whether the run had started (claimed its record) first. */
  | { kind: "error"; error: unknown; started: boolean };

/** One run segment as a worker runs it. */
export interface SegmentRequest {
  executor: AgentExecutor;
  store: RunStore;
  runId: string;
  decisions: Record<string, Decision> | undefined;
  signal: AbortSignal;
  /** Whether a stop of this run is a hand-off (then its record says `queued`, not `cancelled`). */
  handingOff: () => boolean;
  /**
   * Whether a run this process stops on a lease it judged lost (its event loop blocked, or the
   * process frozen, past the lease) is handed back `queued` rather than recorded `failed`: the job
   * has attempts left to resume it.
   */
  handBackOnLeaseLost: () => boolean;
  /** Publishes on the run's channel. */
  send: (items: WireItem[]) => void;
  /** The run as the worker has just read it (`resume` then does not read it again). */
  known?: RunInfo;
}

/**
 * Runs one segment of a run with `executor.resume` (a queued run starts there), publishing its
 * events as they are recorded and its tokens as they stream. Resolves when the segment is over and,
 * if it stopped early, once its last write (the one that gives the lease up) is in the store.
 *
 * @internal
 */
export async function runSegment(request: SegmentRequest): Promise<SegmentOutcome> {
  const { executor, runId, decisions, signal, send } = request;
  const publisher = new RunEventPublisher(send);
  let started = false;
  const tap = tapStore(request.store, {
    written: (events) => publisher.written(events),
    rewrite: (update, found) => {
      if (request.handingOff()) return update.status === "cancelled" ? handedBack(update) : update;
      if (started && leaseLostEnd(update) && request.handBackOnLeaseLost()) return handedBack(update);
      if (!started && update.release === true) {
        // A cancel that landed while `resume` claimed the run: the executor gives the claim back as
        // it found the run (queued, paused); the person who cancelled it wants it cancelled.
        if (signal.aborted && update.status !== "cancelled") return { ...update, status: "cancelled", error: `The run was aborted: ${reasonOf(signal)}` };
        // A run its stopped worker left `running` that `resume` could not go on with (a record it
        // cannot read, a store that failed): the executor cannot give it back as `running`, and
        // gives it back `cancelled`, though nobody cancelled it. It goes back `queued`: the job is
        // retried, or the run is failed with the reason (a record no worker can read).
        if (!signal.aborted && found === "running" && update.status === "cancelled") return handedBack(update);
      }
      return update;
    },
    ...(request.known === undefined ? {} : { known: request.known }),
  });
  let last: AgentStreamEvent | undefined;
  const outcome = await new Promise<SegmentOutcome>((resolve) => {
    executor.resume(runId, { store: tap.store, signal, ...(decisions === undefined ? {} : { decisions }) }).subscribe({
      next: (event) => {
        if (event.type === "start") started = true;
        last = event;
        publisher.emitted(event);
      },
      error: (error: unknown) => resolve({ kind: "error", error, started }),
      complete: () => {
        const status = last?.type === "output" && last.stopReason === "interrupted" ? "interrupted" : "finished";
        resolve(started ? { kind: "ended", status } : { kind: "replayed", status });
      },
    });
  });
  if (outcome.kind === "error" && started) await withTimeout(tap.released, RELEASE_WAIT_MS);
  if (outcome.kind === "error" && !started && signal.aborted) {
    // Stopped (a cancel, a hand-off) while `resume` claimed the run: the executor gave up before the
    // run started and wrote nothing, which would leave the run `running` under a lease no one
    // renews. Give it up as the executor would have (a hand-off records it as queued).
    const release = tap.releaseClaim({ status: "cancelled", error: `The run was aborted: ${reasonOf(signal)}` }).then(
      () => undefined,
      () => undefined, // lost meanwhile (cancelled through the store, taken over): nothing to give up
    );
    await withTimeout(release, RELEASE_WAIT_MS);
  }
  return outcome;
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : String(reason ?? "the signal aborted");
}

/**
 * Whether `update` is the end the executor writes after this process judged its own lease lost:
 * `failed` with the lease released, no checkpoint, and the `RunLeaseLostError` as its error (the
 * executor writes no end after a lease the store said another process holds, so this error in an
 * end write is always the process's own judgement).
 */
function leaseLostEnd(update: RunUpdate): boolean {
  return update.status === "failed" && update.release === true && update.checkpoint === undefined && typeof update.error === "string" && update.error.startsWith("RunLeaseLostError: ");
}

function handedBack(update: RunUpdate): RunUpdate {
  const { error: _error, ...rest } = update;
  return { ...rest, status: "queued" };
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
