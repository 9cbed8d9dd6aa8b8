/**
 * The scheme of `text` when it is a URL rather than a file path: a server's (`mysql://...`,
 * `postgres://...`) or SQLite's `file:` form (`file:runs.db?mode=ro`); undefined for a path,
 * a Windows one with its drive letter (`C:\runs.db`, `C:/runs.db`) too.
 *
 * @internal
 */
export function urlScheme(text: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):(?:\/\/|[^\\/]*\?)/i.exec(text)?.[1];
  return scheme !== undefined && scheme.length > 1 ? scheme : undefined;
}
