/**
 * Orders two strings by code point, which is the order of their UTF-8 bytes (how SQLite and
 * PostgreSQL with `COLLATE "C"` sort text), without encoding them, so it runs wherever
 * JavaScript does (no `Buffer`). UTF-16 code units already sort by code point except that the
 * surrogates (U+D800 to U+DFFF, the halves of code points above U+FFFF) sort below U+E000 to
 * U+FFFF; the two ranges are swapped before comparing.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}
