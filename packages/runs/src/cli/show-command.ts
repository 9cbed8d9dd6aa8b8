import { RunEventDecoder, errorMessageOf, renderTrace, type RunInfo, type RunStore, type StoredRunEvent } from "@agentrx/executors";
import { formatRuntime, isUnreadableRunEvent, readReadableEvents } from "@agentrx/viewer/trace-page";
import { lastValueFrom } from "rxjs";
import type { CliIo } from "./cli-io";
import { cliStyle, isStalled, isUnmadeFork, runCostText, runDurationMs, runStatusLabel, stalledHint, turns, unmadeForkState, wantsColors } from "./format-runs-table";
import { readableRunEvents, type UnreadableEvent } from "./readable-run-events";
import { requireRun } from "./require-run";
import { unreadableWarning } from "./unreadable-warning";
import { jsonText, printable } from "./printable";

const fmt = formatRuntime();

/** What `agentrx show` is asked for. */
export interface ShowCommandOptions {
  json: boolean;
  /** How the store is named in messages. */
  label: string;
}

/**
 * `agentrx show <runId>`: a summary line, then the run's trace decoded from its record in the
 * look of `printTrace` (with usage lines); `--json` prints `{ run, events }` (the store's
 * `RunInfo` and every `StoredRunEvent`).
 *
 * A damaged record is shown, not refused: each event that cannot be read or decoded is an
 * `unreadable event N: why` line in its place (with `--json`, an entry `{ seq, error }` of an
 * `unreadable` array next to `events`; an event that was read but cannot be decoded is in both,
 * its data as stored), the rest is shown as recorded, and one warning line on stderr names those
 * events, the same ones with and without `--json`. The command still succeeds (exit 0): the output is what the record
 * holds. Replaying or resuming such a run fails, as it should.
 *
 * @internal
 */
export async function showCommand(store: RunStore, runId: string, options: ShowCommandOptions, io: CliIo): Promise<void> {
  const run = await requireRun(store, runId, options.label);
  const unreadable: UnreadableEvent[] = [];
  if (options.json) {
    const events: StoredRunEvent[] = [];
    // Decoded as the trace is, so that an event the trace cannot show is named here too.
    const decoder = new RunEventDecoder(runId);
    for await (const page of readReadableEvents(store, runId, "agentrx show")) {
      for (const entry of page) {
        if (isUnreadableRunEvent(entry)) {
          unreadable.push({ seq: entry.seq, error: entry.error });
          continue;
        }
        events.push(entry);
        try {
          decoder.decode(entry);
        } catch (error) {
          unreadable.push({ seq: entry.seq, error: `it cannot be decoded (${errorMessageOf(error)})` });
        }
      }
    }
    io.stdout.write(`${jsonText({ run, events, ...(unreadable.length > 0 ? { unreadable } : {}) })}\n`);
    warn(io, runId, unreadable, "the others are listed under \"unreadable\"");
    return;
  }
  const colors = wantsColors(io.stdout, io.env);
  const style = cliStyle(colors);
  io.stdout.write(`${summaryLine(run, style)}\n\n`);
  // The trace writes a model's text without a line break until the next event: an unreadable
  // event's line starts on a line of its own, and the break the trace then writes is not doubled.
  let lineOpen = false;
  let skipBreak = false;
  const write = (text: string) => {
    if (text === "") return;
    if (skipBreak && text.startsWith("\n")) text = text.slice(1);
    skipBreak = false;
    if (text === "") return;
    io.stdout.write(text);
    lineOpen = !text.endsWith("\n");
  };
  const onUnreadable = (event: UnreadableEvent) => {
    unreadable.push(event);
    if (lineOpen) io.stdout.write("\n");
    skipBreak = lineOpen;
    lineOpen = false;
    io.stdout.write(`${style.status("failed", `unreadable event ${event.seq}`)}: ${printable(event.error)}\n`);
  };
  await lastValueFrom(readableRunEvents(store, runId, onUnreadable).pipe(renderTrace({ write, colors, usage: true })), { defaultValue: undefined });
  const now = Date.now();
  if (isUnmadeFork(run) && unmadeForkState(run, now) === "stopped") {
    const source = printable((run.forkOf as NonNullable<RunInfo["forkOf"]>).runId);
    io.stdout.write(
      style.dim(
        `\n(running, stalled: a fork of ${source} whose copy of its record was never written; the process making it stopped, and nothing of it ran)\nResume it to delete it: executor.resume(${printable(JSON.stringify(runId))}); then fork run ${source} again.\n`,
      ),
    );
  } else if (isStalled(run, now)) {
    io.stdout.write(style.dim(`\n(running, stalled; the record ends here)\n${stalledHint([runId])}\n`));
  } else if (run.status !== "finished") {
    const why = run.error !== undefined ? `: ${printable(run.error)}` : "";
    io.stdout.write(style.dim(`\n(${run.status}${why}; the record ends here${run.status === "running" ? " for now" : ""})\n`));
  }
  warn(io, runId, unreadable, "each marked \"unreadable event\" in its place");
}

function warn(io: CliIo, runId: string, unreadable: readonly UnreadableEvent[], where: string): void {
  const warning = unreadableWarning(
    runId,
    unreadable.map((event) => event.seq),
    where,
  );
  if (warning !== undefined) io.stderr.write(warning);
}

function summaryLine(run: RunInfo, style: ReturnType<typeof cliStyle>): string {
  const parts = [
    `${style.bold("Run")} ${printable(run.runId)}`,
    style.status(run.status, runStatusLabel(run, Date.now())) + (run.stopReason !== undefined ? ` (${printable(run.stopReason)})` : ""),
    run.usage?.total_tokens !== undefined ? `${fmt.count(run.usage.total_tokens)} tokens` : undefined,
    runCostText(run),
    fmt.duration(runDurationMs(run)),
    run.checkpoint !== undefined ? turns(run.checkpoint.iteration) : undefined,
    run.threadId !== undefined ? `thread ${printable(run.threadId)}` : undefined,
    run.forkOf !== undefined ? forkPart(run) : undefined,
    `started ${fmt.time(run.createdAt)}`,
  ];
  return parts.filter((part) => part !== undefined).join(" · ");
}

/**
 * The summary's lineage part: which run and iteration it was forked from, and, when turns were
 * copied, that the tokens and cost before it count them (the fork's record holds their usage;
 * they were paid for once, by the source run).
 */
function forkPart(run: RunInfo): string {
  const forkOf = run.forkOf as NonNullable<RunInfo["forkOf"]>;
  const { iteration } = forkOf;
  const runId = printable(forkOf.runId);
  if (isUnmadeFork(run)) return `fork of ${runId}@${iteration} (its copy ${unmadeForkState(run, Date.now()) === "making" ? "not written yet" : "never written"})`;
  if (iteration === 0) return `fork of ${runId}@0`;
  return `fork of ${runId}@${iteration} (tokens and cost count its ${iteration} copied turn${iteration === 1 ? "" : "s"})`;
}
