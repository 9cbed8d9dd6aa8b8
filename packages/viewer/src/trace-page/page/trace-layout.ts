// Runs in the trace page (bundled into its script at build time: scripts/build-page-scripts.mjs)
// and in Node, so it uses only the JavaScript built-ins, no DOM.
import type { TraceText, TraceUsage } from "../trace-data";
import type { FormatRuntime } from "./format-runtime";
import type { TraceIteration, TraceModel, TraceModelCall, TraceToolCall } from "./trace-model";
import { cutTextEnd } from "../cut-text";

/** How a bar looks: the state of what it stands for. */
export type TraceRowState = "ok" | "failed" | "warn" | "cached" | "running" | "inferred" | "none";

/** One line of the tree, with its bar on the timeline. */
export interface TraceRow {
  /** Stable over live updates: `run`, `it-0`, `model-0-0`, `tool-0-1`, `step-0-1`, `answer`, `seg-1`, `event-12`. */
  id: string;
  parentId?: string;
  depth: number;
  kind: "run" | "subrun" | "segment" | "iteration" | "model" | "tool" | "step" | "answer" | "event";
  label: string;
  /** A muted preview after the label (a tool's input, an observation). */
  note: string;
  /** The bar, when the row has one. */
  start?: number;
  end?: number;
  /** A model call's first token. */
  firstTokenAt?: number;
  /** A point in time instead of a bar (a step's end, the answer). */
  at?: number;
  state: TraceRowState;
  /** Short flags: `slowest`, `3 attempts`, `timed out`, `cached`, `failed`, `running`. */
  badges: string[];
  childIds: string[];
  /** Collapsed until opened (a tool call's step). */
  collapsed: boolean;
  iteration?: TraceIteration;
  modelCall?: TraceModelCall;
  toolCall?: TraceToolCall;
  /** The index into `model.segments` or `model.others`. */
  item?: number;
  /** On a sub-run's rows: the sub-run (its own model); absent on the run's own rows. */
  trace?: TraceModel;
}

/** The slowest tool call of a run (a running one counts with its time so far). */
export interface TraceSlowest {
  /** Its row's id. */
  id: string;
  tool: string;
  input: string;
  durationMs: number;
}

/** The trace page's layout functions. */
export type TraceLayoutRuntime = ReturnType<typeof traceLayoutRuntime>;

/**
 * Lays a {@link TraceModel} out as the tree's rows (run → iterations → model calls and tool calls
 * → steps), each with its bar's times and its state (retried, timed out, failed, running, ...).
 * `now` is used for what is still running. `./trace-summary` adds the header and the time axis.
 *
 * @internal
 */
export function traceLayoutRuntime(fmt: FormatRuntime) {
  function textOf(text: TraceText | undefined): string {
    if (text === undefined) return "";
    return typeof text === "string" ? text : text.head;
  }

  /**
   * Whether the run is still going: queued, or running under a lease that holds. A stalled run
   * (running, its lease lapsed: its process stopped without ending it) is drawn as its record
   * ends, not as running until now.
   */
  function isLive(model: TraceModel): boolean {
    return (model.run.status === "running" || model.run.status === "queued") && model.run.stalled !== true;
  }

  function endOf(model: TraceModel, now: number): number {
    const last = model.segments[model.segments.length - 1];
    const recorded = Math.max(last?.end ?? model.run.createdAt, model.output?.at ?? 0);
    return isLive(model) ? Math.max(recorded, now) : recorded;
  }

  /**
   * How many iterations of a fork's record are copied from the run it was forked from (its
   * `forkOf.iteration`; their events keep the source's times); 0 for a run that is not a fork.
   */
  function copiedIterations(model: TraceModel): number {
    return model.segments.find((segment) => segment.forkOf !== undefined)?.forkOf?.iteration ?? 0;
  }

  /**
   * When the run started: its first segment's start, except in a fork, whose copied prefix keeps
   * the source run's times: there, its own part's (else its record's creation).
   */
  function startedAt(model: TraceModel): number {
    const own = model.segments.find((segment) => segment.forkOf === undefined || segment.resumed);
    return own?.start ?? model.run.createdAt;
  }

  /**
   * The run's usage (its row's, else its answer's, else the sum of its `usage` events), and for a
   * fork, that usage split into its copied prefix's (spent by the run it was forked from) and its
   * own (the rest).
   */
  function usageOf(model: TraceModel): { total?: TraceUsage; own?: TraceUsage; copied?: TraceUsage } {
    const total = model.run.usage ?? model.output?.usage ?? (model.usage.total > 0 ? model.usage : undefined);
    const copied = model.copiedUsage;
    if (total === undefined || copied === undefined) return total === undefined ? (copied === undefined ? {} : { copied }) : { total, own: total };
    const own: TraceUsage = { input: 0, output: 0, total: 0 };
    for (const key of ["input", "output", "total", "cacheRead", "cacheCreation", "reasoning", "cost", "unpricedCalls"] as const) {
      const all = total[key];
      if (all !== undefined) own[key] = Math.max(0, all - (copied[key] ?? 0));
    }
    return { total, own, copied };
  }

  function toolState(tool: TraceToolCall): { state: TraceRowState; badges: string[] } {
    const badges: string[] = [];
    const metadata = tool.metadata ?? {};
    const attempts = typeof metadata["attempts"] === "number" ? metadata["attempts"] : 1;
    if (tool.stepSeq === undefined) return { state: "running", badges: ["running"] };
    // A person rejected it: it did not run, its observation is the rejection (not a failure).
    if (metadata["rejected"] === true) return { state: "none", badges: ["rejected"] };
    const failed = isFailed(tool);
    if (failed) badges.push(tool.tool === "_Exception" ? "parsing error" : "failed");
    if (attempts > 1) badges.push(`${attempts} attempts`);
    if (metadata["timedOut"] === true) badges.push("timed out");
    if (metadata["cached"] === true) badges.push("cached");
    if (tool.early === true) badges.push("early");
    const state: TraceRowState = failed ? "failed" : attempts > 1 || metadata["timedOut"] === true ? "warn" : metadata["cached"] === true ? "cached" : "ok";
    return { state, badges };
  }

  /**
   * Whether a tool call that returned failed: its step's metadata says so (`failed`: the tool
   * threw and its observation is the error the agent was shown, its schema refused the input, or
   * no tool has its name), or it is the agent's parsing error (`_Exception`). A record made before
   * steps carried `failed` is read by the default error observation's wording.
   */
  function isFailed(tool: TraceToolCall): boolean {
    if (tool.tool === "_Exception" || tool.metadata?.["failed"] === true) return true;
    return tool.metadata?.["failed"] === undefined && /^Tool ".*" failed with error:/s.test(textOf(tool.observation));
  }

  /**
   * What the page says of a model call's time to first token: the time when a token was recorded;
   * else why there is none. A run with no `token` event at all did not stream its model (nothing
   * watched its tokens, as in an `invoke` run), or is a sub-run (whose tokens its caller does not
   * record); in a streamed run, a reply with only tool calls streams no text.
   */
  function firstToken(model: TraceModel, call: TraceModelCall): { known: boolean; text: string } {
    if (call.firstTokenAt !== undefined) return { known: true, text: fmt.duration(call.firstTokenAt - call.start) };
    // A sub-run's tokens are not in its caller's record (its steps and answer carry its text).
    if (model.path !== undefined && model.tokenEvents === 0) return { known: false, text: "tokens not recorded" };
    if (model.tokenEvents === 0) return { known: false, text: "not streamed" };
    if (call.reply !== undefined && textOf(call.reply.content).trim() === "") return { known: false, text: "no text streamed" };
    return { known: false, text: call.reply === undefined ? "no token yet" : "none recorded" };
  }

  /** Where each iteration's work could start: after the previous iteration, inside its segment. */
  function boundaryBefore(model: TraceModel, index: number, at: number): number {
    let boundary = model.segments[0]?.start ?? at;
    for (const segment of model.segments) if (segment.start <= at) boundary = segment.start;
    const previous = model.iterations[index - 1];
    if (previous !== undefined) {
      for (const call of previous.modelCalls) if (call.end <= at) boundary = Math.max(boundary, call.end);
      for (const tool of previous.tools) if (tool.end !== undefined && tool.end <= at) boundary = Math.max(boundary, tool.end);
    }
    return boundary;
  }

  /** The model calls of an iteration; inferred from its other events when none was recorded. */
  function modelCallsOf(model: TraceModel, index: number, now: number): { calls: TraceModelCall[]; inferred: boolean; open: boolean } {
    const iteration = model.iterations[index] as TraceIteration;
    if (iteration.modelCalls.length > 0) return { calls: iteration.modelCalls, inferred: false, open: false };
    const firstAction = iteration.tools.reduce((min, tool) => Math.min(min, tool.actionAt ?? tool.start ?? Infinity), Infinity);
    const isLast = index === model.iterations.length - 1;
    let end = Number.isFinite(firstAction) ? firstAction : isLast && model.output !== undefined ? model.output.at : undefined;
    const open = end === undefined && isLive(model) && isLast;
    if (end === undefined) end = open ? now : iteration.lastAt;
    const start = Math.min(boundaryBefore(model, index, iteration.firstAt), end);
    const call: TraceModelCall = { iteration: iteration.n, start, end, tokenChars: iteration.pendingTokenChars };
    if (iteration.pendingFirstTokenAt !== undefined) call.firstTokenAt = iteration.pendingFirstTokenAt;
    if (iteration.pendingUsage !== undefined) call.usage = iteration.pendingUsage;
    if (open && iteration.pendingText !== undefined) call.liveText = iteration.pendingText;
    return { calls: [call], inferred: true, open };
  }

  function rows(model: TraceModel, now: number): TraceRow[] {
    const out: TraceRow[] = [];
    const live = isLive(model);
    const runRow: TraceRow = {
      id: "run",
      depth: 0,
      kind: "run",
      label: "run",
      note: fmt.oneLine(textOf(model.inputs), 160),
      start: model.segments[0]?.start ?? model.run.createdAt,
      end: endOf(model, now),
      state: live ? "running" : model.run.status === "failed" ? "failed" : "none",
      badges: [model.run.status],
      childIds: [],
      collapsed: false,
    };
    out.push(runRow);
    const child = (row: TraceRow, parent: TraceRow) => {
      row.parentId = parent.id;
      parent.childIds.push(row.id);
      out.push(row);
      return row;
    };
    // Segments, iterations and other events, in time order.
    const items: { at: number; add: () => void }[] = [];
    model.segments.forEach((segment, item) => {
      if (!segment.resumed) return;
      const gap = segment.start - (model.segments[item - 1]?.end ?? segment.start);
      // A fork's own part starts as a resume does (`resumed: true`), but after a copy, not a pause.
      const fork = segment.forkOf;
      const label = fork === undefined ? "resumed" : "forked";
      const note = fork === undefined ? `after a pause of ${fmt.duration(gap)}` : `from ${fork.runId} ${fork.iteration === 0 ? "at its start" : `after iteration ${fork.iteration}`}`;
      items.push({
        at: segment.start,
        add: () => child({ id: `seg-${item}`, depth: 1, kind: "segment", label, note, at: segment.start, state: "none", badges: [], childIds: [], collapsed: false, item }, runRow),
      });
    });
    const copied = copiedIterations(model);
    model.others.forEach((other, item) => {
      items.push({
        at: other.at,
        add: () =>
          child({ id: `event-${other.seq}`, depth: 1, kind: "event", label: other.name, note: other.error ?? other.note ?? fmt.oneLine(textOf(other.summary), 120), at: other.at, state: other.error ? "failed" : "none", badges: other.error ? ["unreadable"] : [], childIds: [], collapsed: false, item }, runRow),
      });
    });
    const slowest = slowestTool(model, now);
    model.iterations.forEach((iteration, index) => {
      const { calls, inferred, open } = modelCallsOf(model, index, now);
      items.push({ at: Math.min(iteration.firstAt, calls[0]?.start ?? Infinity), add: () => addIteration(iteration, calls, inferred, open) });
    });
    const addIteration = (iteration: TraceIteration, calls: TraceModelCall[], inferred: boolean, open: boolean) => {
      const n = iteration.n;
      // A fork's copied iterations: recorded by the run it was forked from, at its times.
      const itRow = child({ id: `it-${n}`, depth: 1, kind: "iteration", label: `iteration ${n + 1}`, note: "", state: "none", badges: n < copied ? ["copied"] : [], childIds: [], collapsed: false, iteration }, runRow);
      let start = Infinity;
      let end = -Infinity;
      calls.forEach((call, k) => {
        const ttftOf = firstToken(model, call);
        const ttft = ttftOf.known ? ` · first token ${ttftOf.text}` : ttftOf.text === "not streamed" && !open && !inferred ? " · not streamed" : "";
        const cost = call.usage?.cost !== undefined ? ` · ${fmt.usd(call.usage.cost)}` : (call.usage?.unpricedCalls ?? 0) > 0 ? " · unpriced" : "";
        const tokens = call.usage ? ` · ${fmt.count(call.usage.total)} tokens${cost}` : "";
        // A call still streaming shows the end of its text so far, as it grows.
        const tail = call.liveText === undefined ? undefined : fmt.oneLine(cutTextEnd(call.liveText, 400), 400);
        const streaming = tail === undefined ? undefined : `${tail.length > 40 ? `…${cutTextEnd(tail, 40)}` : tail}▍`;
        const reply = streaming ?? (call.reply?.toolCalls?.length ? `→ ${call.reply.toolCalls.map((c) => c.name).join(", ")}` : fmt.oneLine(textOf(call.reply?.content), 100));
        const row: TraceRow = {
          id: `model-${n}-${k}`,
          depth: 2,
          kind: "model",
          label: "model",
          note: `${reply}${ttft}${tokens}`.replace(/^ · /, ""),
          start: call.start,
          end: open ? now : call.end,
          state: open ? "running" : inferred ? "inferred" : "ok",
          badges: open ? ["running"] : inferred ? ["not recorded"] : [],
          childIds: [],
          collapsed: false,
          iteration,
          modelCall: call,
        };
        if (call.firstTokenAt !== undefined) row.firstTokenAt = call.firstTokenAt;
        child(row, itRow);
        start = Math.min(start, call.start);
        end = Math.max(end, row.end as number);
      });
      iteration.tools.forEach((tool) => {
        const key = tool.index === null ? `s${tool.stepSeq}` : String(tool.index);
        let { state, badges } = toolState(tool);
        if (tool.stepSeq === undefined && !live) {
          // It never returned: the run paused for approval before it, or with it in doubt (it started
          // before a crash and may have run), or ended (cancelled, failed, crashed).
          state = "none";
          badges = [model.run.status !== "interrupted" ? "no result" : tool.pausedFor === "in_doubt" ? "in doubt" : "awaiting approval"];
        }
        const toolStart = tool.start ?? tool.actionAt ?? iteration.firstAt;
        const toolEnd = tool.end ?? (live ? now : toolStart);
        const id = `tool-${n}-${key}`;
        if (slowest !== undefined && slowest.id === id) badges.unshift("slowest");
        // A person changed its input before it ran (an edit decision): the row shows the input it ran with.
        if (tool.askedInput !== undefined) badges.push("edited");
        const toolRow = child(
          { id, depth: 2, kind: "tool", label: tool.tool === "_Exception" ? "parsing error" : tool.tool, note: fmt.oneLine(textOf(tool.input), 120), start: toolStart, end: toolEnd, state, badges, childIds: [], collapsed: tool.subRuns === undefined, iteration, toolCall: tool },
          itRow,
        );
        tool.subRuns?.forEach((sub, k) => addSubRun(sub, toolRow, `${id}/sub${k}`));
        if (tool.stepSeq !== undefined) {
          child({ id: `step-${n}-${key}`, depth: 3, kind: "step", label: "result", note: fmt.oneLine(textOf(tool.observation), 140), at: toolEnd, state, badges: [], childIds: [], collapsed: false, iteration, toolCall: tool }, toolRow);
        }
        start = Math.min(start, toolStart);
        end = Math.max(end, toolEnd);
      });
      if (Number.isFinite(start)) {
        itRow.start = start;
        itRow.end = end;
        itRow.note = `${calls.length} model call${calls.length === 1 ? "" : "s"}, ${iteration.tools.length} tool call${iteration.tools.length === 1 ? "" : "s"}`;
      }
    };
    /** A sub-run's rows, under the row of the tool call that started it; their ids start with `prefix/`. */
    const addSubRun = (sub: TraceModel, parent: TraceRow, prefix: string) => {
      const status = sub.output !== undefined ? "finished" : model.run.status === "finished" ? "no answer" : model.run.status;
      sub.run.status = sub.output !== undefined ? "finished" : model.run.status;
      if (model.run.stalled === true) sub.run.stalled = true;
      else delete sub.run.stalled;
      const subRows = rows(sub, now);
      for (const row of subRows) {
        const root = row.id === "run";
        row.id = `${prefix}/${row.id}`;
        row.parentId = row.parentId === undefined ? parent.id : `${prefix}/${row.parentId}`;
        row.childIds = row.childIds.map((id) => `${prefix}/${id}`);
        row.depth += parent.depth + 1;
        row.trace = sub;
        row.badges = row.badges.filter((badge) => badge !== "slowest"); // the run's slowest call is the run's
        if (root) {
          row.kind = "subrun";
          row.label = (sub.path ?? []).join(" › ") || "sub-run";
          row.badges = sub.output !== undefined ? [] : [status];
          row.state = sub.output === undefined && isLive(model) ? "running" : "none";
          parent.childIds.push(row.id);
        }
        out.push(row);
      }
    };
    items.sort((a, b) => a.at - b.at);
    for (const item of items) item.add();
    if (live && needsNextCall(model)) {
      const n = (model.iterations[model.iterations.length - 1]?.n ?? -1) + 1;
      const start = Math.min(now, boundaryBefore(model, model.iterations.length, now));
      const itRow = child({ id: `it-${n}`, depth: 1, kind: "iteration", label: `iteration ${n + 1}`, note: "waiting for the model", start, end: now, state: "none", badges: [], childIds: [], collapsed: false }, runRow);
      child({ id: `model-${n}-0`, depth: 2, kind: "model", label: "model", note: "waiting for the reply…", start, end: now, state: "running", badges: ["running"], childIds: [], collapsed: false }, itRow);
    }
    (model.strayRuns ?? []).forEach((sub, k) => addSubRun(sub, runRow, `run/stray${k}`));
    if (model.output !== undefined) {
      const usage = model.output.usage ? ` · ${fmt.count(model.output.usage.total)} tokens` : "";
      child({ id: "answer", depth: 1, kind: "answer", label: model.output.stopReason === "interrupted" ? "paused" : "answer", note: `${fmt.oneLine(textOf(model.output.text), 140)} (${model.output.stopReason})${usage}`, at: model.output.at, state: "none", badges: [model.output.stopReason], childIds: [], collapsed: false }, runRow);
    }
    return out;
  }

  /** Whether a live run is between iterations: waiting for a model call not yet recorded. */
  function needsNextCall(model: TraceModel): boolean {
    if (model.output !== undefined || model.run.status !== "running") return false;
    const last = model.iterations[model.iterations.length - 1];
    if (last === undefined) return model.segments.length > 0;
    if (last.modelCalls.length === 0) return false; // its call is shown as running
    // A reply without tool calls ends the run (its answer is being recorded); one with tool calls
    // waits for them: the next model call comes once every tool call it asked for has returned.
    const asked = last.modelCalls[last.modelCalls.length - 1]?.reply?.toolCalls?.length ?? 0;
    if (last.tools.length === 0 || last.tools.length < asked) return false;
    return last.tools.every((tool) => tool.stepSeq !== undefined);
  }

  function slowestTool(model: TraceModel, now: number): TraceSlowest | undefined {
    let best: TraceSlowest | undefined;
    const copied = copiedIterations(model); // a fork's copied calls ran in the run it was forked from
    for (const iteration of model.iterations) {
      if (iteration.n < copied) continue;
      for (const tool of iteration.tools) {
        const duration = tool.durationMs ?? (tool.actionAt !== undefined && isLive(model) ? now - tool.actionAt : undefined);
        if (duration === undefined || (best !== undefined && best.durationMs >= duration)) continue;
        const key = tool.index === null ? `s${tool.stepSeq}` : String(tool.index);
        best = { id: `tool-${iteration.n}-${key}`, tool: tool.tool, input: fmt.oneLine(textOf(tool.input), 80), durationMs: duration };
      }
    }
    return best;
  }

  /** The run's own rows: without its sub-runs' (what the header counts). */
  function ownRows(rowList: readonly TraceRow[]): TraceRow[] {
    return rowList.filter((row) => row.trace === undefined);
  }

  return { rows, ownRows, textOf, toolState, isFailed, isLive, endOf, slowestTool, firstToken, copiedIterations, startedAt, usageOf };
}
