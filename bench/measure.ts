// Timing and memory helpers for the benchmark.
import { performance } from "node:perf_hooks";

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Times `runs` calls of each variant, interleaved round by round (so drift hits all alike), after
 * `warmup` untimed rounds. Returns the median milliseconds per variant.
 */
export async function timeInterleaved(
  variants: Record<string, () => Promise<unknown>>,
  { warmup, runs }: { warmup: number; runs: number },
): Promise<Record<string, number>> {
  const names = Object.keys(variants);
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < warmup + runs; round++) {
    // Rotate who goes first, so no contestant always runs after the same one.
    for (const name of rotate(names, round)) {
      const run = variants[name] as () => Promise<unknown>;
      const start = performance.now();
      await run();
      const elapsed = performance.now() - start;
      if (round >= warmup) samples[name]?.push(elapsed);
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(samples[name] as number[])]));
}

/** Runs `work` while sampling the heap; returns wall time and the peak heap above the baseline. */
export async function withPeakHeap(work: () => Promise<unknown>): Promise<{ ms: number; peakHeapMb: number }> {
  collectGarbage();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  const sampler = setInterval(() => {
    const used = process.memoryUsage().heapUsed;
    if (used > peak) peak = used;
  }, 2);
  const start = performance.now();
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  const ms = performance.now() - start;
  const last = process.memoryUsage().heapUsed;
  if (last > peak) peak = last;
  return { ms, peakHeapMb: (peak - baseline) / 2 ** 20 };
}

/** `items` rotated left by `by` places. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}
