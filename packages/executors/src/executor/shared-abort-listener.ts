/** One listener on a signal, shared by every run that watches it. */
interface Watchers {
  callbacks: Set<() => void>;
  listener: () => void;
}

const watched = new WeakMap<AbortSignal, Watchers>();

/**
 * Calls `callback` when `signal` aborts; returns a function that stops watching. However many
 * runs watch one signal (a server's shutdown signal shared by every request), the signal gets a
 * single listener, so Node never warns about a listener leak, and the listener goes away when the
 * last run stops watching.
 *
 * @internal
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let watchers = watched.get(signal);
  if (watchers === undefined) {
    const callbacks = new Set<() => void>();
    const listener = () => {
      watched.delete(signal);
      for (const each of [...callbacks]) each();
      callbacks.clear();
    };
    watchers = { callbacks, listener };
    watched.set(signal, watchers);
    signal.addEventListener("abort", listener, { once: true });
  }
  const { callbacks, listener } = watchers;
  callbacks.add(callback);
  return () => {
    if (!callbacks.delete(callback) || callbacks.size > 0) return;
    signal.removeEventListener("abort", listener);
    if (watched.get(signal)?.callbacks === callbacks) watched.delete(signal);
  };
}
