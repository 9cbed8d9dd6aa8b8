import type { AgentStreamEvent } from "../executor/events";

/**
 * The `token` events of one agent call made through the `wrapModelCall` chain, held by model
 * attempt (each call of the agent the chain makes: a fallback's, a second `next`'s) until the chain
 * returned. Then only the attempt whose output the chain returned streams its tokens
 * ({@link AttemptTokens.of}); those of an attempt that failed, or whose output the chain did not
 * return, are dropped. Attempt numbers are the run's (see `MiddlewareRun`), so a token of an
 * attempt of an earlier agent call, streamed late, is never taken for this call's.
 *
 * @internal
 */
export class AttemptTokens {
  /** The tokens of each attempt begun in this agent call. */
  private readonly tokens = new Map<number, AgentStreamEvent[]>();
  /** What each attempt that answered resolved to, in order. */
  private readonly answers: { attempt: number; output: unknown }[] = [];
  /** The attempt begun last (what a token its model call did not mark belongs to). */
  private latest: number | undefined;

  /** An attempt of the agent call begins. */
  begin(attempt: number): void {
    this.tokens.set(attempt, []);
    this.latest = attempt;
  }

  /**
   * A token of `attempt`'s model call (undefined: a model call the agent made without the run's
   * metadata: the attempt begun last). A token of an attempt not begun in this agent call is dropped.
   */
  add(attempt: number | undefined, event: AgentStreamEvent): void {
    const key = attempt ?? this.latest;
    if (key !== undefined) this.tokens.get(key)?.push(event);
  }

  /** `attempt` resolved to `output`. */
  answered(attempt: number, output: unknown): void {
    this.answers.push({ attempt, output });
  }

  /**
   * The tokens of the attempt that resolved to `output` (the chain's answer): the last one that
   * did; undefined when none did (the chain made an output of its own, or changed the model's).
   */
  of(output: unknown): readonly AgentStreamEvent[] | undefined {
    for (let i = this.answers.length - 1; i >= 0; i--) {
      const answer = this.answers[i] as { attempt: number; output: unknown };
      if (Object.is(answer.output, output)) return this.tokens.get(answer.attempt);
    }
    return undefined;
  }
}
