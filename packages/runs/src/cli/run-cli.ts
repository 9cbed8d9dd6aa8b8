import { parseArgs } from "node:util";
import packageJson from "../../package.json";
import { CliError, usageError } from "./cli-error";
import type { CliIo } from "./cli-io";
import { DEFAULT_RUNS_LIMIT, DEFAULT_UI_PORT, HELP_TEXT } from "./help-text";
import { redact } from "./redact";
import { decodeCursor } from "../internal/run-list-query";
import type { ListRunsOptions } from "@agentrx/executors";

const OPTIONS = {
  db: { type: "string" },
  schema: { type: "string" },
  thread: { type: "string" },
  status: { type: "string" },
  limit: { type: "string" },
  search: { type: "string" },
  sort: { type: "string" },
  order: { type: "string" },
  cursor: { type: "string" },
  since: { type: "string" },
  before: { type: "string" },
  "min-cost": { type: "string" },
  "max-cost": { type: "string" },
  errors: { type: "boolean" },
  "no-errors": { type: "boolean" },
  json: { type: "boolean" },
  output: { type: "string", short: "o" },
  html: { type: "string" },
  port: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

type OptionName = keyof typeof OPTIONS;

/** The options each command takes besides `--db` and `--schema`, and how many positionals. */
const COMMANDS: Record<string, { options: OptionName[]; runId: boolean; secondRunId?: boolean }> = {
  runs: {
    options: ["thread", "status", "limit", "json", "search", "sort", "order", "cursor", "since", "before", "min-cost", "max-cost", "errors", "no-errors"],
    runId: false,
  },
  show: { options: ["json"], runId: true },
  diff: { options: ["json", "html"], runId: true, secondRunId: true },
  trace: { options: ["output"], runId: true },
  ui: { options: ["port"], runId: false },
};

type RunStatus = "queued" | "running" | "interrupted" | "finished" | "failed" | "cancelled";

const STATUSES: readonly RunStatus[] = ["queued", "running", "interrupted", "finished", "failed", "cancelled"];

/**
 * The `agentrx` command line: parses `argv` (without `node` and the script), runs the command and
 * resolves with the exit code: 0, done; 1, it failed (one line on stderr says why); 2, the command
 * line is wrong. Never throws and never prints a stack trace.
 *
 * @internal
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    await run(argv, io);
    return 0;
  } catch (error) {
    io.stderr.write(`agentrx: ${oneLine(error)}\n`);
    return CliError.isInstance(error) ? error.exitCode : 1;
  }
}

async function run(argv: readonly string[], io: CliIo): Promise<void> {
  const { values, positionals } = parse(argv);
  if (values.version) {
    io.stdout.write(`${packageJson.version}\n`);
    return;
  }
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === "help") {
    io.stdout.write(HELP_TEXT);
    return;
  }
  const accepted = COMMANDS[command];
  if (accepted === undefined) throw usageError(`unknown command ${JSON.stringify(command)}: use runs, show, diff, trace or ui`);
  for (const name of Object.keys(values) as OptionName[]) {
    if (name !== "db" && name !== "schema" && !accepted.options.includes(name)) throw usageError(`agentrx ${command} does not take --${name}`);
  }
  const runId = rest[0];
  if (accepted.runId && (runId === undefined || runId === "")) throw usageError(`agentrx ${command} needs a run id, as in agentrx ${command} <runId>; agentrx runs lists them`);
  const otherRunId = rest[1];
  if (accepted.secondRunId && (otherRunId === undefined || otherRunId === "")) throw usageError(`agentrx ${command} needs two run ids, as in agentrx ${command} <runA> <runB>`);
  const extra = rest.slice(accepted.runId ? (accepted.secondRunId ? 2 : 1) : 0);
  if (extra.length > 0) throw usageError(`unexpected argument ${JSON.stringify(extra[0])} for agentrx ${command}`);
  const status = values.status === undefined ? undefined : parseStatus(values.status);
  const limit = values.limit === undefined ? DEFAULT_RUNS_LIMIT : parseInteger("--limit", values.limit, 1, 10_000);
  const port = values.port === undefined ? DEFAULT_UI_PORT : parseInteger("--port", values.port, 0, 65_535);
  if (values.output === "") throw usageError("--output needs a file name (or - for stdout)");
  if (values.html === "") throw usageError("--html needs a file name (or - for stdout)");
  if (values.html !== undefined && values.json === true) throw usageError("agentrx diff takes --json or --html, not both");
  if (values.db === "") throw usageError("--db needs a file path or a postgres:// URL");
  // The `runs` filters too: a wrong one answers before the store is opened.
  const query = command === "runs" ? runsQuery(values, status, limit) : undefined;

  // Loaded once the command line is known to be right: a usage mistake answers at once.
  const { openRunStore } = await import("./open-run-store");
  const { store, label } = await openRunStore({ db: values.db, schema: values.schema, env: io.env, cwd: io.cwd });
  try {
    switch (command) {
      case "runs":
        await (await import("./runs-command")).runsCommand(store, { ...(query as ReturnType<typeof runsQuery>), json: values.json === true, label }, io);
        break;
      case "show":
        await (await import("./show-command")).showCommand(store, runId as string, { json: values.json === true, label }, io);
        break;
      case "diff":
        await (await import("./diff-command")).diffCommand(store, runId as string, otherRunId as string, { json: values.json === true, label, ...(values.html === undefined ? {} : { html: values.html }) }, io);
        break;
      case "trace":
        await (await import("./trace-command")).traceCommand(store, runId as string, { output: values.output, label }, io);
        break;
      case "ui":
        await (await import("./ui-command")).uiCommand(store, { port, label }, io);
        break;
    }
  } finally {
    await store.close().catch(() => undefined);
  }
}

function parse(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = (error as Error).message;
    const option = /'(-{1,2}[^' ]+)/.exec(message)?.[1];
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw usageError(`unknown option ${option ?? message}`);
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") throw usageError(option ? `${option} needs a value` : message);
    throw usageError(message.split("\n")[0] as string);
  }
}

type Values = ReturnType<typeof parse>["values"];

/** The `listRuns` options of `agentrx runs`, and its filter flags as given (for the next-page hint). */
function runsQuery(values: Values, status: RunStatus[] | undefined, limit: number): { query: ListRunsOptions & { limit: number }; flags: string[] } {
  const query: ListRunsOptions & { limit: number } = { limit };
  const flags: string[] = [];
  const flag = (name: string, value?: string) => flags.push(`--${name}`, ...(value === undefined ? [] : [shellWord(value)]));
  if (values.thread === "") throw usageError("--thread needs a thread id");
  if (values.thread !== undefined) (query.threadId = values.thread), flag("thread", values.thread);
  if (status !== undefined) (query.status = status), flag("status", status.join(","));
  if (values.search !== undefined) (query.search = values.search), flag("search", values.search);
  if (values.sort !== undefined) {
    const sorts: Record<string, NonNullable<ListRunsOptions["sort"]>> = { created: "createdAt", createdAt: "createdAt", updated: "updatedAt", updatedAt: "updatedAt", cost: "cost" };
    const sort = sorts[values.sort];
    if (sort === undefined) throw usageError(`--sort ${JSON.stringify(values.sort)} is not a sort; use created, updated or cost`);
    query.sort = sort;
    flag("sort", values.sort);
  }
  if (values.order !== undefined) {
    if (values.order !== "asc" && values.order !== "desc") throw usageError(`--order must be asc or desc, got ${JSON.stringify(values.order)}`);
    query.order = values.order;
    flag("order", values.order);
  }
  if (values.since !== undefined) (query.since = parseTime("--since", values.since)), flag("since", values.since);
  if (values.before !== undefined) (query.before = parseTime("--before", values.before)), flag("before", values.before);
  if (query.since !== undefined && query.before !== undefined && query.since >= query.before) {
    throw usageError(`--since ${values.since} is not before --before ${values.before}: no run can match`);
  }
  if (values["min-cost"] !== undefined) (query.minCost = parseDollars("--min-cost", values["min-cost"])), flag("min-cost", values["min-cost"]);
  if (values["max-cost"] !== undefined) (query.maxCost = parseDollars("--max-cost", values["max-cost"])), flag("max-cost", values["max-cost"]);
  if (values.errors && values["no-errors"]) throw usageError("--errors and --no-errors cannot be used together");
  if (values.errors) (query.hasError = true), flag("errors");
  if (values["no-errors"]) (query.hasError = false), flag("no-errors");
  if (limit !== DEFAULT_RUNS_LIMIT) flag("limit", String(limit));
  if (values.cursor !== undefined) {
    if (values.cursor === "") throw usageError("--cursor needs the cursor a previous page printed");
    try {
      decodeCursor(values.cursor, query.sort ?? "createdAt", query.order ?? "desc");
    } catch {
      throw usageError(`--cursor ${JSON.stringify(values.cursor)} is not a cursor agentrx runs printed for this --sort and --order`);
    }
    query.cursor = values.cursor;
  }
  return { query, flags };
}

/** A date (`2026-11-25`, `2026-11-25T10:00`), epoch milliseconds, or an age (`30m`, `2h`, `7d`: that long ago). */
function parseTime(flag: string, value: string): number {
  const age = /^(\d+)([smhd])$/.exec(value);
  if (age) return Date.now() - Number(age[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[age[2] as "s" | "m" | "h" | "d"];
  if (/^\d{10,}$/.test(value)) return Number(value);
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw usageError(`${flag} must be a date (2026-11-25 or 2026-11-25T10:00), epoch milliseconds or an age such as 2h or 7d, got ${JSON.stringify(value)}`);
  return time;
}

function parseDollars(flag: string, value: string): number {
  const amount = /^\$?\d+(\.\d+)?$/.test(value) ? Number(value.replace("$", "")) : Number.NaN;
  if (!Number.isFinite(amount)) throw usageError(`${flag} must be an amount of US dollars such as 0.05, got ${JSON.stringify(value)}`);
  return amount;
}

/** A value as one shell word (quoted when it holds anything but safe characters). */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

function parseStatus(value: string): RunStatus[] {
  const statuses = value.split(",").map((item) => item.trim()).filter((item) => item !== "");
  const wrong = statuses.find((item) => !STATUSES.includes(item as RunStatus));
  if (statuses.length === 0 || wrong !== undefined) throw usageError(`--status ${JSON.stringify(wrong ?? value)} is not a run status; use ${STATUSES.join(", ")} (or several, comma-separated)`);
  return statuses as RunStatus[];
}

function parseInteger(flag: string, value: string, min: number, max: number): number {
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) throw usageError(`${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return number;
}

/** An error's message on one line, never a stack trace; a connection string's password is hidden. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = redact(message.split("\n").find((part) => part.trim() !== "") ?? "unknown error").trim();
  return CliError.isInstance(error) || !(error instanceof Error) || error.name === "Error" || line.startsWith(error.name) ? line : `${error.name}: ${line}`;
}
