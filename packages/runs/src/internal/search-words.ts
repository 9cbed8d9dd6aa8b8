import { storableText } from "./validate-run-arguments";

/** How many characters of a run's input and answer a store keeps for search and previews. */
export const SEARCH_TEXT_CHARS = 2000;

/**
 * The most characters a word of search counts: a longer word (a hash, a blob of base64) counts by
 * its first 200, in a run's text and in a search alike. PostgreSQL cannot index a word of more than
 * 2,047 bytes; 200 characters of UTF-8 are at most 800 (docs/runs.md).
 */
export const SEARCH_WORD_CHARS = 200;

/**
 * A run's search words (see {@link searchTerms}): those of its input and of its answer, each list
 * joined by single spaces. What every store indexes for `listRuns({ search })`: MemoryRunStore
 * keeps them on its rows, SQLite in columns with an FTS5 index, PostgreSQL as `tsvector`s.
 */
export interface RunSearchWords {
  input_words: string;
  answer_words: string;
}

/**
 * The words of a search or of a run's text: runs of letters and digits after compatibility
 * decomposition (NFKD: "ﬁ" is "fi", "Ａ" is "A", "²" is "2"), marks removed (accents: "é" is "e",
 * "й" is "и"), lowercased, the final sigma as sigma; each cut to {@link SEARCH_WORD_CHARS}
 * characters. Every store indexes these words and no others, so a search finds the same runs in
 * each (docs/runs.md).
 */
export function searchTerms(text: string): string[] {
  const words = text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().replace(/\u03c2/g, "\u03c3").match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.map(capWord);
}

/** `word` cut to its first {@link SEARCH_WORD_CHARS} code points (never inside a surrogate pair). */
function capWord(word: string): string {
  if (word.length <= SEARCH_WORD_CHARS) return word;
  let cut = "";
  let count = 0;
  for (const char of word) {
    if (count++ === SEARCH_WORD_CHARS) break;
    cut += char;
  }
  return cut;
}

/** `text` cut to {@link SEARCH_TEXT_CHARS}, as a store can keep it (see `storableText`). */
export function capText(text: string): string {
  return storableText(text.length > SEARCH_TEXT_CHARS ? text.slice(0, SEARCH_TEXT_CHARS) : text);
}

/**
 * The text search reads of a value, capped: a string itself; else the strings and numbers inside
 * it, in order, one per line: not its keys, nor JSON's quotes and escapes (the `\n` of JSON text
 * would glue its `n` to the next word). A run whose input is a message list is found by what the
 * messages say.
 */
export function searchTextOf(value: unknown): string {
  if (typeof value === "string") return capText(value);
  const parts: string[] = [];
  let length = 0;
  // Depth first, in order, without recursion: a deeply nested value cannot overflow the stack.
  const stack: unknown[] = [value];
  while (stack.length > 0 && length < SEARCH_TEXT_CHARS) {
    let item = stack.pop();
    if (item !== null && typeof item === "object" && typeof (item as { toJSON?: unknown }).toJSON === "function") item = (item as { toJSON: () => unknown }).toJSON();
    if (typeof item === "string" || (typeof item === "number" && Number.isFinite(item))) {
      const text = String(item);
      parts.push(text);
      length += text.length + 1;
    } else if (item !== null && typeof item === "object") {
      const values = Array.isArray(item) ? item : Object.values(item);
      for (let i = values.length - 1; i >= 0; i--) stack.push(values[i]);
    }
  }
  return capText(parts.join("\n"));
}

/** The search words of a value (see {@link searchTextOf} and {@link searchTerms}), joined by spaces. */
export function searchWordsOf(value: unknown): string {
  return searchTerms(searchTextOf(value)).join(" ");
}

/**
 * A row's search words as one string, each word after a space: a search word `w` starts a word of
 * the row when the string includes `" " + w` (how MemoryRunStore searches, and SQLite without FTS5).
 */
export function searchHaystack(row: RunSearchWords): string {
  return ` ${row.input_words} ${row.answer_words}`;
}
