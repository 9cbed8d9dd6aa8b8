// Runs in the pages (bundled into their scripts at build time: scripts/build-page-scripts.mjs) and
// in Node, so it uses only the JavaScript built-ins: the pages cannot import @agentrx/core, whose
// `cutText` is the same rule for the packages.

/** Whether the UTF-16 code unit at `index` of `text` is the first half of a surrogate pair. */
function isHighSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * The start of `text`, at most `maxLength` UTF-16 code units long, never ending inside a surrogate
 * pair (an emoji, say): when the cut would fall between the two halves of one, it falls one code
 * unit earlier. `text` itself when it fits. Every text the viewer cuts goes through this (or
 * {@link cutTextEnd}), so no page shows half a character or carries a lone surrogate, which
 * `encodeURIComponent` refuses.
 *
 * @internal
 */
export function cutText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let end = Math.max(0, Math.floor(maxLength));
  if (end > 0 && isHighSurrogate(text, end - 1)) end--;
  return text.slice(0, end);
}

/**
 * The end of `text`, at most `maxLength` UTF-16 code units long, never starting inside a surrogate
 * pair (see {@link cutText}). `text` itself when it fits.
 *
 * @internal
 */
export function cutTextEnd(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let start = text.length - Math.max(0, Math.floor(maxLength));
  if (start < text.length && isHighSurrogate(text, start - 1)) start++;
  return text.slice(start);
}
