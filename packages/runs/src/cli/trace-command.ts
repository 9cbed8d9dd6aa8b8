import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RunStore } from "@agentrx/executors";
import { readTracePage, tracePageHtml } from "@agentrx/viewer/trace-page";
import type { CliIo } from "./cli-io";
import { shownRunId } from "./quote-value";
import { requireRun } from "./require-run";
import { unreadableWarning } from "./unreadable-warning";
import { refuseStoreFile, shownPath, writeOutputFile } from "./write-output-file";

/** What `agentrx trace` is asked for. */
export interface TraceCommandOptions {
  /** The file to write, or a directory to write `<runId>.html` into; `-` for stdout. @default "<runId>.html" */
  output?: string;
  /** How the store is named in the page and in messages. */
  label: string;
  /** The SQLite store's file, which `output` must not name. */
  storeFile?: string;
}

/**
 * `agentrx trace <runId> -o run.html`: the run's trace page, one self-contained HTML file (inline
 * CSS and script, no request), to open in a browser or attach to a bug report.
 *
 * A damaged record still gives a page: each event that cannot be read is a row saying why, and
 * the page's header names them. The command succeeds (exit 0) and one warning line on stderr names
 * those events. A page is never written over the SQLite store it reads (`-o runs.db`).
 *
 * @internal
 */
export async function traceCommand(store: RunStore, runId: string, options: TraceCommandOptions, io: CliIo): Promise<void> {
  // Where the page goes, checked before the run is read.
  const path = options.output === "-" ? undefined : outputPath(runId, options.output, io.cwd);
  if (path !== undefined) refuseStoreFile(path, options.storeFile, "-o", io.cwd);
  await requireRun(store, runId, options.label);
  const source = await readTracePage(store, runId, { mode: "file", source: options.label });
  const unreadable = source.events.flatMap((event) => (event.type === "other" && event.error !== undefined ? [event.seq] : []));
  const html = tracePageHtml(source);
  const warning = unreadableWarning(runId, unreadable, "each marked unreadable on the page");
  if (path === undefined) {
    io.stdout.write(html);
    if (warning !== undefined) io.stderr.write(warning);
    return;
  }
  writeOutputFile(path, html, "-o", io.cwd);
  io.stdout.write(`Wrote ${shownPath(io.cwd, path)} (${kilobytes(Buffer.byteLength(html))}): the trace of run ${shownRunId(runId)}. Open it in a browser.\n`);
  if (warning !== undefined) io.stderr.write(warning);
}

/**
 * Where `-o` writes: the file it names, or `<runId>.html` in the directory it names (an existing
 * one, or any path ending with `/`), or in the working directory without `-o`. The default name
 * keeps letters, digits, `.`, `_` and `-` of the run id (others become `_`), at most 100 of them.
 */
function outputPath(runId: string, output: string | undefined, cwd: string): string {
  const name = `${runId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100)}.html`;
  if (output === undefined) return resolve(cwd, name);
  const path = resolve(cwd, output);
  return /[\\/]$/.test(output) || isDirectory(path) ? join(path, name) : path;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false; // writing there fails, and says why
  }
}

/** `12 KB`, `1.2 MB`. @internal */
export function kilobytes(bytes: number): string {
  return bytes < 1_000_000 ? `${Math.max(1, Math.round(bytes / 1000))} KB` : `${(bytes / 1_000_000).toFixed(1)} MB`;
}
