import { writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { RunStore } from "@agentrx/executors";
import { readTracePage, tracePageHtml } from "@agentrx/viewer/trace-page";
import { CliError } from "./cli-error";
import type { CliIo } from "./cli-io";
import { requireRun } from "./require-run";
import { unreadableWarning } from "./unreadable-warning";

/** What `agentrx trace` is asked for. */
export interface TraceCommandOptions {
  /** The file to write; `-` for stdout. @default "<runId>.html" */
  output?: string;
  /** How the store is named in the page and in messages. */
  label: string;
}

/**
 * `agentrx trace <runId> -o run.html`: the run's trace page, one self-contained HTML file (inline
 * CSS and script, no request), to open in a browser or attach to a bug report.
 *
 * A damaged record still gives a page: each event that cannot be read is a row saying why, and
 * the page's header names them. The command succeeds (exit 0) and one warning line on stderr names
 * those events.
 *
 * @internal
 */
export async function traceCommand(store: RunStore, runId: string, options: TraceCommandOptions, io: CliIo): Promise<void> {
  await requireRun(store, runId, options.label);
  const source = await readTracePage(store, runId, { mode: "file", source: options.label });
  const unreadable = source.events.flatMap((event) => (event.type === "other" && event.error !== undefined ? [event.seq] : []));
  const html = tracePageHtml(source);
  const warning = unreadableWarning(runId, unreadable, "each marked unreadable on the page");
  if (options.output === "-") {
    io.stdout.write(html);
    if (warning !== undefined) io.stderr.write(warning);
    return;
  }
  const path = resolve(io.cwd, options.output ?? `${runId.replace(/[^A-Za-z0-9._-]/g, "_")}.html`);
  try {
    writeFileSync(path, html);
  } catch (error) {
    throw new CliError({ message: `cannot write ${path}: ${(error as Error).message}`, cause: error });
  }
  const shown = relative(io.cwd, path).startsWith("..") ? path : relative(io.cwd, path);
  io.stdout.write(`Wrote ${shown} (${kilobytes(Buffer.byteLength(html))}): the trace of run ${runId}. Open it in a browser.\n`);
  if (warning !== undefined) io.stderr.write(warning);
}

/** `12 KB`, `1.2 MB`. @internal */
export function kilobytes(bytes: number): string {
  return bytes < 1_000_000 ? `${Math.max(1, Math.round(bytes / 1000))} KB` : `${(bytes / 1_000_000).toFixed(1)} MB`;
}
