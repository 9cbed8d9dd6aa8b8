/**
 * `text` with the passwords of the connection strings in it (`postgres://app:secret@...`, any
 * other scheme's too) replaced by `***`.
 *
 * @internal
 */
export function redact(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, "$1***@");
}
