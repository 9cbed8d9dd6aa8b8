/**
 * `text` with the passwords of the connection strings in it replaced by `***`.
 *
 * @internal
 */
export function redact(text: string): string {
  return text.replace(/(postgres(?:ql)?:\/\/[^:/@\s]*:)[^@\s]*@/gi, "$1***@");
}
