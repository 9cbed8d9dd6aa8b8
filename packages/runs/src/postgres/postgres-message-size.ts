/**
 * The most bytes PostgreSQL reads in one message from a client (its `MaxAllocSize`, 1 GB, less
 * one). A statement's values travel in one message: past this, the server drops the connection,
 * which the client sees as `ECONNRESET`, the error of an unreachable server.
 */
export const MAX_MESSAGE_BYTES = 0x3fffffff - 1;

/**
 * The UTF-8 bytes a statement's values take at least (strings, and the strings in array values),
 * when that is more than `limit`; else `undefined`. A UTF-16 unit is 1 to 3 bytes, so the exact
 * count is made only for values whose length alone does not decide it: a write of ordinary size
 * costs one pass over its values' lengths.
 */
export function valueBytesOver(values: readonly unknown[], limit: number): number | undefined {
  let units = 0;
  for (const value of values) units += unitsOf(value);
  if (units * 3 <= limit) return undefined;
  let bytes = 0;
  for (const value of values) bytes += bytesOf(value);
  return bytes > limit ? bytes : undefined;
}

function unitsOf(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (!Array.isArray(value)) return 0;
  let units = 0;
  for (const item of value) units += unitsOf(item);
  return units;
}

function bytesOf(value: unknown): number {
  if (typeof value === "string") return utf8Bytes(value);
  if (!Array.isArray(value)) return 0;
  let bytes = 0;
  for (const item of value) bytes += bytesOf(item);
  return bytes;
}

/** The UTF-8 length of `text` (a lone surrogate counted as the 3 bytes of U+FFFD), without copying it. */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) (bytes += 4), i++;
    else bytes += 3;
  }
  return bytes;
}
