/**
 * Which steps of a stream answer tool calls its client already shows. A resumed run's stream
 * (`executor.resume` after an approval pause) starts with the steps of the turn it paused in,
 * whose calls the client got from the paused run's stream; every later step (a handled parsing
 * error of a later agent call, say) belongs to a turn this stream shows itself.
 *
 * @internal
 */
export class ResumedTurn {
  /** The paused turn's iteration; `undefined` until the stream's first event with an iteration says it; `-1`: none. */
  private iteration: number | undefined = -1;

  /** The run's `start` event: whether it resumed a recorded run. */
  started(resumed: boolean): void {
    this.iteration = resumed ? undefined : -1;
  }

  /**
   * Notes one of the run's own events with an iteration (not a sub-run's); the first one says
   * whether the stream begins with the paused turn's steps.
   */
  saw(type: string, iteration: number): void {
    if (this.iteration === undefined) this.iteration = type === "step" ? iteration : -1;
  }

  /** Whether a step of `iteration` answers a call the client got from the paused run. */
  answersShownCall(iteration: number): boolean {
    return this.iteration === iteration;
  }
}
