/** The port `agentrx ui` listens on unless `--port` says otherwise. */
export const DEFAULT_UI_PORT = 4477;

/** How many runs `agentrx runs` lists unless `--limit` says otherwise. */
export const DEFAULT_RUNS_LIMIT = 20;

/**
 * `agentrx --help`.
 *
 * @internal
 */
export const HELP_TEXT = `agentrx: look at the runs AgentRx recorded

Usage:
  agentrx runs [filters] [--sort S] [--limit N] [--json]         the runs, newest first
  agentrx diff <runA> <runB> [--json | --html diff.html]        two runs side by side
  agentrx show <runId> [--json]                                 a run's trace in the terminal
  agentrx trace <runId> [-o run.html]                           a run's trace as one HTML file
  agentrx ui [--port N]                                         a local web page of the runs

Where the runs are (every command):
  --db <file | postgres://...>  the run store. Default: $AGENTRX_RUNS_DB, else $DATABASE_URL
                                when it is a postgres:// URL, else .agentrx/runs.db
  --schema <name>               the store's PostgreSQL schema (default agentrx; or ?schema=
                                in the URL)
  Every command, runs too (only to look), migrates an older store to this release's schema;
  processes of an older release that restart then refuse it: upgrade those that write it first.

Options:
  --thread <id>       only the runs of this conversation (thread id)
  --status <s[,s]>    only runs with these statuses: queued, running, interrupted,
                      finished, failed, cancelled (comma-separated, or --status repeated)
  --search <words>    runs whose input or answer has words starting with these
  --since <when>      runs created at or after: a local date (2026-11-25, 2026-11-25T10:00),
                      epoch ms (13 digits) or an age (2h, 7d)
  --before <when>     runs created before it
  --min-cost <usd>    runs that cost at least this much (--max-cost: at most)
  --errors            only runs with an error (--no-errors: only runs without)
  --sort <key>        created (default), updated or cost; --order asc|desc (default desc)
  --limit <n>         at most n runs (default ${DEFAULT_RUNS_LIMIT})
  --cursor <c>        the next page: the cursor a page with more after it prints
  --json              JSON instead of text (runs, show, diff)
  -o, --output <file> where trace writes the page (default <runId>.html; a directory:
                      <runId>.html in it; - for stdout)
  --html <file>       diff writes the two runs' diff page there, one HTML file (- for stdout)
  --port <n>          the port ui listens on, on 127.0.0.1 (default ${DEFAULT_UI_PORT}; 0: any free one)
  -h, --help          this help
  -v, --version       the version of @agentrx/runs
`;
