/**
 * Awaits the loop's work so that a cancellation, or a halt, ends the wait at once, without
 * waiting for work that ignores its signal. One wait at a time (the loop awaits one thing).
 *
 * @internal
 */
export class RunWaiter {
  /** How to end the wait in progress (fields, not an object: a wait allocates as little as it can). */
  private reject: ((reason: unknown) => void) | undefined;
  /** Whether a halt ends the wait in progress. */
  private halts = false;

  /**
   * Awaits `promise`; rejects at once with `reason` when `stopped` says the wait must not begin.
   * @param halts whether a halt (`rejectHalting`) ends this wait too
   */
  wait<T>(promise: Promise<T>, halts: boolean, stopped: boolean, reason: unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (stopped) {
        promise.catch(noop);
        reject(reason);
        return;
      }
      this.reject = reject;
      this.halts = halts;
      promise.then(resolve, reject);
    });
  }

  /** Ends a wait that a halt ends. */
  rejectHalting(error: unknown): void {
    if (this.halts) this.reject?.(error);
  }

  /** Ends any wait; later waits are not affected. */
  rejectAll(error: unknown): void {
    const reject = this.reject;
    this.reject = undefined;
    reject?.(error);
  }
}

function noop(): void {}
