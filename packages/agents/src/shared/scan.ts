// Linear-time scanning helpers for the text parsers. They replace regular expressions whose
// nested quantifiers could backtrack for a long time on adversarial text.

/** Returns the index of the first character at or after `at` that is not whitespace. */
export function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Returns the index of the first character at or after `at` that is not an ASCII digit. */
export function skipDigits(text: string, at: number): number {
  let i = at;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) break;
    i++;
  }
  return i;
}

/** Whether the character code is whitespace (as `\s` in a regular expression). */
export function isSpace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** Counts the non-overlapping occurrences of `needle` in `text`. */
export function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Removes every leading and trailing `"` from `text`. */
export function stripQuotes(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === '"') start++;
  while (end > start && text[end - 1] === '"') end--;
  return text.slice(start, end);
}
