import { InvalidArgumentError } from "../errors/invalid-argument-error";

/**
 * Throws an `InvalidArgumentError` naming the first key of `options` that is not in `known`, so a
 * misspelt option (`{ file: "runs.db" }` for `{ path: "runs.db" }`) fails where it is given rather
 * than leaving the default in place. `owner` names the constructor or function in the message;
 * `prefix` goes before the key in `argument` (e.g. `"options."`). Anything but an object is let
 * through (the caller reports a missing or wrong options argument in its own words). Shared by the packages' option
 * checks (`@agentrx/runs`' stores, `@agentrx/bullmq`'s client and worker).
 *
 * @example
 * ```ts
 * import { checkOptionKeys } from "@agentrx/core";
 *
 * checkOptionKeys("MyStore", { path: "runs.db" }, ["path"]); // fine
 * try {
 *   checkOptionKeys("MyStore", { file: "runs.db" }, ["path"]);
 * } catch (error) {
 *   console.log((error as Error).message); // "MyStore: unknown option `file`. Known options: path."
 * }
 * ```
 *
 * @internal
 */
export function checkOptionKeys(owner: string, options: unknown, known: readonly string[], prefix = ""): void {
  // Options that are not an object are the caller's own check to report (or its default to apply).
  if (typeof options !== "object" || options === null) return;
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const argument = `${prefix}${key}`;
    const expected = known.length === 0 ? `; ${owner} takes no options yet.` : `. Known options: ${known.join(", ")}.`;
    throw new InvalidArgumentError({ argument, value: (options as Record<string, unknown>)[key], message: `${owner}: unknown option \`${argument}\`${expected}` });
  }
}
