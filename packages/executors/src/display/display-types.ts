import type { UsageMetadata } from "@langchain/core/messages";
import type { Interrupt, StopReason } from "../executor/events";
import type { RunStore } from "../runs/run-store";

// The types of a run's notebook display and trace page. They live here, with no code, so that
// `@agentrx/executors` names them without importing the display itself, which is in
// `@agentrx/viewer` (see docs/notebooks.md and docs/trace-viewer.md).

/** The MIME type of a run display's JSON: {@link RunTableSummary}. */
export const RUN_MIME_TYPE = "application/vnd.agentrx.run+json";

/** A Jupyter MIME bundle: MIME type to data. */
export type MimeBundle = Record<string, unknown>;

/** Where a run the notebook table shows stands. */
export type RunTableStatus = "running" | "finished" | "interrupted" | "failed" | "cancelled";

/** The JSON a run's display carries (`application/vnd.agentrx.run+json`). */
export interface RunTableSummary {
  runId?: string;
  status: RunTableStatus;
  stopReason?: StopReason;
  /** The answer (`""` for a paused run); absent while running or after a failure. */
  output?: string;
  /**
   * Tool calls the table shows: those the agent asked for (`action` events; a resumed run counts
   * the calls it resumed with), and the calls a resumed run still waits for whose action came in
   * an earlier segment.
   */
  actions: number;
  /** Steps that came back (`step` events: tool calls that ran, and parse errors shown to the agent). */
  steps: number;
  interrupts?: Pick<Interrupt, "id" | "tool" | "toolInput">[];
  usage?: UsageMetadata;
  error?: string;
}

/**
 * A run's final display: its trace as HTML (with the table when nothing showed it live), the table
 * as text, and its summary as JSON. Itself displayable: as a cell's last value in Deno's kernel it
 * shows as the picture, not as JSON.
 */
export interface RunDisplayBundle extends MimeBundle {
  "text/html": string;
  "text/plain": string;
  "application/vnd.agentrx.run+json": RunTableSummary;
}

/** Where a display shows its live table; `show` once, then `update` in place. */
export interface LiveRunDisplay {
  /** Shows the table for the first time. */
  show(bundle: MimeBundle): void | Promise<void>;
  /** Replaces what `show` showed. */
  update(bundle: MimeBundle): void | Promise<void>;
}

/** Options of `displayRun` (`@agentrx/viewer`). */
export interface DisplayRunOptions {
  /**
   * Where the live table goes while the run runs. `false`: nowhere (only the final bundle).
   * @default Deno's Jupyter kernel (`Deno.jupyter.broadcast`) when the code runs in it, else nowhere
   */
  live?: LiveRunDisplay | false;
  /**
   * The store holding the run's record, for its trace. A run made by an executor knows its own (the
   * executor's or the call's; an unrecorded run is recorded in memory for the display).
   */
  store?: RunStore;
  /**
   * Least time between two updates of the live table, in milliseconds (`0`: every change at once).
   * @default 100
   */
  throttleMs?: number;
  /**
   * Height of the trace's frame, in CSS pixels.
   * @default 520
   */
  traceHeight?: number;
}

/** Options of `renderTracePage` (`@agentrx/viewer`). */
export interface RenderTracePageOptions {
  /**
   * Where the record comes from, as the page names it (e.g. a file name or a database).
   * @default "run store"
   */
  source?: string;
  /**
   * Characters of recorded text the page carries in all; the longest texts are cut to fit.
   * @default 2_500_000
   */
  textBudget?: number;
}
