import { InvalidArgumentError, editDistance, nearMissOf } from "@agentrx/core";
import {
  AGENT_EXECUTOR_OPTION_KEYS,
  CALL_CONFIG_KEYS,
  FORK_OPTION_KEYS,
  RESUME_OPTION_KEYS,
  RUNNABLE_CONFIG_KEYS,
} from "./agent-executor-options";

/**
 * Keys that `@langchain/core` and LangGraph put in a config besides `RunnableConfig`'s typed ones
 * (`pickRunnableConfigKeys`' `store` and `context`, a tool's `toolCall`, a LangGraph node's runtime
 * and `Pregel` options). They are let through as they are and never taken for a misspelled option.
 * Keys that start with `__`, `ls_`, `lg_` or `lc_` (LangGraph's and LangSmith's own) are too.
 *
 * @internal
 */
export const PASSED_ON_CONFIG_KEYS: readonly string[] = [
  "store",
  "context",
  "toolCall",
  "writer",
  "interrupt",
  "heartbeat",
  "executionInfo",
  "serverInfo",
  "cache",
  "durability",
  "streamMode",
  "interruptBefore",
  "interruptAfter",
  "inputKeys",
  "outputKeys",
  "debug",
  "subgraphs",
  "checkpointDuring",
  "control",
  "encoding",
];

const PASSED_ON_PREFIXES = ["__", "ls_", "lg_", "lc_"];

/** The keys one call site knows: its options (what a near miss is compared to) and what it lets through. @internal */
export interface KnownKeys {
  /** The options, by name; an unknown key close to one of them is refused. */
  readonly names: readonly string[];
  /** Every key taken as it is: the options and the keys passed on. */
  readonly allowed: ReadonlySet<string>;
  /** Options of the constructor that this call site does not read: refused, naming where they go. */
  readonly constructorOnly: ReadonlySet<string>;
  /**
   * Options of another call (`threadId` of invoke/stream given to `resume`): refused, saying where
   * the key belongs. By key: the rest of the message after "`key` is ".
   */
  readonly elsewhere: ReadonlyMap<string, string>;
}

/**
 * The known keys of a call site: `lists` (objects keyed by option names, such as
 * `{ stopWhen: true } satisfies Record<keyof Options, true>`), `passedOn` (let through, not
 * compared to), the constructor's options and the options of other calls (`elsewhere`, by key: the
 * message that says where it belongs); those two are refused unless the call site takes them too.
 *
 * @internal
 */
export function knownKeys(
  lists: readonly Readonly<Record<string, true>>[],
  passedOn: readonly string[] = [],
  constructorOptions: readonly string[] = [],
  elsewhere: Readonly<Record<string, string>> = {},
): KnownKeys {
  const names = [...new Set(lists.flatMap((list) => Object.keys(list)))];
  const allowed = new Set([...names, ...passedOn]);
  return {
    names,
    allowed,
    constructorOnly: new Set(constructorOptions.filter((name) => !allowed.has(name))),
    elsewhere: new Map(Object.entries(elsewhere).filter(([key]) => !allowed.has(key))),
  };
}

/**
 * Refuses a key of `options` that is not one of `known` but a near miss of one (`stopwhen`,
 * `maxIteraions`), an option of the constructor the call does not read (`maxIterations`), or an
 * option of another call (`threadId` given to `resume`), which would otherwise be ignored and its
 * setting lost; any other unknown key is let through, as `@langchain/core` and LangGraph add keys
 * of their own to a config.
 *
 * @param where the call and what was passed, as the message names it (`"AgentExecutor.invoke config"`)
 * @param argument the prefix of the error's `argument` (`"config"`: `config.stopwhen`)
 * @throws InvalidArgumentError naming the key and the option it is close to
 * @internal
 */
export function refuseNearMisses(options: object, known: KnownKeys, where: string, argument: string): void {
  for (const key of Object.keys(options)) {
    if (known.allowed.has(key) || PASSED_ON_PREFIXES.some((prefix) => key.startsWith(prefix))) continue;
    if (known.constructorOnly.has(key)) {
      throw new InvalidArgumentError({
        argument: `${argument}.${key}`,
        value: (options as Record<string, unknown>)[key],
        message: `${where}: \`${key}\` is an option of the AgentExecutor constructor, not of a call (it would be ignored); pass it to \`new AgentExecutor({ ... })\`.`,
      });
    }
    const belongs = known.elsewhere.get(key);
    if (belongs !== undefined) {
      throw new InvalidArgumentError({ argument: `${argument}.${key}`, value: (options as Record<string, unknown>)[key], message: `${where}: \`${key}\` is ${belongs}.` });
    }
    const meant = nearMissOfOption(key, known.names);
    if (meant === undefined) continue;
    throw new InvalidArgumentError({
      argument: `${argument}.${key}`,
      value: (options as Record<string, unknown>)[key],
      message: `${where}: unknown key \`${key}\` (it would be ignored); did you mean \`${meant}\`?`,
    });
  }
}

/**
 * The option of a call that `key` is a near miss of: as `nearMissOf` finds it, or, for an option
 * of 3 characters or fewer (`fork`'s `at`, which `nearMissOf` matches only but for case, `_` and
 * `-`), a key one character added, dropped or swapped with its neighbour away (`ats`, `a`, `ta`).
 * A changed character is not one (`it`, `as` are other words). Only the call's own options are
 * compared, so no other call's or constructor's key is taken for one.
 *
 * @internal
 */
export function nearMissOfOption(key: string, names: readonly string[]): string | undefined {
  const meant = nearMissOf(key, names);
  if (meant !== undefined) return meant;
  const folded = fold(key);
  for (const name of names) {
    const target = fold(name);
    if (target.length > 3 || (folded.length === target.length && !isSwap(folded, target))) continue;
    if (editDistance(folded, target, 1) === 1) return name;
  }
  return undefined;
}

/** A key as a near miss compares it: lower case, without `_` and `-`. */
function fold(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, "");
}

/** Whether `a` is `b` with two neighbouring characters swapped (`ta` and `at`). */
function isSwap(a: string, b: string): boolean {
  const differ: number[] = [];
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) differ.push(i);
  return differ.length === 2 && differ[1] === (differ[0] as number) + 1 && a[differ[0] as number] === b[differ[1] as number] && a[differ[1] as number] === b[differ[0] as number];
}

const { runId: _resumeHasNoRunId, ...runnableConfigButRunId } = RUNNABLE_CONFIG_KEYS;

/** The constructor's options, which a call's config refuses but for the ones it reads too (`store`, `maxConcurrency`). */
const CONSTRUCTOR_OPTIONS = Object.keys(AGENT_EXECUTOR_OPTION_KEYS);

/**
 * The options of one call that another call refuses, by key, as the refusal says where the key
 * belongs: `(other call's name, what to do instead)`. The lists are checked against the options
 * types by `satisfies`; a key that the refusing call takes too is not refused (`store`, `stopWhen`).
 */
const INVOKE_ONLY = {
  threadId: (call: string) => `an option of invoke/stream, not of ${call} (${call === "resume" ? "a resumed run keeps its thread" : "a fork keeps its source's thread"})`,
} satisfies Partial<Record<keyof typeof CALL_CONFIG_KEYS, (call: string) => string>>;

const RESUME_ONLY = {
  decisions: (call: string) =>
    `an option of resume, not of ${call} (${call === "fork" ? "a fork copies complete turns, never a pause: decide on the source with" : "a paused run goes on with"} resume(runId, { decisions }))`,
} satisfies Partial<Record<keyof typeof RESUME_OPTION_KEYS, (call: string) => string>>;

const FORK_ONLY = {
  at: (call: string) => `an option of fork, not of ${call} (${call === "resume" ? "a resume goes on from where the run stopped; " : ""}fork(runId, { at }) starts a new run from a recorded run's earlier turn)`,
  inputs: (call: string) => `an option of fork, not of ${call} (${call === "resume" ? "a resumed run keeps its inputs; fork(runId, { inputs }) starts a new run with others" : "a run's inputs are the first argument of invoke/stream"})`,
  edit: (call: string) => `an option of fork, not of ${call} (fork(runId, { edit }) starts a new run from a recorded one with an observation changed)`,
} satisfies Partial<Record<keyof typeof FORK_OPTION_KEYS, (call: string) => string>>;

/** The options of other calls that `call` refuses, each with the message that says where it belongs. */
function otherCalls(call: string, ...lists: Record<string, (call: string) => string>[]): Record<string, string> {
  return Object.fromEntries(lists.flatMap((list) => Object.entries(list).map(([key, belongs]) => [key, belongs(call)])));
}

/** `invoke`/`stream`'s config: `AgentExecutorCallConfig`. @internal */
export const CALL_CONFIG: KnownKeys = knownKeys([CALL_CONFIG_KEYS, RUNNABLE_CONFIG_KEYS], PASSED_ON_CONFIG_KEYS, CONSTRUCTOR_OPTIONS, otherCalls("invoke/stream", RESUME_ONLY, FORK_ONLY));

/** `resume`'s options: `ResumeOptions` (a `runId` is let through, as it was: it is not an option). @internal */
export const RESUME_OPTIONS: KnownKeys = knownKeys([RESUME_OPTION_KEYS, runnableConfigButRunId], [...PASSED_ON_CONFIG_KEYS, "runId"], CONSTRUCTOR_OPTIONS, otherCalls("resume", INVOKE_ONLY, FORK_ONLY));

/** `fork`'s options: `ForkOptions`. @internal */
export const FORK_OPTIONS: KnownKeys = knownKeys([FORK_OPTION_KEYS, RUNNABLE_CONFIG_KEYS], PASSED_ON_CONFIG_KEYS, CONSTRUCTOR_OPTIONS, otherCalls("fork", INVOKE_ONLY, RESUME_ONLY));

/** The constructor's options: `AgentExecutorOptions` (every other key is refused). @internal */
export const EXECUTOR_OPTIONS: KnownKeys = knownKeys([AGENT_EXECUTOR_OPTION_KEYS]);
