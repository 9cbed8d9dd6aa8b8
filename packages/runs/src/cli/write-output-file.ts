import { statSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import { CliError } from "./cli-error";

/** How a path is shown to a person: relative to the working directory when it is inside it. @internal */
export function shownPath(cwd: string, path: string): string {
  const inside = relative(cwd, path);
  return inside === "" || inside.startsWith("..") ? path : inside;
}

/**
 * Writes `text` to `path` (absolute), or fails with a {@link CliError} that says why in words and
 * names the flag that chose the file (`-o`, `--html`): a directory that does not exist is not
 * created, as a mistyped one would be.
 *
 * @internal
 */
export function writeOutputFile(path: string, text: string, flag: string, cwd: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const shown = shownPath(cwd, path);
    const why: Record<string, string> = {
      ENOENT: `the directory ${shownPath(cwd, dirname(path))} does not exist; create it, or pick another file with ${flag}`,
      ENOTDIR: `a part of that path is a file, not a directory; pick another file with ${flag}`,
      EISDIR: `it is a directory; give ${flag} a file name`,
      EACCES: `no permission to write there; pick another file with ${flag}`,
      EPERM: `no permission to write there; pick another file with ${flag}`,
      EROFS: `the file system is read-only; pick another file with ${flag}`,
      ENAMETOOLONG: `the file name is too long; pick a shorter one with ${flag}`,
      ENOSPC: "the disk is full",
    };
    throw new CliError({ message: `cannot write ${shown}: ${(code !== undefined && why[code]) || (error as Error).message}`, cause: error });
  }
}

/**
 * Fails with a {@link CliError} when `path` (absolute) is the SQLite run store the command reads,
 * `storeFile`, or one of its journal files: the same path, or another name of the same file (a
 * link). Writing a page there would destroy the store. Nothing to check without a `storeFile`
 * (a PostgreSQL store).
 *
 * @internal
 */
export function refuseStoreFile(path: string, storeFile: string | undefined, flag: string, cwd: string): void {
  if (storeFile === undefined) return;
  const journals = ["", "-wal", "-shm", "-journal"].map((suffix) => `${storeFile}${suffix}`);
  if (journals.includes(path) || sameFile(path, storeFile)) {
    throw new CliError({ message: `cannot write ${shownPath(cwd, path)}: it is the run store this command reads; pick another file with ${flag}` });
  }
}

/** Whether `a` and `b` name one existing file. */
function sameFile(a: string, b: string): boolean {
  try {
    const [first, second] = [statSync(a, { throwIfNoEntry: false }), statSync(b, { throwIfNoEntry: false })];
    return first !== undefined && second !== undefined && first.dev === second.dev && first.ino === second.ino;
  } catch {
    return false; // writing there fails, and says why
  }
}
