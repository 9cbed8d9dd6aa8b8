/**
 * Parses JSON like `JSON.parse`, but also accepts raw control characters (newlines, tabs) inside
 * strings, which models often write in multi-line tool inputs. Linear in the length of the text.
 */
export function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const escaped = escapeControlCharactersInStrings(text);
    if (escaped === text) throw error;
    return JSON.parse(escaped);
  }
}

const HEX = "0123456789abcdef";
const decoder = new TextDecoder("utf-16le");

/**
 * Escapes the raw control characters inside the string literals of `text` (JSON text, possibly
 * malformed) as `\u00XX`; returns `text` itself when there are none. Two scans: one counts, one
 * writes the escaped text into a buffer of the right size, which becomes one string at the end.
 * Nothing is allocated per control character, so a megabyte of them costs about as much as a
 * megabyte of anything else.
 */
export function escapeControlCharactersInStrings(text: string): string {
  const length = text.length;
  let extra = 0;
  let surrogates = false;
  let inString = false;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) surrogates = true;
    if (!inString) {
      if (code === 34 /* " */) inString = true;
    } else if (code === 34 /* " */) {
      inString = false;
    } else if (code === 92 /* \ */) {
      i++; // the escaped character is left as it is, valid or not
    } else if (code < 32) {
      extra += 5;
    }
  }
  if (extra === 0) return text;
  const out = new Uint16Array(length + extra);
  let at = 0;
  inString = false;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (inString && code < 32) {
      out[at++] = 92; // \
      out[at++] = 117; // u
      out[at++] = 48; // 0
      out[at++] = 48; // 0
      out[at++] = HEX.charCodeAt(code >> 4);
      out[at++] = HEX.charCodeAt(code & 15);
      continue;
    }
    out[at++] = code;
    if (!inString) {
      if (code === 34) inString = true;
    } else if (code === 34) {
      inString = false;
    } else if (code === 92 && i + 1 < length) {
      out[at++] = text.charCodeAt(++i);
    }
  }
  return surrogates ? fromCodeUnits(out) : decoder.decode(out);
}

/** The string of `units`, lone surrogates included (which `TextDecoder` would replace). */
function fromCodeUnits(units: Uint16Array): string {
  const parts: string[] = [];
  for (let start = 0; start < units.length; start += 8192) {
    parts.push(String.fromCharCode(...units.subarray(start, start + 8192)));
  }
  return parts.join("");
}
