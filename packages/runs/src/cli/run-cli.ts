import { parseArgs } from "node:util";
import packageJson from "../../package.json";
import { CliError, usageError } from "./cli-error";
import type { CliIo } from "./cli-io";
import { DEFAULT_RUNS_LIMIT, DEFAULT_UI_PORT, HELP_TEXT } from "./help-text";
import { redact } from "./redact";

const OPTIONS = {
  db: { type: "string" },
  schema: { type: "string" },
  thread: { type: "string" },
  status: { type: "string" },
  limit: { type: "string" },
  json: { type: "boolean" },
  output: { type: "string", short: "o" },
  port: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

type OptionName = keyof typeof OPTIONS;

/** The options each command takes besides `--db` and `--schema`, and how many positionals. */
const COMMANDS: Record<string, { options: OptionName[]; runId: boolean }> = {
  runs: { options: ["thread", "status", "limit", "json"], runId: false },
  show: { options: ["json"], runId: true },
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
  if (accepted === undefined) throw usageError(`unknown command ${JSON.stringify(command)}: use runs, show, trace or ui`);
  for (const name of Object.keys(values) as OptionName[]) {
    if (name !== "db" && name !== "schema" && !accepted.options.includes(name)) throw usageError(`agentrx ${command} does not take --${name}`);
  }
  const runId = rest[0];
  if (accepted.runId && (runId === undefined || runId === "")) throw usageError(`agentrx ${command} needs a run id, as in agentrx ${command} <runId>; agentrx runs lists them`);
  const extra = rest.slice(accepted.runId ? 1 : 0);
  if (extra.length > 0) throw usageError(`unexpected argument ${JSON.stringify(extra[0])} for agentrx ${command}`);
  const status = values.status === undefined ? undefined : parseStatus(values.status);
  const limit = values.limit === undefined ? DEFAULT_RUNS_LIMIT : parseInteger("--limit", values.limit, 1, 10_000);
  const port = values.port === undefined ? DEFAULT_UI_PORT : parseInteger("--port", values.port, 0, 65_535);
  if (values.output === "") throw usageError("--output needs a file name (or - for stdout)");

  // Loaded once the command line is known to be right: a usage mistake answers at once.
  const { openRunStore } = await import("./open-run-store");
  const { store, label } = await openRunStore({ db: values.db, schema: values.schema, env: io.env, cwd: io.cwd });
  try {
    switch (command) {
      case "runs":
        await (await import("./runs-command")).runsCommand(store, { threadId: values.thread, status, limit, json: values.json === true, label }, io);
        break;
      case "show":
        await (await import("./show-command")).showCommand(store, runId as string, { json: values.json === true, label }, io);
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
