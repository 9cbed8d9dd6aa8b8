import { type ClaimRun, RunLeaseLostError, type RunInfo, type RunStatus, type RunStore, type RunUpdate, type RunWrite, type RunWriteResult, type StoredRunEvent } from "@agentrx/executors";

/** What a worker learns from the writes of the run it runs. */
export interface StoreTapHooks {
  /** A write is in the store: its events, in order. */
  written(events: readonly StoredRunEvent[]): void;
  /**
   * May change a write's run update before it is sent (a hand-off turns `cancelled` into `queued`).
   * `found`: the run's status as the executor's claim found it (before the claim), once it claimed it.
   */
  rewrite?(update: RunUpdate, found: RunStatus | undefined): RunUpdate;
  /**
   * The run as the worker has just read it: the first `getRun` of that run (the one `resume`
   * makes) is answered with it instead of a second round trip. A run that changed in between is
   * as one that changed after that read: `resume` claims it, then checks its record again.
   */
  known?: RunInfo;
}

/** The store a worker gives the executor: the same store, with its writes observed. */
export interface StoreTap {
  store: RunStore;
  /**
   * Resolves once a write that gives up the run's lease has been attempted (succeeded or failed),
   * or a write was refused because the lease is gone (cancelled through the store, taken over):
   * the run writes nothing more then.
   */
  released: Promise<void>;
  /**
   * Gives up the lease of a run that the executor claimed and then left without a word (it stopped
   * before its first event: an `AbortSignal` aborted while it claimed the run), with `update`
   * (through `rewrite`). Resolves with whether there was such a claim to give up.
   */
  releaseClaim(update: RunUpdate): Promise<boolean>;
}

/**
 * Wraps `store` so that every successful `write` is reported, in order (the executor's recorder
 * has one write in flight at a time), and the first `getRun` of the `known` run is answered with
 * it. Other methods pass through unchanged.
 *
 * @internal
 */
export function tapStore(store: RunStore, hooks: StoreTapHooks): StoreTap {
  let resolveReleased: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (resolveReleased = resolve));
  let gone = false; // a write gave the lease up (or found it lost)
  const release = () => {
    gone = true;
    resolveReleased();
  };
  let claim: { runId: string; owner: string; leaseMs: number; epoch: number | undefined; found: RunStatus } | undefined;
  const claimRun = async (runId: string, given: ClaimRun): Promise<RunInfo> => {
    const claimed = await store.claimRun(runId, given);
    claim = { runId, owner: given.owner, leaseMs: given.leaseMs, epoch: claimed.epoch, found: claimed.status };
    return claimed;
  };
  const write = async (runId: string, given: RunWrite): Promise<RunWriteResult | void> => {
    const update = given.update && hooks.rewrite ? hooks.rewrite(given.update, claim?.found) : given.update;
    const change: RunWrite = update === given.update ? given : { ...given, ...(update ? { update } : {}) };
    const releases = change.update?.release === true;
    let result: RunWriteResult | void;
    try {
      result = await store.write(runId, change);
    } catch (error) {
      if (releases || RunLeaseLostError.isInstance(error)) release();
      throw error;
    }
    hooks.written(change.events);
    if (releases) release();
    return result;
  };
  let known = hooks.known;
  const getRun = (runId: string): Promise<RunInfo | undefined> => {
    const info = known;
    if (info === undefined || info.runId !== runId) return store.getRun(runId);
    known = undefined;
    return Promise.resolve({ ...info }); // a copy: the worker still reads its own
  };
  const releaseClaim = async (update: RunUpdate): Promise<boolean> => {
    if (claim === undefined || gone) return false;
    const { runId, owner, leaseMs, epoch } = claim;
    await write(runId, { owner, leaseMs, ...(epoch === undefined ? {} : { epoch }), events: [], update: { ...update, release: true }, at: Date.now() });
    return true;
  };
  const tapped = new Proxy(store, {
    get(target, name, receiver) {
      if (name === "write") return write;
      if (name === "getRun") return getRun;
      if (name === "claimRun") return claimRun;
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: tapped, released, releaseClaim };
}
