import { parseArgs } from "node:util";
import packageJson from "../../package.json";
import { CliError, usageError } from "./cli-error";
import type { CliIo } from "./cli-io";
import { DEFAULT_RUNS_LIMIT, DEFAULT_UI_PORT, HELP_TEXT } from "./help-text";
import { quoteValue, shellWord } from "./quote-value";
import { redact } from "../internal/redact";
import { decodeCursor, searchTerms } from "../internal/run-list-query";
import type { ListRunsOptions } from "@agentrx/executors";

const OPTIONS = {
  db: { type: "string" },
  schema: { type: "string" },
  thread: { type: "string" },
  // Several statuses: comma-separated, the option repeated, or both (as the `ui`'s `status=`).
  status: { type: "string", multiple: true },
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
 * line is wrong; 130, `io.signal` aborted it (Ctrl-C). Never throws and never prints a stack trace.
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
  const { values, positionals } = parse(joinNegativeValues(argv));
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
  if (accepted === undefined) throw usageError(`unknown command ${quoteValue(command)}: use runs, show, diff, trace or ui`);
  for (const name of Object.keys(values) as OptionName[]) {
    if (name !== "db" && name !== "schema" && !accepted.options.includes(name)) throw usageError(`agentrx ${command} does not take --${name}`);
  }
  const runId = rest[0];
  if (accepted.runId && (runId === undefined || runId === "")) throw usageError(`agentrx ${command} needs a run id, as in agentrx ${command} <runId>; agentrx runs lists them`);
  const otherRunId = rest[1];
  if (accepted.secondRunId && (otherRunId === undefined || otherRunId === "")) throw usageError(`agentrx ${command} needs two run ids, as in agentrx ${command} <runA> <runB>`);
  const extra = rest.slice(accepted.runId ? (accepted.secondRunId ? 2 : 1) : 0);
  if (extra.length > 0) throw usageError(`unexpected argument ${quoteValue(extra[0] as string)} for agentrx ${command}`);
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
  // Ctrl-C stops any command at once (a server that does not answer, a long read); `ui` stops on
  // it too, after closing its server.
  const { store, label, file } = await untilAborted(openRunStore({ db: values.db, schema: values.schema, env: io.env, cwd: io.cwd }), io.signal);
  const out = afterAbortQuiet(io);
  const execute = async (): Promise<void> => {
    switch (command) {
      case "runs":
        return (await import("./runs-command")).runsCommand(store, { ...(query as ReturnType<typeof runsQuery>), json: values.json === true, label }, out);
      case "show":
        return (await import("./show-command")).showCommand(store, runId as string, { json: values.json === true, label }, out);
      case "diff":
        return (await import("./diff-command")).diffCommand(store, runId as string, otherRunId as string, { json: values.json === true, label, storeFile: file, ...(values.html === undefined ? {} : { html: values.html }) }, out);
      case "trace":
        return (await import("./trace-command")).traceCommand(store, runId as string, { output: values.output, label, storeFile: file }, out);
      case "ui":
        return (await import("./ui-command")).uiCommand(store, { port, label }, out);
    }
  };
  try {
    if (command === "ui") {
      // `ui` serves until Ctrl-C, then closes its server: stopped so, it ends as any command does.
      await execute();
      if (io.signal?.aborted) throw interrupted();
    } else await untilAborted(execute(), io.signal);
  } finally {
    const closing = store.close().catch(() => undefined);
    // After Ctrl-C, closing waits for the query it stopped (one a lock holds on the server, say):
    // the store is left to the process's end.
    if (io.signal?.aborted !== true) await closing;
  }
}

/**
 * `io` whose output ends when `io.signal` aborts: a command stopped by Ctrl-C goes on until the
 * process ends (a query the server answers late), and has nothing more to print.
 */
function afterAbortQuiet(io: CliIo): CliIo {
  const { signal, stdout, stderr } = io;
  if (signal === undefined) return io;
  const quiet = (write: (text: string) => unknown) => (text: string) => (signal.aborted ? true : write(text));
  return { ...io, stdout: { ...(stdout.isTTY === undefined ? {} : { isTTY: stdout.isTTY }), write: quiet((text) => stdout.write(text)) }, stderr: { write: quiet((text) => stderr.write(text)) } };
}

/** What a command stopped by Ctrl-C ends with: exit code 130 (128 + SIGINT, as a shell reports it). */
function interrupted(): CliError {
  return new CliError({ message: "interrupted", exitCode: 130 });
}

/** `work`, or a {@link CliError} with exit code 130 as soon as `signal` aborts (what it started is left to the process's end). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  let onAbort = () => undefined as void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(interrupted());
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  work.catch(() => undefined); // a rejection after the abort is not unhandled
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}

/** Long options that take a value. */
const VALUE_OPTIONS = new Set(Object.entries(OPTIONS).flatMap(([name, option]) => (option.type === "string" ? [`--${name}`] : [])));

/**
 * `--limit -1` as `--limit=-1`: a value that starts with a dash and a digit is the option's
 * value, not an option, so that it gets the option's own message ("must be a whole number from 1")
 * instead of `parseArgs`'s "needs a value".
 */
function joinNegativeValues(argv: readonly string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    const next = argv[index + 1];
    if (arg === "--") return [...joined, ...argv.slice(index)];
    if (VALUE_OPTIONS.has(arg) && next !== undefined && /^-[\d.]/.test(next)) {
      joined.push(`${arg}=${next}`);
      index++;
    } else joined.push(arg);
  }
  return joined;
}

/**
 * The command line's options and positionals. An option that takes one value and is given more
 * than once is refused (`--db was given twice`), not read as its last value; `--status` adds up.
 */
function parse(argv: readonly string[]) {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = (error as Error).message;
    // "Option '-o, --output <value>' argument missing": the first name, without the comma.
    const option = /'(-{1,2}[^', ]+)/.exec(message)?.[1];
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      // `-abc` is read as the short options -a, -b, -c: when it was meant as a run id, say how to pass one.
      const given = option !== undefined && !option.startsWith("--") ? argv.find((arg) => arg.startsWith(option) && !arg.startsWith("--")) : undefined;
      const hint = given !== undefined && given.length > 2 ? ` (a run id that starts with "-" goes after --, e.g. agentrx show -- ${given})` : "";
      throw usageError(`unknown option ${option ?? message}${hint}`);
    }
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") throw usageError(option === undefined ? (message.split("\n")[0] as string) : valueMistake(option, message, argv));
    throw usageError(message.split("\n")[0] as string);
  }
  const counts = new Map<string, number>();
  for (const token of parsed.tokens) {
    if (token.kind !== "option") continue;
    const spec: { type: string; multiple?: boolean } = OPTIONS[token.name as OptionName];
    // A flag given twice says the same thing twice; a value given twice is a mistake.
    if (spec.type !== "string" || spec.multiple === true) continue;
    counts.set(token.name, (counts.get(token.name) ?? 0) + 1);
  }
  for (const [name, count] of counts) {
    if (count > 1) throw usageError(`--${name} was given ${count === 2 ? "twice" : `${count} times`}; give it once`);
  }
  return { values: parsed.values, positionals: parsed.positionals };
}

/**
 * What is wrong with the value of `option` (as `parseArgs` names it: `--json`, `-o`): a flag given
 * a value (`--json=false`), a value that starts with a dash (`--search -foo`, which `parseArgs`
 * reads as a forgotten value unless it is written `--search=-foo`), or no value at all (a short
 * option named with its long name too: `-o/--output needs a value`).
 */
function valueMistake(option: string, message: string, argv: readonly string[]): string {
  // A short option's long name: `-o` is `--output`.
  const long = option.startsWith("--") ? option : `--${Object.entries(OPTIONS).find(([, spec]) => "short" in spec && `-${spec.short}` === option)?.[0] ?? option.slice(1)}`;
  if (/does not take an argument/.test(message)) {
    const given = argv.find((arg) => arg.startsWith(`${option}=`));
    return `${option} takes no value${given === undefined ? "" : `, got ${quoteValue(given)}`}; write ${option} alone`;
  }
  if (/ambiguous/.test(message)) {
    const next = argv[argv.indexOf(option) + 1];
    // `--thread --json`: the value was forgotten; `--search -foo`: the value starts with a dash.
    if (next !== undefined && !isOption(next)) {
      return `${option} ${quoteValue(next)}: a value that starts with "-" is written ${long}=${shellWord(next)}`;
    }
  }
  return `${option === long ? option : `${option}/${long}`} needs a value`;
}

/** Whether `arg` is one of the options `agentrx` knows (`--json`, `--limit=5`, `-h`). */
function isOption(arg: string): boolean {
  if (arg.startsWith("--")) return (arg.slice(2).split("=")[0] as string) in OPTIONS;
  return Object.values(OPTIONS).some((spec) => "short" in spec && arg === `-${spec.short}`);
}

type Values = ReturnType<typeof parse>["values"];

/**
 * The `listRuns` options of `agentrx runs`, and its flags as given (for the next-page hint): the
 * filters and sort in `flags`; `--db` (a URL's password left out: the hint is printed, and a
 * terminal's scrollback is no place for one) and `--schema` in `storeFlags`.
 */
function runsQuery(values: Values, status: RunStatus[] | undefined, limit: number): { query: ListRunsOptions & { limit: number }; flags: string[]; storeFlags: string[] } {
  const query: ListRunsOptions & { limit: number } = { limit };
  const flags: string[] = [];
  const storeFlags: string[] = [];
  if (values.db !== undefined) storeFlags.push("--db", shellWord(withoutPassword(values.db)));
  if (values.schema !== undefined) storeFlags.push("--schema", shellWord(values.schema));
  const flag = (name: string, value?: string) => flags.push(`--${name}`, ...(value === undefined ? [] : [shellWord(value)]));
  if (values.thread === "") throw usageError("--thread needs a thread id");
  if (values.thread !== undefined) (query.threadId = values.thread), flag("thread", values.thread);
  if (status !== undefined) (query.status = status), flag("status", status.join(","));
  if (values.search !== undefined) {
    // A search without a word (only punctuation) would match every run.
    if (searchTerms(values.search).length === 0) throw usageError(`--search ${quoteValue(values.search)} has no word to search for; give words (punctuation only separates them)`);
    query.search = values.search;
    flag("search", values.search);
  }
  if (values.sort !== undefined) {
    const sorts: Record<string, NonNullable<ListRunsOptions["sort"]>> = { created: "createdAt", createdAt: "createdAt", updated: "updatedAt", updatedAt: "updatedAt", cost: "cost" };
    const sort = sorts[values.sort];
    if (sort === undefined) throw usageError(`--sort ${quoteValue(values.sort)} is not a sort; use created, updated or cost`);
    query.sort = sort;
    flag("sort", values.sort);
  }
  if (values.order !== undefined) {
    if (values.order !== "asc" && values.order !== "desc") throw usageError(`--order must be asc or desc, got ${quoteValue(values.order)}`);
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
  if (query.minCost !== undefined && query.maxCost !== undefined && query.minCost > query.maxCost) {
    throw usageError(`--min-cost ${values["min-cost"]} is above --max-cost ${values["max-cost"]}: no run can match`);
  }
  if (values.errors && values["no-errors"]) throw usageError("--errors and --no-errors cannot be used together");
  if (values.errors) (query.hasError = true), flag("errors");
  if (values["no-errors"]) (query.hasError = false), flag("no-errors");
  if (limit !== DEFAULT_RUNS_LIMIT) flag("limit", String(limit));
  if (values.cursor !== undefined) {
    if (values.cursor === "") throw usageError("--cursor needs the cursor a previous page printed");
    try {
      decodeCursor(values.cursor, query.sort ?? "createdAt", query.order ?? "desc");
    } catch {
      throw usageError(`--cursor ${quoteValue(values.cursor)} is not a cursor agentrx runs printed for this --sort and --order`);
    }
    query.cursor = values.cursor;
  }
  return { query, flags, storeFlags };
}

/**
 * A `--db` value without the password of a connection string: the one of `user:password@` and a
 * `password=` parameter (an SQLite path is returned as it is).
 */
function withoutPassword(db: string): string {
  if (!/^postgres(?:ql)?:\/\//i.test(db)) return db;
  return db.replace(/^(postgres(?:ql)?:\/\/[^:/@?#\s]*):[^/?#\s]*@/i, "$1@").replace(/([?&])password=[^&#]*(&?)/gi, (_, before: string, after: string) => (after === "" ? "" : before));
}

/** How far before 1970 a `Date` goes, in milliseconds: 100,000,000 days. */
const EARLIEST_DATE_MS = 8.64e15;

/** `2026-11-25`, `2026-11-25T10:00`, `2026-11-25 10:00:30.5`, with an optional `Z` or `+02:00`. */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A number given as a time: epoch milliseconds, which have 13 digits from 2001 to 2286. Other
 * lengths are refused with what they likely are: an age without its unit (`12`), epoch seconds
 * (10 digits: read as milliseconds they would be January 1970, and match every run), micro- or
 * nanoseconds (16 or 19 digits: years past 50,000, matching none).
 */
function epochMilliseconds(value: string, wrong: (why?: string) => Error): number {
  if (value.length === 13) return Number(value);
  if (value.length < 10) throw wrong(`: a number is epoch milliseconds (13 digits); an age needs its unit (${value}h, ${value}d)`);
  const unit = value.length === 10 ? "seconds" : value.length === 16 ? "microseconds" : value.length === 19 ? "nanoseconds" : undefined;
  const likely = unit === undefined ? "" : `: that reads as epoch ${unit}`;
  const millis = unit === "seconds" ? `${value}000` : unit === undefined ? undefined : value.slice(0, 13);
  throw wrong(`${likely}; epoch milliseconds have 13 digits${millis === undefined ? "" : ` (${millis})`}`);
}

/**
 * A date (`2026-11-25`, `2026-11-25T10:00`: local time, as `agentrx runs` prints its times, unless
 * it ends with `Z` or an offset), epoch milliseconds (13 digits), or an age (`30m`, `2h`, `7d`:
 * that long ago). A day that does not exist (`2026-02-30`), a bare short number (`12`, which
 * `Date.parse` would read as December 2001), a number of another length (epoch seconds,
 * microseconds) and an age further back than a date goes are refused.
 */
function parseTime(flag: string, value: string): number {
  const wrong = (why = "") => usageError(`${flag} must be a date (2026-11-25 or 2026-11-25T10:00), epoch milliseconds or an age such as 2h or 7d, got ${quoteValue(value)}${why}`);
  const age = /^(\d+)([smhd])$/.exec(value);
  if (age) {
    const time = Date.now() - Number(age[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[age[2] as "s" | "m" | "h" | "d"];
    // No run is older than the earliest date (and `listRuns` refuses a time that far back).
    if (!(time >= -EARLIEST_DATE_MS)) throw wrong(": that is further back than a date can go (100,000,000 days before 1970)");
    return time;
  }
  if (/^\d+$/.test(value)) return epochMilliseconds(value, wrong);
  const iso = ISO_TIME.exec(value);
  if (iso === null) {
    const time = Date.parse(value);
    if (Number.isNaN(time)) throw wrong();
    return time;
  }
  const [year, month, day, hour = 0, minute = 0, second = 0] = iso.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
  const ms = Number((iso[7] ?? "0").padEnd(3, "0"));
  const utc = Date.UTC(year as number, (month as number) - 1, day, hour, minute, second, ms);
  const calendar = new Date(utc);
  const exists = calendar.getUTCFullYear() === year && calendar.getUTCMonth() === (month as number) - 1 && calendar.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
  if (!exists) throw wrong(": there is no such day or time");
  const zone = iso[8];
  if (zone === undefined) return new Date(year as number, (month as number) - 1, day, hour, minute, second, ms).getTime();
  if (zone.toUpperCase() === "Z") return utc;
  const offset = /^([+-])(\d{2}):?(\d{2})$/.exec(zone) as RegExpExecArray;
  const [offsetHours, offsetMinutes] = [Number(offset[2]), Number(offset[3])];
  // Time zones are from -12:00 to +14:00: a larger offset, or one of 60 minutes or more, is a typo, not a time.
  if (offsetMinutes >= 60 || offsetHours * 60 + offsetMinutes > 14 * 60) throw wrong(`: ${zone} is not a UTC offset (from -14:00 to +14:00, minutes below 60)`);
  return utc - (offset[1] === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
}

function parseDollars(flag: string, value: string): number {
  // `0.05`, `.5`, `5.`, with or without a leading `$`.
  const amount = /^\$?(\d+\.?\d*|\.\d+)$/.test(value) ? Number(value.replace("$", "")) : Number.NaN;
  if (!Number.isFinite(amount)) throw usageError(`${flag} must be an amount of US dollars such as 0.05, got ${quoteValue(value)}`);
  return amount;
}

/** The statuses of every `--status` given (each comma-separated), each once, in the order given. */
function parseStatus(values: readonly string[]): RunStatus[] {
  const statuses = [...new Set(values.flatMap((value) => value.split(",")).map((item) => item.trim()).filter((item) => item !== ""))];
  const wrong = statuses.find((item) => !STATUSES.includes(item as RunStatus));
  if (statuses.length === 0 || wrong !== undefined) throw usageError(`--status ${quoteValue(wrong ?? values.join(","))} is not a run status; use ${STATUSES.join(", ")} (several comma-separated, or --status repeated)`);
  return statuses as RunStatus[];
}

function parseInteger(flag: string, value: string, min: number, max: number): number {
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) throw usageError(`${flag} must be a whole number from ${min} to ${max}, got ${quoteValue(value)}`);
  return number;
}

/** An error's message on one line, never a stack trace; a connection string's password is hidden. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = redact(message.split("\n").find((part) => part.trim() !== "") ?? "unknown error").trim();
  return CliError.isInstance(error) || !(error instanceof Error) || error.name === "Error" || line.startsWith(error.name) ? line : `${error.name}: ${line}`;
}
