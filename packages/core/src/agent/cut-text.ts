/**
 * The start of `text`, at most `maxLength` UTF-16 code units long, never ending inside a surrogate
 * pair (an emoji, say): when the cut would fall between the two halves of one, it falls one code
 * unit earlier, so no lone surrogate is left (one shows as a replacement character, and
 * `encodeURIComponent` refuses it). `text` itself when it fits.
 *
 * @example
 * ```ts
 * import { cutText } from "@agentrx/core";
 *
 * console.log(cutText("ab😀c", 3)); // "ab": the emoji is two code units, and a cut at 3 would split it
 * ```
 */
export function cutText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let end = Math.max(0, Math.floor(maxLength));
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}
