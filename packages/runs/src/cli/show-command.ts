import { renderTrace, type RunInfo, type RunStore, readRecordedEvents } from "@agentrx/executors";
import { lastValueFrom } from "rxjs";
import { replayRun } from "../replay/index";
import { formatRuntime } from "@agentrx/executors/trace-page";
import type { CliIo } from "./cli-io";
import { cliStyle, runDurationMs, wantsColors } from "./format-runs-table";
import { requireRun } from "./require-run";

const fmt = formatRuntime();

/** What `agentrx show` is asked for. */
export interface ShowCommandOptions {
  json: boolean;
  /** How the store is named in messages. */
  label: string;
}

/**
 * `agentrx show <runId>`: a summary line, then the run's trace replayed from its record in the
 * look of `printTrace` (with usage lines); `--json` prints `{ run, events }` (the store's
 * `RunInfo` and every `StoredRunEvent`).
 *
 * @internal
 */
export async function showCommand(store: RunStore, runId: string, options: ShowCommandOptions, io: CliIo): Promise<void> {
  const run = await requireRun(store, runId, options.label);
  if (options.json) {
    const events = [];
    for await (const page of readRecordedEvents(store, runId, "agentrx show")) events.push(...page);
    io.stdout.write(`${JSON.stringify({ run, events }, null, 2)}\n`);
    return;
  }
  const colors = wantsColors(io.stdout, io.env);
  const style = cliStyle(colors);
  io.stdout.write(`${summaryLine(run, style)}\n\n`);
  await lastValueFrom(replayRun(store, runId).pipe(renderTrace({ write: (text) => void io.stdout.write(text), colors, usage: true })), { defaultValue: undefined });
  if (run.status !== "finished") {
    const why = run.error !== undefined ? `: ${run.error}` : "";
    io.stdout.write(style.dim(`\n(${run.status}${why}; the record ends here${run.status === "running" ? " for now" : ""})\n`));
  }
}

function summaryLine(run: RunInfo, style: ReturnType<typeof cliStyle>): string {
  const parts = [
    `${style.bold("Run")} ${run.runId}`,
    style.status(run.status, run.status) + (run.stopReason !== undefined ? ` (${run.stopReason})` : ""),
    run.usage?.total_tokens !== undefined ? `${fmt.count(run.usage.total_tokens)} tokens` : undefined,
    fmt.duration(runDurationMs(run)),
    run.checkpoint !== undefined ? `${run.checkpoint.iteration} iteration${run.checkpoint.iteration === 1 ? "" : "s"}` : undefined,
    run.threadId !== undefined ? `thread ${run.threadId}` : undefined,
    `started ${fmt.time(run.createdAt)}`,
  ];
  return parts.filter((part) => part !== undefined).join(" · ");
}
