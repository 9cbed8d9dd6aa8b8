// The pieces byte-pair tokenizers split text into before merging bytes (the pre-tokenizer pattern
// of OpenAI's o200k_base, with its case-insensitive contractions spelled out): words with the
// character before them, runs of up to 3 digits, punctuation runs, newlines, other whitespace.
// No token spans two pieces, so the text's count is the sum of its pieces' counts; each piece is
// priced from its length and script, with rates measured against o200k_base (docs/memory.md).
const CONTRACTION = "'(?:[sStTdDmM]|[rR][eE]|[vV][eE]|[lL][lL])";
const PIECE = new RegExp(
  [
    `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:${CONTRACTION})?`,
    `[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:${CONTRACTION})?`,
    "\\p{N}{1,3}",
    " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
    "\\s*[\\r\\n]+",
    "\\s+(?!\\S)",
    "\\s+",
  ].join("|"),
  "gu",
);
const LETTER = /\p{L}/u;
const ASCII_WORD = /^[A-Za-z']+$/;
/** Scripts written without spaces between words: about 0.7 tokens per character. */
const DENSE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/gu;
const NON_ASCII = /[^\x00-\x7f]/gu;
/** Short runs of quotes, brackets and separators (`":"`, `"},{"`, `");`): one token each, as in JSON and code. */
const BRACKETS = /^["'`,:;(){}[\]]{1,4}$/;
const LATIN = /^[\p{Script=Latin}\p{M}']+$/u;
const CYRILLIC_OR_GREEK = /[\p{Script=Cyrillic}\p{Script=Greek}]/u;

function wordTokens(letters: string, afterPrefix: boolean): number {
  if (ASCII_WORD.test(letters)) return (afterPrefix ? 1 : 1.2) + Math.max(0, letters.length - 6) / 7;
  const dense = letters.match(DENSE)?.length ?? 0;
  if (dense > 0) return Math.max(1, dense * 0.7 + (letters.length - dense) * 0.3);
  // Latin with accents: an English-like word plus about half a token per accented letter; Cyrillic
  // and Greek: about 0.25 tokens per letter; other alphabets (Arabic, Hebrew, Devanagari...): 0.33.
  const nonAscii = letters.match(NON_ASCII)?.length ?? 0;
  if (LATIN.test(letters)) return 1 + Math.max(0, letters.length - 6) / 7 + nonAscii * 0.5;
  return Math.max(1, letters.length * (CYRILLIC_OR_GREEK.test(letters) ? 0.25 : 0.33));
}

/**
 * An estimate of how many tokens `text` is for the byte-pair tokenizers of current chat models.
 * Offline and table-free; measured against OpenAI's `o200k_base` (see docs/memory.md for how close
 * it is on prose, chat, code, JSON and other languages).
 *
 * @example
 * ```ts
 * import { estimateTextTokens } from "@agentrx/runs";
 *
 * console.log(estimateTextTokens("Hi, my name is Ada. What's the weather like in Paris today?")); // 15
 * ```
 */
export function estimateTextTokens(text: string): number {
  let tokens = 0;
  for (const [piece] of text.matchAll(PIECE)) {
    if (LETTER.test(piece)) {
      const first = piece.codePointAt(0)!;
      const prefixed = !LETTER.test(String.fromCodePoint(first));
      tokens += wordTokens(prefixed ? piece.slice(first > 0xffff ? 2 : 1) : piece, prefixed);
    } else if (piece.trim() === "" || /^\p{N}+$/u.test(piece)) {
      tokens += 1;
    } else {
      // Punctuation: short runs are one token, longer ones about 0.4 per character; characters
      // beyond ASCII (emoji, arrows, box drawing) about one each.
      const symbols = piece.trim();
      const nonAscii = [...symbols].filter((char) => char.codePointAt(0)! > 0x7f && char !== "\u200d" && char !== "\ufe0f").length;
      const ascii = symbols.replace(NON_ASCII, "");
      tokens += (ascii.length === 0 ? 0 : BRACKETS.test(ascii) ? 1 : 1 + Math.max(0, ascii.length - 2) * 0.4) + nonAscii;
    }
  }
  return tokens === 0 ? 0 : Math.max(1, Math.round(tokens));
}
