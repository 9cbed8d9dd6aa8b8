/**
 * What `agentrx` says, after why `better-sqlite3` cannot be loaded, about reading the file with the
 * runtime's built-in `node:sqlite` instead (which it does by itself wherever that module loads), for
 * the Node.js `version` it runs on (`process.versions.node`): before 22.5 there is no such module,
 * so only a newer Node.js helps; 22.5 to 22.12 and 23.0 to 23.3 have it behind the
 * `--experimental-sqlite` flag; later versions have it without a flag, so the fallback was tried
 * and failed as well, and there is nothing to add (an empty string).
 *
 * @internal
 */
export function nodeSqliteHint(version: string): string {
  const [major = 0, minor = 0] = version.split(".").map((part) => Number.parseInt(part, 10));
  const flagged = (major === 22 && minor >= 5 && minor < 13) || (major === 23 && minor < 4);
  if (flagged) return `Or run agentrx with NODE_OPTIONS=--experimental-sqlite: Node.js ${version} then has the built-in node:sqlite, which agentrx reads the file with instead (Node.js 22.13 and later have it without the flag).`;
  if (major < 22 || (major === 22 && minor < 5)) return `Or run agentrx on Node.js 22.13 or later, which has the built-in node:sqlite that agentrx then reads the file with instead (this is Node.js ${version}, which has none).`;
  return "";
}
