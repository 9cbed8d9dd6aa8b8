/**
 * Near misses of option names: what a misspelt key (`stopwhen`, `maxIteraions`, `pathh`) was
 * probably meant to be, so an option check can say so. Used by {@link checkOptionKeys} and the
 * executor's own option checks.
 */

/** A name as a near miss compares it: lower case, without `_` and `-` (`stop_when` is `stopWhen`). */
function fold(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, "");
}

/**
 * How many edits a key may be from an option's name to count as a near miss of it: 2 for names of
 * 6 characters or more, 1 for 4 or 5, none for shorter ones (`at`: only `AT`, `a_t`).
 */
function allowedEdits(name: string): number {
  return name.length >= 6 ? 2 : name.length >= 4 ? 1 : 0;
}

/** Whether `a` and `b` differ in exactly one character, in place (`score` and `store`). */
function oneSubstitution(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let differ = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) differ++;
  return differ === 1;
}

/**
 * The Damerau-Levenshtein distance (optimal string alignment: insertions, deletions, substitutions
 * and swaps of two neighbours) between `a` and `b`, or `max + 1` once it is known to exceed `max`.
 *
 * @internal
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, beforePrevious[j - 2]! + 1);
      current.push(value);
      if (value < best) best = value;
    }
    if (best > max) return max + 1;
    beforePrevious = previous;
    previous = current;
  }
  return Math.min(previous[b.length]!, max + 1);
}

/**
 * The option `key` is a near miss of, if any: one whose name it equals but for case, `_` and `-`,
 * or is a few edits from (see `allowedEdits`; for a short name, one character added, dropped or
 * swapped with its neighbour, not changed: `score` is a word, not a misspelled `store`); the
 * closest, the first listed on a tie.
 *
 * @internal
 */
export function nearMissOf(key: string, names: readonly string[]): string | undefined {
  const folded = fold(key);
  let meant: string | undefined;
  let distance = Number.POSITIVE_INFINITY;
  for (const name of names) {
    const target = fold(name);
    const max = allowedEdits(name);
    const edits = editDistance(folded, target, max);
    if (max === 1 && edits === 1 && oneSubstitution(folded, target)) continue;
    if (edits <= max && edits < distance) {
      meant = name;
      distance = edits;
    }
  }
  return meant;
}

