import { RunLeaseLostError } from "./run-store-errors";

/** What a lease knows of its run: the names its error gives, and the lease's terms. */
export interface RunLeaseOptions {
  /** The run whose lease this is. */
  readonly runId: string;
  /** This process's lease owner id (see `ownerId`). */
  readonly owner: string;
  /** How long one acknowledged write holds the lease, in ms. */
  readonly leaseMs: number;
  /** How long one store call may take before the run fails with a timeout (named in the lease's error). */
  readonly storeTimeoutMs: number;
  /** When the lease the run starts with was taken (epoch ms). */
  readonly takenAt: number;
}

/** How a lease reaches the recorder that writes its run: its write queue, and where a lost lease goes. */
export interface RunLeaseHooks {
  /** How many writes are queued or in flight: while there is one, the heartbeat sends nothing. */
  pending(): number;
  /** Renews the lease: a write of what is buffered (its failure goes to the recorder's own failure path). */
  renew(): void;
  /** The lease is about to run out with no newer write acknowledged: the run must fail with this error. */
  fail(error: RunLeaseLostError): void;
  /** The run's fencing token, once known (named in the lease's error). */
  epoch(): number | undefined;
}

/**
 * Keeps one run's lease for its `RunRecorder`: a heartbeat that renews it within `leaseMs / 3` of
 * the last write while nothing else is written (never behind a write pending: that write renews
 * it), and a watchdog that fails the run with `RunLeaseLostError` when the lease is about to run out
 * with no newer write acknowledged, before another process may take the run over (see
 * docs/runs.md, Fencing). The recorder tells it about its writes ({@link writing}, {@link sent},
 * {@link acknowledged}, {@link settled}, {@link idle}); each only moves a number, so a write costs
 * no timer operation. One timer each for the heartbeat and the watchdog, re-armed when it fires,
 * unref'd.
 *
 * @internal
 */
export class RunLease {
  /** Until when the lease is surely ours: when the last acknowledged write was sent, plus `leaseMs`. */
  private leaseUntil: number;
  /** When the last write (or the claim the run starts with) was sent (epoch ms). */
  private lastWrite: number;
  /** Renews the lease while the run is quiet; set from {@link start} until {@link stop}. */
  private heartbeat: ReturnType<typeof setTimeout> | undefined;
  /** Fails the run when its lease is about to run out (see {@link watch}); armed by the first tool start, until {@link stop}. */
  private watchdog: ReturnType<typeof setTimeout> | undefined;
  /** How long after the last write the heartbeat renews the lease. */
  private readonly renewEvery: number;
  /** How long before its lease runs out the watchdog stops the run, so its aborted tools have time to stop. */
  private readonly leaseMargin: number;
  /** How late the lease's timers must run to tell that the event loop was blocked (half the margin). */
  private readonly blockedAfter: number;
  /** When the heartbeat's timer is due (epoch ms), while it is armed. */
  private beatDue = 0;
  /** When the watchdog's timer is due (epoch ms), while it is armed. */
  private watchDue = 0;
  /** Whether the heartbeat came due while a write was pending: it runs again once none is (see {@link idle}). */
  private beatDeferred = false;
  /** When the write in flight was sent (epoch ms); undefined when none is. */
  private sentAt: number | undefined;
  /** How late the lease's timers ran when the write in flight was sent (0 when on time): a block just before it. */
  private sentLateMs = 0;
  /** How late a lease timer ran since the last write was sent (ms): the next write is sent that late. */
  private lateSeen = 0;
  /** How many of the run's writes from this process (the record's creation included) the store acknowledged. */
  private acknowledgedWrites = 0;
  /** How late the watchdog ran when it chose to wait for a write in flight until the lease's end (see {@link watch}). */
  private stalledMs: number | undefined;
  /** How long the last acknowledged write took, from its sending to its answer being read (ms). */
  private lastRoundTripMs = 0;

  constructor(
    private readonly options: RunLeaseOptions,
    private readonly hooks: RunLeaseHooks,
  ) {
    const { leaseMs, takenAt } = options;
    this.leaseUntil = takenAt + leaseMs;
    this.lastWrite = takenAt;
    this.renewEvery = Math.max(10, Math.floor(leaseMs / 3));
    this.leaseMargin = Math.min(Math.floor(leaseMs / 10), 1000);
    this.blockedAfter = Math.max(1, Math.floor(this.leaseMargin / 2));
  }

  /** Until when the lease is surely ours (epoch ms): when the last acknowledged write was sent, plus `leaseMs`. */
  get until(): number {
    return this.leaseUntil;
  }

  /** Whether the lease is being kept: from {@link start} until {@link stop}. */
  get started(): boolean {
    return this.heartbeat !== undefined;
  }

  /**
   * Starts keeping the lease: the heartbeat renews it within `leaseMs / 3` of the last write while
   * the run is quiet. Once a tool has started ({@link check}), the watchdog also keeps it (see
   * {@link watch}). Does nothing when already started.
   */
  start(): void {
    if (this.heartbeat !== undefined) return;
    const now = Date.now();
    this.beatDue = Math.max(now, this.lastWrite + this.renewEvery);
    this.heartbeat = unref(setTimeout(this.beat, this.beatDue - now));
  }

  /** Stops the heartbeat and the watchdog. */
  stop(): void {
    if (this.heartbeat !== undefined) clearTimeout(this.heartbeat);
    this.heartbeat = undefined;
    if (this.watchdog !== undefined) clearTimeout(this.watchdog);
    this.watchdog = undefined;
  }

  /**
   * Before a tool starts: the `RunLeaseLostError` (`operation: "toolStart"`) to fail the run with
   * when this process cannot be sure it will hold the lease a while longer (no write acknowledged
   * for its whole lease but the watchdog's margin), else `undefined`. The first tool to start arms
   * the watchdog, once the lease is started.
   */
  check(): RunLeaseLostError | undefined {
    const now = Date.now();
    if (now < this.leaseUntil - this.leaseMargin) {
      if (this.watchdog === undefined && this.heartbeat !== undefined) this.armWatch(this.leaseUntil - this.leaseMargin, now); // the first tool to start arms the watchdog
      return undefined;
    }
    return this.leaseLost("toolStart", now);
  }

  /** The record's creation was sent at `at` (epoch ms), before any write: it is the write in flight. */
  creating(at: number): void {
    this.sentAt = at;
  }

  /** A write was taken at `at` (epoch ms): the heartbeat counts `renewEvery` from it. */
  writing(at: number): void {
    this.lastWrite = at;
  }

  /**
   * The write taken at `at` was sent: it is the write in flight, sent as late as the lease's timers
   * ran since the last one (a block just before it; see {@link mayBeAnswered}).
   */
  sent(at: number): void {
    this.sentAt = at;
    this.sentLateMs = Math.max(this.lateSeen, this.overdue(at, 0));
    this.lateSeen = 0;
  }

  /** The store acknowledged the write (or the record's creation) sent at `sentAt`: the lease runs until `sentAt + leaseMs`. */
  acknowledged(sentAt: number): void {
    this.acknowledgedWrites++;
    this.lastRoundTripMs = Date.now() - sentAt;
    this.leaseUntil = sentAt + this.options.leaseMs;
  }

  /** The write in flight settled, acknowledged or not: none is in flight. */
  settled(): void {
    this.sentAt = undefined;
  }

  /** No write is pending any more: a heartbeat that came due meanwhile runs now. */
  idle(): void {
    if (!this.beatDeferred) return;
    this.beatDeferred = false;
    this.beatDue = Date.now(); // run now, on time: the wait was the write's, not a blocked event loop's
    this.beat();
  }

  /**
   * The heartbeat: renews the lease once `renewEvery` has passed since the last write, else waits
   * until it has. One timer, re-armed when it fires, so a write costs no timer operation. While a
   * write is queued or in flight it sends nothing (that write renews the lease when acknowledged,
   * and a heartbeat queued behind it would only load a busy store); it runs again once none is
   * ({@link idle}), renewing at once when the last write was sent `renewEvery` ago or more.
   */
  private readonly beat = (): void => {
    if (this.heartbeat === undefined) return;
    if (this.hooks.pending() > 0) {
      this.beatDeferred = true; // the heartbeat keeps its (spent) timer: it is still started
      return;
    }
    const now = Date.now();
    this.lateSeen = Math.max(this.lateSeen, now - this.beatDue);
    const due = this.lastWrite + this.renewEvery;
    if (now >= due) this.hooks.renew();
    if (this.heartbeat === undefined) return;
    this.beatDue = now >= due ? now + this.renewEvery : due;
    this.heartbeat = unref(setTimeout(this.beat, this.beatDue - now));
  };

  /** Arms the watchdog to run at `at` (epoch ms). */
  private armWatch(at: number, now: number): void {
    this.watchDue = at;
    this.watchdog = unref(setTimeout(this.watch, Math.max(0, at - now)));
  }

  /**
   * The watchdog: fails the run once its lease is within `leaseMargin` of running out; re-armed for
   * the lease's new end when a write acknowledged meanwhile moved it (so a write only moves a number).
   * After a blocked event loop (it ran late, or the write in flight was sent late: by a heartbeat
   * that ran late, or once the margin had begun), a write in flight sent since the lease's last
   * renewal may have been answered without the answer being read yet, or have had no fair time to
   * be: it then waits for that write until the lease's end rather than failing at the margin. A
   * lease already over fails the run at once.
   */
  private readonly watch = (): void => {
    if (this.heartbeat === undefined) return; // not keeping the lease (not started, or stopped)
    const now = Date.now();
    const late = now - this.watchDue;
    this.lateSeen = Math.max(this.lateSeen, late);
    const guard = this.leaseUntil - this.leaseMargin;
    if (now < guard) {
      this.stalledMs = undefined;
      this.armWatch(guard, now);
      return;
    }
    if (now < this.leaseUntil && this.mayBeAnswered(late)) {
      this.stalledMs = Math.max(this.stalledMs ?? 0, late);
      this.armWatch(this.leaseUntil, now);
      return;
    }
    this.hooks.fail(this.leaseLost("lease", now, late));
  };

  /**
   * Whether the write in flight is late for a blocked event loop rather than for the store: it was
   * sent after the lease's last renewal, and either only once the watchdog's margin had begun, or
   * just after a block (the lease's timers ran `blockedAfter` late or more), or the watchdog itself
   * ran that late (the answer may be there, unread).
   */
  private mayBeAnswered(late: number): boolean {
    const sent = this.sentAt;
    if (sent === undefined || sent <= this.leaseUntil - this.options.leaseMs) return false;
    return sent >= this.leaseUntil - this.leaseMargin || this.sentLateMs >= this.blockedAfter || late >= this.blockedAfter || this.stalledMs !== undefined;
  }

  /** How late the lease's timers run now (ms): how long the event loop was blocked, at least. */
  private overdue(now: number, late: number): number {
    let overdue = Math.max(late, this.stalledMs ?? 0, this.sentAt === undefined ? 0 : this.sentLateMs);
    if (this.watchdog !== undefined) overdue = Math.max(overdue, now - this.watchDue);
    if (this.heartbeat !== undefined && !this.beatDeferred) overdue = Math.max(overdue, now - this.beatDue);
    return overdue;
  }

  /**
   * The error of a run whose lease runs out (or has) with no write acknowledged: from the watchdog
   * (`lease`, which ran `late` ms late) or before a tool starts. Its message says what the lease
   * knows of why: a blocked event loop, a write in flight for so long, no write acknowledged at all.
   */
  private leaseLost(operation: "lease" | "toolStart", now: number, late = 0): RunLeaseLostError {
    const { runId, owner, leaseMs, storeTimeoutMs } = this.options;
    const epoch = this.hooks.epoch();
    const left = this.leaseUntil - now;
    const lapse = left > 0 ? `is about to have had no write acknowledged for its whole lease (${leaseMs} ms), which runs out in ${left} ms` : `has had no write acknowledged for its whole lease (${leaseMs} ms)`;
    const stops = operation === "lease" ? "stops here and aborts its tool calls" : "starts nothing more";
    const why: string[] = [];
    const blocked = this.overdue(now, late);
    if (blocked >= this.blockedAfter) {
      why.push(`The event loop was blocked for at least ${blocked} ms (the lease's timers ran that late; a block that began before they were due lasted longer): a tool or other code blocked the process (a busy loop, a large JSON.parse, synchronous I/O); move such work off the event loop (a worker thread) or raise leaseMs.`);
    }
    // A write sent a moment ago is not why the lease ran out: one that waited on the store at least
    // as long as a block is told is.
    if (this.sentAt !== undefined && now - this.sentAt >= this.blockedAfter) {
      why.push(`${why.length === 0 ? "A" : "Also, a"} write has been in flight for ${now - this.sentAt} ms without an answer: the store is slow or its connection pool is saturated; raise leaseMs (${leaseMs} ms) or the pool size, or run fewer runs at once (keep leaseMs well above the slowest write).`);
    }
    if (why.length === 0 && this.acknowledgedWrites > 0 && this.lastRoundTripMs >= this.options.leaseMs - this.leaseMargin) {
      // The answer came when the lease it renewed was (nearly) over: from the process's own view a
      // store that slow and a process frozen while it waited (no timer ran to tell) look the same.
      why.push(`The last write acknowledged took ${this.lastRoundTripMs} ms to be answered, so the lease it renewed had run out by then: the store was that slow, or this process was paused (SIGSTOP, a virtual machine or laptop asleep) or its event loop blocked while it waited. Raise leaseMs (${leaseMs} ms) above the longest such pause; move blocking work off the event loop (a worker thread).`);
    }
    if (this.acknowledgedWrites === 0) why.push(`The store has acknowledged none of this run's writes from this process: is it reachable? Keep leaseMs well above storeTimeoutMs (${storeTimeoutMs} ms).`);
    if (why.length === 0) why.push(`Is the store reachable? Keep leaseMs well above storeTimeoutMs (${storeTimeoutMs} ms) plus the slowest write.`);
    return new RunLeaseLostError({
      runId,
      owner,
      ...(epoch === undefined ? {} : { epoch }),
      operation,
      message: `Run "${runId}": this process (${owner}) ${lapse}, so another process may take the run over; the run ${stops}. ${why.join(" ")}`,
    });
  }
}

/**
 * `timer`, no longer keeping the process alive (where timers can be unref'd).
 *
 * @internal
 */
export function unref(timer: ReturnType<typeof setTimeout>): ReturnType<typeof setTimeout> {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
