// Runs in the trace page (bundled into the page script) and in Node: it must use
// nothing but its own declarations, its parameters and the JavaScript built-ins.
import type { FormatRuntime } from "./format-runtime";
import type { TraceLayoutRuntime, TraceRow, TraceSlowest } from "./trace-layout";
import type { TraceModel } from "./trace-model";
import type { TraceUsage } from "../trace-data";

/** The header's figures. */
export interface TraceSummary {
  status: string;
  stopReason?: string;
  live: boolean;
  /** The run's tokens (a fork's own: not its copied prefix's). */
  tokens?: { input: number; output: number; total: number };
  /** What the run cost in US dollars, when its model calls were priced (a fork's own: not its copied prefix's). */
  cost?: number;
  /** Running time over the run's segments (a fork's own: not its copied prefix's): the executor's measure once the run is over. */
  wallMs: number;
  /** The run's iterations, model calls and tool calls (a fork's own: not its copied prefix's). */
  iterations: number;
  modelCalls: number;
  toolCalls: number;
  /** A fork's copied prefix: what the run it was forked from did before the fork, counted apart. */
  copied?: TraceCopiedPrefix;
  /**
   * When some of the run's model calls had no price (their model is not in the executor's
   * `prices`): how many (its usage's `unpricedCalls`, a fork's own), and their models. The cost
   * leaves them out; a run none of whose calls was priced has this and no `cost`. For a record
   * written before usage counted them: its priced run's calls (its sub-runs' too) without a cost.
   * See docs/cost.md#calls-without-a-price.
   */
  unpriced?: { calls: number; models: string[] };
  /** Time with a model call, with a tool call (and no model call), and with neither (a fork's own: not its copied prefix's). */
  modelMs: number;
  toolMs: number;
  otherMs: number;
  slowest?: TraceSlowest;
  segments: number;
  /** The `seq` of every event that could not be read (a damaged record), in order. */
  unreadable: number[];
}

/**
 * What a fork's record copied from the run it was forked from (its iterations before
 * `iteration`): not this run's work, so not in the header's other figures.
 */
export interface TraceCopiedPrefix {
  /** The run it was forked from. */
  runId: string;
  /** The fork's `forkOf.iteration`: how many of that run's iterations were copied. */
  iteration: number;
  iterations: number;
  modelCalls: number;
  toolCalls: number;
  tokens?: { input: number; output: number; total: number };
  cost?: number;
  /**
   * When some of the copied model calls had no price: how many, and their models, counted as for
   * the run's own calls (see {@link TraceSummary}'s `unpriced`). See docs/cost.md#calls-without-a-price.
   */
  unpriced?: { calls: number; models: string[] };
}

/** Positions on the timeline: run time to a fraction of its width, ticks, and the gaps cut out. */
export interface TraceScale {
  start: number;
  end: number;
  x(at: number): number;
  /** The time at a fraction of the timeline's width: the inverse of `x` (a pause's width spreads over its length). */
  at(x: number): number;
  ticks: { x: number; label: string }[];
  /** Ticks (about 8) for the part of the timeline between the fractions `from` and `to` of its width: a zoomed view. */
  ticksIn(from: number, to: number): { x: number; label: string }[];
  /** Long pauses between segments, drawn narrow (`paused 1 h 00 min`); a fork's, between its copied prefix and its own part (`forked 3 d 0 h later`). */
  breaks: { x: number; width: number; label: string }[];
}

/** The header's summary and the timeline's scale. */
export type TraceSummaryRuntime = ReturnType<typeof traceSummaryRuntime>;

/**
 * The header's figures of a {@link TraceModel} (where the time went, the slowest tool call) and
 * the timeline's scale. `now` is used for what is still running.
 *
 * @internal
 */
export function traceSummaryRuntime(fmt: FormatRuntime, layout: TraceLayoutRuntime) {
  const { isLive, endOf, slowestTool, copiedIterations, usageOf } = layout;

  /** The total length of the union of intervals. */
  function covered(intervals: [number, number][]): number {
    const sorted = intervals.filter(([a, b]) => b > a).sort((a, b) => a[0] - b[0]);
    let total = 0;
    let until = -Infinity;
    for (const [a, b] of sorted) {
      if (b <= until) continue;
      total += b - Math.max(a, until);
      until = b;
    }
    return total;
  }

  /**
   * Counts the model calls of `trace`'s iterations `from` to `to` (excluded), and of their
   * sub-runs, whose usage `unpriced` picks (and their models). Sub-runs no tool call holds are
   * counted with the iterations that run to the end (a fork's own part).
   */
  function countUnpriced(trace: TraceModel, from: number, to: number, unpriced: (usage: TraceUsage) => boolean, out: { calls: number; models: string[] }): void {
    const count = (usage: TraceUsage | undefined, modelName: string | undefined) => {
      if (usage === undefined || !unpriced(usage)) return;
      out.calls++;
      if (modelName !== undefined && !out.models.includes(modelName)) out.models.push(modelName);
    };
    for (const iteration of trace.iterations) {
      if (iteration.n < from || iteration.n >= to) continue;
      for (const call of iteration.modelCalls) count(call.usage, call.modelName);
      count(iteration.pendingUsage, iteration.pendingModel);
      for (const tool of iteration.tools) for (const sub of tool.subRuns ?? []) countUnpriced(sub, 0, Infinity, unpriced, out);
    }
    if (to === Infinity) for (const sub of trace.strayRuns ?? []) countUnpriced(sub, 0, Infinity, unpriced, out);
  }

  /**
   * The model calls the cost of iterations `from` to `to` leaves out (see {@link TraceSummary}'s
   * `unpriced`): their usage's `unpricedCalls` (`usage`: a fork's own, or its copied prefix's),
   * naming the models of the calls marked so; for a record without the count, the calls without
   * a cost of a part that has one.
   */
  function unpricedOf(model: TraceModel, from: number, to: number, usage: TraceUsage | undefined, cost: number | undefined): TraceSummary["unpriced"] {
    const found = { calls: 0, models: [] as string[] };
    if (usage?.unpricedCalls !== undefined) {
      countUnpriced(model, from, to, (call) => (call.unpricedCalls ?? 0) > 0, found);
      return usage.unpricedCalls > 0 ? { calls: usage.unpricedCalls, models: found.models } : undefined;
    }
    if (cost === undefined) return undefined;
    countUnpriced(model, from, to, (call) => call.cost === undefined, found);
    return found.calls > 0 ? found : undefined;
  }

  function summary(model: TraceModel, allRows: readonly TraceRow[], now: number): TraceSummary {
    const rowList = layout.ownRows(allRows); // a sub-run's calls are inside its tool call's time
    const live = isLive(model);
    // A fork's copied prefix (its first segment, and its iterations before `forkOf.iteration`) ran
    // in the run it was forked from, at that run's times: the times here are the fork's own work.
    const copied = copiedIterations(model);
    const segments = model.segments.map((segment, index) =>
      segment.forkOf !== undefined && !segment.resumed ? 0 : segment.end + (live && index === model.segments.length - 1 ? Math.max(0, now - segment.end) : 0) - segment.start,
    );
    let wallMs = segments.reduce((sum, ms) => sum + ms, 0);
    if (model.output !== undefined && model.segments.length === 1) wallMs = Math.max(wallMs, model.output.at - (model.segments[0] as { start: number }).start);
    // The executor's own measure (the run's checkpoint), as `agentrx runs` shows it, once the run is over.
    if (!live && model.run.elapsedMs !== undefined) wallMs = model.run.elapsedMs;
    const bars = (kind: string) =>
      rowList.filter((row) => row.kind === kind && row.start !== undefined && (row.iteration?.n ?? copied) >= copied).map((row) => [row.start, row.end] as [number, number]);
    const modelMs = covered(bars("model"));
    const bothMs = covered([...bars("model"), ...bars("tool")]);
    // Counts and usage too: a fork's copied iterations, calls and tokens are the other run's.
    const isCopied = (n: number | undefined) => n !== undefined && n < copied;
    const counts = (copiedPart: boolean) => ({
      iterations: model.iterations.filter((iteration) => isCopied(iteration.n) === copiedPart).length,
      modelCalls: rowList.filter((row) => row.kind === "model" && row.state !== "inferred" && isCopied(row.iteration?.n) === copiedPart).length,
      toolCalls: rowList.filter((row) => row.kind === "tool" && isCopied(row.iteration?.n) === copiedPart).length,
    });
    const { own: usage, copied: copiedUsage } = usageOf(model);
    const out: TraceSummary = {
      status: model.run.status,
      live,
      wallMs,
      ...counts(false),
      modelMs,
      toolMs: bothMs - modelMs,
      otherMs: Math.max(0, wallMs - bothMs),
      segments: model.segments.length,
      unreadable: model.others.filter((other) => other.error !== undefined).map((other) => other.seq),
    };
    const stopReason = model.output?.stopReason ?? model.run.stopReason;
    if (stopReason !== undefined) out.stopReason = stopReason;
    if (usage !== undefined) out.tokens = usage;
    const cost = usage?.cost ?? (model.usage.cost === undefined ? undefined : Math.max(0, model.usage.cost - (copiedUsage?.cost ?? 0)));
    if (cost !== undefined) out.cost = cost;
    const unpriced = unpricedOf(model, copied, Infinity, usage, cost);
    if (unpriced !== undefined) out.unpriced = unpriced;
    const forkOf = model.segments.find((segment) => segment.forkOf !== undefined)?.forkOf;
    if (forkOf !== undefined) {
      out.copied = { runId: forkOf.runId, iteration: forkOf.iteration, ...counts(true) };
      if (copiedUsage !== undefined) out.copied.tokens = copiedUsage;
      if (copiedUsage?.cost !== undefined) out.copied.cost = copiedUsage.cost;
      const copiedUnpriced = unpricedOf(model, 0, copied, copiedUsage, copiedUsage?.cost);
      if (copiedUnpriced !== undefined) out.copied.unpriced = copiedUnpriced;
    }
    const slowest = slowestTool(model, now);
    if (slowest !== undefined) out.slowest = slowest;
    return out;
  }

  /**
   * What a fork's copied prefix held and cost, as its line under the header says it
   * (`iterations 1–2 copied: 2 model calls, 2 tool calls, 1,840 tokens, $0.0061 + 1 unpriced`),
   * the cost written as the header's.
   */
  function copiedText(copied: TraceCopiedPrefix): string {
    if (copied.iteration === 0) return "at its start: nothing copied";
    const plural = (count: number, noun: string) => `${fmt.count(count)} ${noun}${count === 1 ? "" : "s"}`;
    const figures = [plural(copied.modelCalls, "model call"), plural(copied.toolCalls, "tool call")];
    if (copied.tokens !== undefined) figures.push(plural(copied.tokens.total, "token"));
    const cost = fmt.costWithUnpriced(copied.cost === undefined ? undefined : fmt.usd(copied.cost), copied.unpriced?.calls);
    if (cost !== undefined) figures.push(cost);
    const range = copied.iteration === 1 ? "iteration 1" : `iterations 1–${copied.iteration}`;
    return `${range} copied: ${figures.join(", ")}`;
  }

  /** The timeline's scale; pauses between segments longer than the run's running time are drawn narrow. */
  function scale(model: TraceModel, now: number): TraceScale {
    const start = model.segments[0]?.start ?? model.run.createdAt;
    const end = Math.max(endOf(model, now), start + 1);
    const pieces: { from: number; to: number; gap: boolean; label?: string }[] = [];
    let cursor = start;
    const active = Math.max(1, model.segments.reduce((sum, segment) => sum + (segment.end - segment.start), 0));
    model.segments.forEach((segment, index) => {
      if (index === 0) return;
      const previousEnd = (model.segments[index - 1] as { end: number }).end;
      if (segment.start - previousEnd > Math.max(2000, active)) {
        // A fork's own part comes after its copied prefix (the source's times), not after a pause.
        const label = segment.forkOf !== undefined && segment.resumed ? `forked ${fmt.duration(segment.start - previousEnd)} later` : `paused ${fmt.duration(segment.start - previousEnd)}`;
        pieces.push({ from: cursor, to: previousEnd, gap: false }, { from: previousEnd, to: segment.start, gap: true, label });
        cursor = segment.start;
      }
    });
    pieces.push({ from: cursor, to: end, gap: false });
    const gapWidth = active * 0.06;
    const lengths = pieces.map((piece) => (piece.gap ? gapWidth : piece.to - piece.from));
    const total = Math.max(1, lengths.reduce((sum, length) => sum + length, 0));
    const offsets: number[] = [];
    lengths.reduce((sum, length, index) => ((offsets[index] = sum), sum + length), 0);
    const x = (at: number): number => {
      for (let i = 0; i < pieces.length; i++) {
        const piece = pieces[i] as { from: number; to: number; gap: boolean };
        if (at <= piece.to || i === pieces.length - 1) {
          const within = piece.gap ? ((at - piece.from) / Math.max(1, piece.to - piece.from)) * gapWidth : at - piece.from;
          return Math.min(1, Math.max(0, ((offsets[i] as number) + Math.max(0, within)) / total));
        }
      }
      return 1;
    };
    const at = (fraction: number): number => {
      const position = Math.min(1, Math.max(0, fraction)) * total;
      for (let i = 0; i < pieces.length; i++) {
        const piece = pieces[i] as { from: number; to: number; gap: boolean };
        const length = lengths[i] as number;
        const offset = offsets[i] as number;
        if (position <= offset + length || i === pieces.length - 1) {
          const within = Math.max(0, position - offset);
          return piece.gap ? piece.from + (within / Math.max(1e-9, gapWidth)) * (piece.to - piece.from) : piece.from + within;
        }
      }
      return end;
    };
    const breaks: TraceScale["breaks"] = [];
    pieces.forEach((piece, index) => {
      if (piece.gap) breaks.push({ x: (offsets[index] as number) / total, width: gapWidth / total, label: piece.label ?? `paused ${fmt.duration(piece.to - piece.from)}` });
    });
    const ticksIn = (from: number, to: number): TraceScale["ticks"] => {
      const span = Math.max(1e-9, to - from);
      const step = fmt.niceStep(span * total, 8);
      const ticks: TraceScale["ticks"] = [];
      pieces.forEach((piece, index) => {
        if (piece.gap) return;
        const offset = offsets[index] as number;
        // The piece's times that are in view.
        const first = piece.from + Math.max(0, from * total - offset);
        const last = piece.from + Math.min(piece.to - piece.from, to * total - offset);
        if (last < first) return;
        for (let t = Math.ceil((first - start) / step - 1e-9) * step; start + t <= last + 1e-6; t += step) {
          const position = x(start + t);
          const label = fmt.tick(t, step);
          const previous = ticks[ticks.length - 1];
          if (previous === undefined || ((position - previous.x) / span > 0.04 && label !== previous.label)) ticks.push({ x: position, label });
        }
      });
      return ticks;
    };
    return { start, end, x, at, ticks: ticksIn(0, 1), ticksIn, breaks };
  }

  return { summary, scale, copiedText };
}
