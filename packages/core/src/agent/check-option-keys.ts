import { InvalidArgumentError } from "../errors/invalid-argument-error";
import { nearMissOf } from "./near-miss";

/** How {@link checkOptionKeys} names a refused key and what it says about it. */
export interface CheckOptionKeysOptions {
  /** Goes before the key in the error's `argument` (e.g. `"options."`). */
  prefix?: string;
  /**
   * What to say about a key that is not an option but is often given (where it belongs, or why it
   * has no counterpart), by key, as a phrase without its final period (`"the model goes in \`llm\`"`):
   * it replaces the near-miss suggestion.
   */
  hints?: Readonly<Record<string, string>>;
}

/**
 * Throws an `InvalidArgumentError` naming the first key of `options` that is not in `known`, so a
 * misspelt option (`{ file: "runs.db" }` for `{ path: "runs.db" }`) fails where it is given rather
 * than leaving the default in place. The message lists the known options and, for a near miss of
 * one (`pathh`, `max_retries`), asks whether it was meant; a key of `hints` gets its sentence
 * instead. `owner` names the constructor or function in the message; `prefix` (a string, or in
 * the options) goes before the key in `argument` (e.g. `"options."`). Anything but an object is
 * let through (the caller reports a missing or wrong options argument in its own words). Shared
 * by every options check of the packages.
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
 * try {
 *   checkOptionKeys("MyStore", { pathh: "runs.db" }, ["path"]);
 * } catch (error) {
 *   console.log((error as Error).message); // "MyStore: unknown option `pathh`; did you mean `path`? Known options: path."
 * }
 * ```
 *
 * @internal
 */
export function checkOptionKeys(owner: string, options: unknown, known: readonly string[], how: string | CheckOptionKeysOptions = ""): void {
  // Options that are not an object are the caller's own check to report (or its default to apply).
  if (typeof options !== "object" || options === null) return;
  const { prefix = "", hints } = typeof how === "string" ? { prefix: how } : how;
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const argument = `${prefix}${key}`;
    const hint = hints !== undefined && Object.hasOwn(hints, key) ? hints[key] : undefined;
    const meant = hint === undefined ? nearMissOf(key, known) : undefined;
    const said = hint !== undefined ? `: ${hint}.` : meant !== undefined ? `; did you mean \`${meant}\`?` : "";
    const expected = known.length === 0 ? `${said === "" ? ";" : ""} ${owner} takes no options yet.` : `${said === "" ? "." : ""} Known options: ${known.join(", ")}.`;
    throw new InvalidArgumentError({ argument, value: (options as Record<string, unknown>)[key], message: `${owner}: unknown option \`${argument}\`${said}${expected}` });
  }
}
