// Runs in the trace page (bundled into its script at build time: scripts/build-page-scripts.mjs)
// and in Node (the CLI and the tests), so it uses only the JavaScript built-ins, no DOM.
import { cutText } from "../cut-text";

/** The formatting helpers of the trace page. */
export type FormatRuntime = ReturnType<typeof formatRuntime>;

/**
 * The trace page's number and time formats, as one self-contained function (see the note at the
 * top of this file).
 *
 * @internal
 */
export function formatRuntime() {
  /** `850 ms`, `1.25 s`, `12.3 s`, `2 min 05 s`, `1 h 02 min`. */
  function duration(ms: number): string {
    if (!Number.isFinite(ms)) return "?";
    const abs = Math.abs(ms);
    const sign = ms < 0 ? "-" : "";
    if (abs < 1) return `${sign}${abs === 0 ? "0" : abs.toFixed(1)} ms`;
    if (abs < 1000) return `${sign}${Math.round(abs)} ms`;
    if (abs < 10_000) return `${sign}${(abs / 1000).toFixed(2)} s`;
    if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(1)} s`;
    const minutes = Math.floor(abs / 60_000);
    if (minutes < 60) return `${sign}${minutes} min ${String(Math.floor((abs % 60_000) / 1000)).padStart(2, "0")} s`;
    const hours = Math.floor(minutes / 60);
    if (hours < 48) return `${sign}${hours} h ${String(minutes % 60).padStart(2, "0")} min`;
    return `${sign}${Math.floor(hours / 24)} d ${hours % 24} h`;
  }

  /**
   * A tick label on the time axis: `0`, `250 ms`, `1.5 s`, `2 min`. With `step` (the ticks'
   * spacing), as many decimals as the step needs, so that ticks a step apart never share a label
   * (a zoomed axis: `1.2345 s`, `1.235 s`).
   */
  function tick(ms: number, step?: number): string {
    if (ms === 0) return "0";
    const [unit, name] = ms < 1000 ? [1, "ms"] : ms < 60_000 ? [1000, "s"] : ms < 3_600_000 ? [60_000, "min"] : [3_600_000, "h"];
    let decimals = ms < 10 ? 2 : ms < 1000 ? 0 : 2; // a run of a few milliseconds has ticks apart by less than one
    if (step !== undefined && step > 0) {
      const inUnit = step / (unit as number);
      decimals = 0;
      while (decimals < 9 && Math.abs(Math.round(inUnit * 10 ** decimals) - inUnit * 10 ** decimals) > 1e-6) decimals++;
    }
    return `${Number((ms / (unit as number)).toFixed(decimals))} ${name}`;
  }

  /** US dollars: `$0.0123`, `$12.50`; a tiny amount keeps two significant digits (`$0.000042`, `$0.00000031`), never an exponent. */
  function usd(value: number): string {
    if (!Number.isFinite(value)) return "?";
    if (value === 0) return "$0";
    if (Math.abs(value) < 0.0001) {
      const rounded = Number(value.toPrecision(2));
      const decimals = Math.min(100, 1 - Math.floor(Math.log10(Math.abs(rounded))));
      return `$${rounded.toFixed(decimals).replace(/0+$/, "")}`;
    }
    return `$${value.toFixed(Math.abs(value) >= 100 ? 2 : 4)}`;
  }

  /** `1,234`. */
  function count(value: number): string {
    return Math.round(value).toLocaleString("en-US");
  }

  /**
   * A run's cost with the model calls it leaves out (`usage.unpricedCalls`, see
   * docs/cost.md#calls-without-a-price), as `agentrx runs`, `agentrx show` and the pages write it:
   * `$0.0213`, `$0.0213 + 2 unpriced`, or `2 unpriced` when no call was priced; undefined when
   * there is neither. `money` is the cost already written in dollars (each surface has its own form).
   */
  function costWithUnpriced(money: string | undefined, unpricedCalls: number | undefined): string | undefined {
    const unpriced = unpricedCalls !== undefined && Number.isFinite(unpricedCalls) && unpricedCalls > 0 ? `${count(unpricedCalls)} unpriced` : undefined;
    if (money === undefined) return unpriced;
    return unpriced === undefined ? money : `${money} + ${unpriced}`;
  }

  /** `2026-01-31 14:05:09` in local time. */
  function time(at: number): string {
    const date = new Date(at);
    const two = (value: number) => String(value).padStart(2, "0");
    return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
  }

  /** `1.0 MB`, `12 KB`, `300 characters`. */
  function size(characters: number): string {
    if (characters < 1000) return `${characters} characters`;
    if (characters < 1_000_000) return `${Math.round(characters / 1000)} KB`;
    return `${(characters / 1_000_000).toFixed(1)} MB`;
  }

  /** `text` on one line, cut to `max` characters with `…`. */
  function oneLine(text: string, max: number): string {
    const line = text.replace(/\s+/g, " ").trim();
    return line.length <= max ? line : `${cutText(line, max - 1)}…`;
  }

  /** A round step for an axis about `span` long with about `target` ticks. */
  function niceStep(span: number, target: number): number {
    const raw = Math.max(span, 1e-3) / Math.max(target, 1);
    const power = 10 ** Math.floor(Math.log10(raw));
    for (const factor of [1, 2, 2.5, 5, 10]) if (factor * power >= raw) return factor * power;
    return 10 * power;
  }

  return { duration, tick, count, usd, costWithUnpriced, time, size, oneLine, niceStep };
}
