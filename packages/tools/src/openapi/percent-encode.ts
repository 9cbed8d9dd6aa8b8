/**
 * The percent-encodings of OpenAPI's parameter styles that URLSearchParams does not give (see
 * docs/tools.md#openapi-toolkit). Pure code, so that it runs in a browser too.
 */

/** RFC 3986's unreserved characters: never encoded. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The reserved characters `allowReserved` lets through: RFC 3986's reserved set but for those that
 * would change a query string's or a form's structure (`&`, `=`, `+`, `#`) or that a query may not
 * hold (`[`, `]`), which OpenAPI leaves the application to encode.
 */
const PASSED_RESERVED = new Set([":", "/", "?", "@", "!", "$", "'", "(", ")", "*", ",", ";"]);

/** A percent-encoded triple such as `%2F`, which reserved expansion leaves as it is. */
const TRIPLE = /^%[0-9A-Fa-f]{2}/;

/** Thrown for text that is not well-formed UTF-16 (a lone surrogate), which no percent-encoding can spell. */
export class UnencodableTextError extends Error {}

/** The UTF-8 percent-encoding of one character (a whole code point), in upper case. */
function encodeCharacter(character: string): string {
  try {
    return encodeURIComponent(character).replace(/[!'()*]/g, (reserved) => `%${reserved.charCodeAt(0).toString(16).toUpperCase()}`);
  } catch (error) {
    throw new UnencodableTextError("holds a lone UTF-16 surrogate, which cannot be percent-encoded", { cause: error });
  }
}

/**
 * RFC 3986 percent-encoding, as RFC 6570's simple expansion does it: everything but the unreserved
 * characters is encoded, `!'()*` too (which `encodeURIComponent` leaves), a space as `%20`. What a
 * cookie value is sent as: no `;`, `,`, space, quote or control character is left.
 *
 * @example
 * ```ts
 * encodeStrict("Hello, world!"); // "Hello%2C%20world%21"
 * ```
 */
export function encodeStrict(text: string): string {
  let result = "";
  for (const character of text) result += UNRESERVED.test(character) ? character : encodeCharacter(character);
  return result;
}

/**
 * Percent-encoding for a query or form value with `allowReserved: true`, as RFC 6570's reserved
 * expansion does it: the reserved characters and percent-encoded triples (`%2F`) pass unchanged,
 * everything else is encoded (a space as `%20`, a `%` that starts no triple as `%25`), but for
 * `&`, `=`, `+`, `#`, `[` and `]`, which are encoded still, so that a value cannot add a
 * parameter, end the query or turn into a space.
 *
 * @example
 * ```ts
 * encodeAllowingReserved("a/b:c?d&e=%2F f"); // "a/b:c?d%26e%3D%2F%20f"
 * ```
 */
export function encodeAllowingReserved(text: string): string {
  let result = "";
  for (let index = 0; index < text.length; ) {
    const triple = text[index] === "%" ? TRIPLE.exec(text.slice(index, index + 3))?.[0] : undefined;
    const character = triple ?? String.fromCodePoint(text.codePointAt(index)!);
    result += triple || UNRESERVED.test(character) || PASSED_RESERVED.has(character) ? character : encodeCharacter(character);
    index += character.length;
  }
  return result;
}

/** Percent-encodes a query name or value as a form does (URLSearchParams' encoding: a space is "+"). */
export function encodeForm(text: string): string {
  return new URLSearchParams([["", text]]).toString().slice(1);
}
