const MARKER = "agentrx.error.CliError";
const MARKER_SYMBOL = Symbol.for(MARKER);

/**
 * How `agentrx` ended: 1, something failed (an unknown run, an unreachable database); 2, the
 * command line is wrong; 130, Ctrl-C stopped it (128 + SIGINT, as a shell reports it).
 */
export type CliExitCode = 1 | 2 | 130;

/**
 * A failure the `agentrx` command reports as one line on stderr, with its exit code: a usage
 * mistake (an unknown command or option, a bad value: exit 2) or a run store that cannot be used
 * (exit 1). The message names what is at fault and how to fix it. It does not extend
 * `AgentRxError`, so that a usage mistake is answered without loading `@agentrx/core`.
 *
 * @internal
 */
export class CliError extends Error {
  protected readonly [MARKER_SYMBOL] = true;

  /** The process's exit code. */
  readonly exitCode: CliExitCode;

  constructor({ message, exitCode = 1, cause }: { message: string; exitCode?: CliExitCode; cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "CliError";
    this.exitCode = exitCode;
  }

  /** Returns true when `error` is a {@link CliError} (from any copy of the package). */
  static isInstance(error: unknown): error is CliError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[MARKER_SYMBOL] === true;
  }
}

/** A mistake on the command line (exit code 2); the message ends with where to read the usage. */
export function usageError(message: string): CliError {
  return new CliError({ message: `${message} (see agentrx --help)`, exitCode: 2 });
}
