import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunStatus, RunStore } from "@agentrx/executors";
import { escapeHtml, readTracePage, readTraceText, tracePageHtml } from "../trace-page/index";
import { runListHtml } from "./run-list-html";
import { runListItemOf, type RunListData, type RunListSort } from "./run-list-data";
import { RunActions, type UiActionExecutor } from "./run-actions";
import { parseActionRequest } from "./action-request";
import { serveTraceEvents } from "./serve-trace-events";
import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import { parseLastEventId } from "@agentrx/runs";
import { runIdOfRouteSegment, runPagePath } from "../trace-page/run-route";
import { diffPageData } from "../diff-page/diff-page-data";
import { diffPageHtml } from "../diff-page/diff-page-html";
import { isDamagedDiffRecord, readDiffRecord } from "../diff-page/read-diff-record";

/** Options of {@link startUiServer}. */
export interface UiServerOptions {
  store: RunStore;
  /** How the store is named on the pages, e.g. `SQLite .agentrx/runs.db`. */
  source: string;
  /** 0 for any free port. */
  port: number;
  /** @default "127.0.0.1" */
  host?: string;
  /** How often a live page's stream asks the store for new events, in milliseconds. @default 250 */
  pollMs?: number;
  /** How many runs the list shows. @default 200 */
  listLimit?: number;
  /** Told about failures of requests (one line each). */
  onError?: (message: string) => void;
  /**
   * The executor that runs these agents (an `AgentExecutor` over the same store). With it, the
   * pages can act on runs: approve, reject or edit a paused call, resume a cancelled or crashed
   * run, cancel a run (one this server runs at once; one of another process through the store's
   * `cancelRun`, when it has one), fork a run from an iteration (see docs/trace-viewer.md).
   * Another agent's run (started by a `handoff` or `asTool` call) is neither resumed nor forked
   * with it: it is not that agent. Without it the pages only show runs.
   */
  executor?: UiActionExecutor;
}

/** Whether every part of a query string decodes: no stray `%`, no escape that is not UTF-8. */
function wellFormedQuery(search: string): boolean {
  if (!search.includes("%")) return true;
  for (const part of search.slice(1).split(/[&=]/)) {
    try {
      decodeURIComponent(part.replace(/\+/g, " "));
    } catch {
      return false;
    }
  }
  return true;
}

/** Checks the values of `startUiServer`'s options: a bad one would fail later, far from its cause (a port "4477x", a poll of NaN ms). */
function checkUiServerOptions(options: UiServerOptions): void {
  const bad = (argument: string, value: unknown, expected: string): never => {
    throw new InvalidArgumentError({ argument, value, message: `startUiServer: \`${argument}\` must be ${expected}, got ${typeof value === "string" ? JSON.stringify(value) : String(value)}.` });
  };
  if (typeof options !== "object" || options === null) bad("options", options, "an object { store, source, port }");
  const { store, source, port, host, pollMs, listLimit, onError, executor } = options;
  if (typeof (store as { getRun?: unknown } | undefined)?.getRun !== "function" || typeof (store as { listRuns?: unknown }).listRuns !== "function") {
    bad("store", store, "a RunStore that lists runs (e.g. new SqliteRunStore() from @agentrx/runs)");
  }
  if (typeof source !== "string" || source === "") bad("source", source, 'a non-empty string naming the store (e.g. "SQLite .agentrx/runs.db")');
  if (typeof port !== "number" || !Number.isInteger(port) || port < 0 || port > 65_535) bad("port", port, "an integer from 0 (any free port) to 65535");
  if (host !== undefined && (typeof host !== "string" || host === "")) bad("host", host, "a non-empty host name or address");
  if (pollMs !== undefined && (typeof pollMs !== "number" || !Number.isFinite(pollMs) || pollMs <= 0)) bad("pollMs", pollMs, "a number of milliseconds > 0");
  if (listLimit !== undefined && (typeof listLimit !== "number" || !Number.isInteger(listLimit) || listLimit < 1)) bad("listLimit", listLimit, "an integer >= 1");
  if (onError !== undefined && typeof onError !== "function") bad("onError", onError, "a function (message) => void");
  if (executor !== undefined && (typeof executor !== "object" || executor === null)) bad("executor", executor, "an AgentExecutor over the same store");
}

/** A running `agentrx ui` server. */
export interface UiServer {
  /** E.g. `http://127.0.0.1:4477`. */
  url: string;
  port: number;
  /** Stops listening and ends open streams. */
  close(): Promise<void>;
}

const STATUSES = new Set<string>(["queued", "running", "interrupted", "finished", "failed", "cancelled"]);

/** The longest `search` the run list takes, in characters: a few words, not a document. */
const SEARCH_MAX_LENGTH = 200;

/**
 * The `agentrx ui` web server, on the loopback interface: `/` lists the runs (filtered by the
 * query's `status`, `thread`, `search` and `limit` and sorted by its `sort`, as `/api/runs` is; the page keeps them in its
 * controls and its URL; a running run whose lease lapsed is shown stalled), `/runs/<id>` shows a
 * run's trace page (a run in progress follows its record live; a fork's page links to its diff
 * with the run it was forked from; `<id>` is percent-encoded, with a `~` before the ids `.` and
 * `..`, see docs/trace-viewer.md), `/diff?a=<runId>&b=<runId>` compares two runs side by side
 * (see docs/trace-viewer.md), `/api/runs` lists runs as JSON (`?status=failed,cancelled&thread=T&limit=N`;
 * `status=failed&status=cancelled` is the same,
 * `search=<words>`: the store's full-text search over each run's input and answer, and
 * `sort=updated` or `sort=cost`: the last written or the most expensive first, not the newest),
 * `/api/runs/<id>/events` streams a run's new events (Server-Sent Events) and
 * `/api/runs/<id>/text` returns a whole text a page holds only the start of. Requests whose `Host`
 * is not a loopback name are refused, so another web site cannot read the runs through the
 * browser (DNS rebinding). Rejects when the port is taken.
 *
 * Given an `executor`, the pages also act on runs: `POST /api/runs/<id>/actions` with a JSON body
 * (`{ action: "approve" | "reject" | "edit", interruptId, ... }`, `{ action: "resume" }`,
 * `{ action: "cancel" }`, `{ action: "fork", at? }`) and the header `x-agentrx-token` carrying the
 * server's per-session token, which only its own pages hold (a request from another origin is
 * refused too).
 *
 * @example
 * ```ts
 * import { AgentExecutor } from "@agentrx/executors";
 * import { MemoryRunStore } from "@agentrx/runs";
 * import { startUiServer } from "@agentrx/viewer";
 * import { RunnableLambda } from "@langchain/core/runnables";
 *
 * const store = new MemoryRunStore();
 * const agent = RunnableLambda.from(() => ({ returnValues: { output: "hi" }, log: "" }));
 * const executor = new AgentExecutor({ agent, tools: [], store });
 * const server = await startUiServer({ store, source: "memory", port: 0, executor });
 * console.log(server.url.startsWith("http://127.0.0.1:")); // true
 * await server.close();
 * ```
 */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  checkOptionKeys("startUiServer", options, ["store", "source", "port", "host", "pollMs", "listLimit", "onError", "executor"] satisfies (keyof UiServerOptions)[]);
  checkUiServerOptions(options);
  const { store, source, port, host = "127.0.0.1", pollMs = 250, listLimit = 200, onError } = options;
  const sockets = new Set<import("node:net").Socket>();
  const token = randomBytes(24).toString("base64url");
  const actions = options.executor === undefined ? undefined : new RunActions(options.executor, store, token, (message) => onError?.(message));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      return send(res, 400, "text/plain", "Malformed URL.\n");
    }
    // URLSearchParams reads a stray or non-UTF-8 % escape as U+FFFD: a filter that matches nothing, said nowhere.
    if (!wellFormedQuery(url.search)) return send(res, 400, url.pathname.startsWith("/api/") ? "application/json" : "text/plain", url.pathname.startsWith("/api/") ? JSON.stringify({ error: "malformed query string (a stray % or an escape that is not UTF-8)" }) : "Malformed query string (a stray % or an escape that is not UTF-8).\n");
    const hostname = (req.headers.host ?? "").replace(/:\d+$/, "");
    if (!["127.0.0.1", "localhost", "[::1]", host].includes(hostname)) return send(res, 403, "text/plain", "agentrx ui answers on localhost only.\n");
    const path = url.pathname;
    const action = /^\/api\/runs\/([^/]+)\/actions$/.exec(path);
    if (action) return handleAction(req, res, action[1] as string);
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain", "Only GET.\n");
    if (path === "/" || path === "/api/runs") {
      const data = await listData(url);
      if (typeof data === "string") return path === "/" ? send(res, 400, "text/plain", `${data}\n`) : send(res, 400, "application/json", JSON.stringify({ error: data }));
      return path === "/" ? send(res, 200, "text/html", runListHtml(data)) : send(res, 200, "application/json", JSON.stringify(data));
    }
    if (path === "/diff") return serveDiff(res, url.searchParams.get("a"), url.searchParams.get("b"));
    const page = /^\/runs\/([^/]+)$/.exec(path);
    if (page) {
      const runId = runIdOfRouteSegment(page[1] as string);
      if (runId === undefined) return send(res, 400, "text/plain", "Malformed run id in the URL (a stray %).\n");
      const info = await store.getRun(runId);
      if (info === undefined) return send(res, 404, "text/html", notFoundHtml(runId));
      const trace = await readTracePage(store, runId, { mode: "ui", source });
      if (actions !== undefined) trace.actions = await actions.pageActions(info);
      return send(res, 200, "text/html", tracePageHtml(trace));
    }
    const api = /^\/api\/runs\/([^/]+)\/(events|text)$/.exec(path);
    if (api) {
      const runId = runIdOfRouteSegment(api[1] as string);
      if (runId === undefined) return send(res, 400, "application/json", JSON.stringify({ error: "malformed run id in the URL (a stray %)" }));
      if ((await store.getRun(runId)) === undefined) return send(res, 404, "application/json", JSON.stringify({ error: `no run ${JSON.stringify(runId)}` }));
      if (api[2] === "events") {
        const lastEventId = parseLastEventId(req);
        if (lastEventId === null) return send(res, 400, "text/plain", "Last-Event-ID must be a decimal integer >= 0.\n");
        const afterParam = url.searchParams.get("after");
        if (afterParam !== null && !/^\d{1,15}$/.test(afterParam)) return send(res, 400, "text/plain", "`after` must be a decimal integer >= 0.\n");
        const after = lastEventId ?? Number(afterParam ?? 0);
        return serveTraceEvents(store, runId, req, res, { after, pollMs, onError: (error) => onError?.(messageOf(error)) });
      }
      const seq = url.searchParams.get("seq");
      const field = url.searchParams.get("field");
      if (seq === null || !/^[1-9]\d{0,14}$/.test(seq)) return send(res, 400, "application/json", JSON.stringify({ error: `\`seq\` must be the number of one of the run's events (an integer >= 1), got ${seq === null ? "none" : JSON.stringify(seq)}` }));
      if (!field) return send(res, 400, "application/json", JSON.stringify({ error: "`field` must name a text of the event, such as `observation` or `reply.content`" }));
      const text = await readTraceText(store, runId, Number(seq), field);
      if (text === undefined) return send(res, 404, "application/json", JSON.stringify({ error: "no such text in the run's record" }));
      return send(res, 200, "application/json", JSON.stringify({ text }));
    }
    return send(res, 404, "text/plain", "Not found.\n");
  };

  const handleAction = async (req: IncomingMessage, res: ServerResponse, segment: string): Promise<void> => {
    const json = (status: number, body: unknown) => send(res, status, "application/json", JSON.stringify(body));
    if (req.method !== "POST") return json(405, { error: "actions are POST only" });
    if (actions === undefined) return json(403, { error: "this server only shows runs: start it with startUiServer({ executor }) to act on them (see docs/trace-viewer.md)" });
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host ?? ""}`) return json(403, { error: "actions come from the server's own pages only" });
    if (!sameToken(req.headers["x-agentrx-token"], token)) return json(403, { error: "missing or wrong x-agentrx-token: actions come from the server's own pages" });
    if (!(req.headers["content-type"] ?? "").startsWith("application/json")) return json(415, { error: "the body must be application/json" });
    const runId = runIdOfRouteSegment(segment);
    if (runId === undefined) return json(400, { error: "malformed run id in the URL (a stray %)" });
    let body: unknown;
    try {
      const text = await readBody(req, ACTION_BODY_LIMIT);
      if (text === undefined) return json(413, { error: `the body is over ${ACTION_BODY_LIMIT} bytes: a decision carries at most 1,000,000 characters` });
      body = JSON.parse(text);
    } catch (error) {
      return json(400, { error: `the body is not JSON: ${messageOf(error)}` });
    }
    const request = parseActionRequest(body);
    if (typeof request === "string") return json(400, { error: request });
    const result = await actions.perform(runId, request);
    return json(result.status, result.body);
  };

  const serveDiff = async (res: ServerResponse, a: string | null, b: string | null): Promise<void> => {
    if (!a || !b) return send(res, 400, "text/plain", "The diff page needs two runs: /diff?a=<runId>&b=<runId>.\n");
    for (const runId of [a, b]) if ((await store.getRun(runId)) === undefined) return send(res, 404, "text/html", notFoundHtml(runId));
    // A damaged record cannot be compared (its trace page shows what it holds): say which, and where.
    const left = await readDiffRecord(store, a);
    if (isDamagedDiffRecord(left)) return send(res, 422, "text/html", damagedDiffHtml(left.runId, left.problem));
    const right = await readDiffRecord(store, b);
    if (isDamagedDiffRecord(right)) return send(res, 422, "text/html", damagedDiffHtml(right.runId, right.problem));
    return send(res, 200, "text/html", diffPageHtml(diffPageData(left, right, { mode: "ui", source })));
  };

  /** The list's filters from the query, or what is wrong with them. */
  const listData = async (url: URL): Promise<RunListData | string> => {
    // Several statuses: comma-separated (`status=failed,interrupted`), the parameter repeated
    // (`status=failed&status=interrupted`, as a form sends them), or both; each counted once.
    const status = [...new Set(url.searchParams.getAll("status").flatMap((value) => value.split(",")).filter((value) => value !== ""))];
    const unknown = status.find((value) => !STATUSES.has(value));
    if (unknown !== undefined) return `Unknown status ${JSON.stringify(unknown)} in \`status\`: use one or more of ${[...STATUSES].join(", ")}, comma-separated or with \`status\` repeated.`;
    const threadId = url.searchParams.get("thread") || undefined;
    const limitParam = url.searchParams.get("limit");
    // Any whole number from 1 is taken and capped at the list's limit (digits only: not "1e3", "0x10" or "-1").
    if (limitParam !== null && limitParam !== "" && !(/^\d+$/.test(limitParam) && Number(limitParam) >= 1)) return `\`limit\` must be an integer >= 1, got ${JSON.stringify(limitParam)}.`;
    const limit = Math.min(listLimit, limitParam ? Number(limitParam) : listLimit);
    const search = searchOf(url.searchParams.getAll("search"));
    if (search.problem !== undefined) return search.problem;
    const sortParam = url.searchParams.get("sort") || "created";
    if (!["created", "updated", "cost"].includes(sortParam)) return `Unknown sort ${JSON.stringify(sortParam)} in \`sort\`: use created (the default: newest first), updated (last written first) or cost (most expensive first).`;
    // By start (the default) is asked without `sort`, so a store that cannot sort lists all the same.
    const sort = sortParam === "created" ? undefined : (sortParam as RunListSort);
    const runs = await store.listRuns({
      ...(status.length > 0 ? { status: status as RunStatus[] } : {}),
      ...(threadId !== undefined ? { threadId } : {}),
      ...(search.words !== undefined ? { search: search.words } : {}),
      ...(sort !== undefined ? { sort: sort === "updated" ? "updatedAt" : "cost" } : {}),
      limit,
    });
    // "now" is the server's, when the list is made: a running run whose lease lapsed by then is stalled.
    const now = Date.now();
    return {
      source,
      runs: runs.map((run) => runListItemOf(run, now)),
      limit,
      ...(search.words !== undefined ? { search: search.words } : {}),
      // The filters applied, for the page's controls (a reload of `/?status=failed` starts from them).
      ...(status.length > 0 ? { status: status as RunStatus[] } : {}),
      ...(threadId !== undefined ? { threadId } : {}),
      ...(sort !== undefined ? { sort } : {}),
    };
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A value the store refuses (a run id or thread with a NUL character) is the request's mistake.
      const refused = InvalidArgumentError.isInstance(error);
      if (!refused) onError?.(`${req.method} ${req.url}: ${messageOf(error)}`);
      if (res.headersSent) res.end();
      else if (!(req.url ?? "").startsWith("/api/")) send(res, refused ? 400 : 500, "text/plain", `${messageOf(error)}\n`);
      else send(res, refused ? 400 : 500, "application/json", JSON.stringify({ error: messageOf(error) }));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${actual}`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        actions?.stopAll();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/**
 * The list's `search` parameter (see docs/trace-viewer.md): none when absent or empty; else the
 * words for the store's `listRuns({ search })`, or what is wrong with them. A value without a word
 * (letters or digits, as the stores split text) is refused: the store would list every run.
 */
function searchOf(values: string[]): { words?: string; problem?: string } {
  if (values.length > 1) return { problem: `\`search\` is given ${values.length} times: give it once, with all its words.` };
  const words = values[0] ?? "";
  if (words === "") return {};
  if (words.length > SEARCH_MAX_LENGTH) return { problem: `\`search\` is ${words.length} characters long: give at most ${SEARCH_MAX_LENGTH}.` };
  if (!/[\p{L}\p{N}]/u.test(words.normalize("NFKD"))) return { problem: `\`search\` ${JSON.stringify(words)} has no word to search for: give words (letters or digits); other characters only separate them.` };
  return { words };
}

/** Whether the request's token header is the session's token (compared in constant time). */
function sameToken(header: string | string[] | undefined, token: string): boolean {
  if (typeof header !== "string") return false;
  const given = Buffer.from(header);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The largest action body, in bytes: room for a decision of 1,000,000 characters (the most
 * `resume` takes) written as JSON, each character up to 6 bytes (`\u001f`), and the rest of the body.
 */
const ACTION_BODY_LIMIT = 6 * 1024 * 1024 + 64 * 1024;

/**
 * The request's body as text, or undefined when it is over `limit` bytes: the rest is then read
 * and dropped, so that the client, which sends its whole body before it reads, gets its answer
 * rather than a reset connection. Only the server's own pages get this far (the token is checked first).
 */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on("end", () => resolve(size > limit ? undefined : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    "content-type": `${type}; charset=utf-8`,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  });
  res.end(body);
}

function notFoundHtml(runId: string): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>No such run</title><body style="font-family: system-ui; padding: 24px"><p>No run ${escapeHtml(JSON.stringify(runId))} in this store. <a href="/">All runs</a></p></body></html>`;
}

/** The diff page's answer when one of the runs cannot be compared: which run, where its record is damaged, and its trace page. */
function damagedDiffHtml(runId: string, problem: string): string {
  const page = runPagePath(runId);
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>Cannot compare</title><body style="font-family: system-ui; padding: 24px"><p>Run ${escapeHtml(JSON.stringify(runId))} cannot be compared: its record is damaged (${escapeHtml(problem)}). <a href="${escapeHtml(page)}">Its trace page</a> shows what the record holds. <a href="/">All runs</a></p></body></html>`;
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0] as string;
}
