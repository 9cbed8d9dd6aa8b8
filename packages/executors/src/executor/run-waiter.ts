/**
 * Awaits the loop's work so that a cancellation, or a halt, ends the wait at once, without
 * waiting for work that ignores its signal. One wait at a time (the loop awaits one thing).
 *
 * @internal
 */
export class RunWaiter {
  private pending: { reject: (reason: unknown) => void; halts: boolean } | undefined;

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
      this.pending = { reject, halts };
      promise.then(resolve, reject);
    });
  }

  /** Ends a wait that a halt ends. */
  rejectHalting(error: unknown): void {
    if (this.pending?.halts) this.pending.reject(error);
  }

  /** Ends any wait; later waits are not affected. */
  rejectAll(error: unknown): void {
    this.pending?.reject(error);
    this.pending = undefined;
  }
}

function noop(): void {}
