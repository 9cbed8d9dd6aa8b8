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

function escapeControlCharactersInStrings(text: string): string {
  let out = "";
  let inString = false;
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString && code === 92 /* \ */) {
      i++;
      continue;
    }
    if (code === 34 /* " */) {
      inString = !inString;
      continue;
    }
    if (inString && code < 32) {
      out += text.slice(last, i) + `\\u${code.toString(16).padStart(4, "0")}`;
      last = i + 1;
    }
  }
  return last === 0 ? text : out + text.slice(last);
}
