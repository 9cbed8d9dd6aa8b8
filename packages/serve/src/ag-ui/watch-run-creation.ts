// Watching a new run's record being created, so that the AG-UI handler can answer a request whose
// run id another request took meanwhile with 409 before its stream opens (see docs/serving.md,
// "AG-UI"). @internal
import type { NewRun, RunStore } from "@agentrx/executors";

/** A run store that tells when one run's record is created. */
export interface WatchedStore {
  /** The store to run with: the given store itself, whose `createRun` of the watched run is watched. */
  readonly store: RunStore;
  /** Resolves once the run's record is created; rejects when the store refuses it. */
  readonly created: Promise<void>;
  /** Whether the store refused to create the run's record (set before the run hears of it). */
  readonly refused: boolean;
}

/**
 * `store` as seen through a proxy that watches `createRun` for `runId`; every other call goes to
 * the store itself (bound to it, so stores with private fields work), and the proxy is the store
 * for `instanceof` too.
 */
export function watchRunCreation(store: RunStore, runId: string): WatchedStore {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const created = new Promise<void>((onCreated, onRefused) => {
    resolve = onCreated;
    reject = onRefused;
  });
  created.catch(() => undefined); // the run hears of a refusal; this promise is only watched
  let refused = false;
  const createRun = (run: NewRun): Promise<void> => {
    let call: Promise<void>;
    try {
      call = Promise.resolve(store.createRun(run));
    } catch (error) {
      call = Promise.reject(error);
    }
    if (run?.runId === runId) {
      call.then(resolve, (error: unknown) => {
        refused = true;
        reject(error);
      });
    }
    return call;
  };
  const proxy = new Proxy(store, {
    get(target, key) {
      if (key === "createRun") return createRun;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    store: proxy,
    created,
    get refused() {
      return refused;
    },
  };
}
