// Idle timeout of a streamed response (not exported from the package): the `openai` SDK's
// `timeout` covers the wait for the response's headers only, so a server that stalls in the middle
// of a stream would otherwise hang the call forever.

/** The stream sent nothing for `ms` milliseconds. */
export class StreamIdleTimeout extends Error {
  constructor(readonly ms: number) {
    super(`The stream sent nothing for ${ms} ms.`);
    this.name = "StreamIdleTimeout";
  }
}

/**
 * Iterates `source`, failing with a {@link StreamIdleTimeout} when the next item takes longer than
 * `ms` (none: it may take as long as it takes). Once `quietMs` gives a time (the response is
 * complete, only trailing items such as a usage report may follow), a wait longer than that ends
 * the iteration as if `source` had ended: a server that sent its whole answer and `[DONE]` but
 * keeps the connection open does not hang the call. Unless `source` ran to its end, `abort` is
 * called on the way out (a timeout, an error, a quiet end, or a consumer that stopped early), to
 * close the connection.
 */
export async function* withIdleTimeout<T>(source: AsyncIterable<T>, ms: number | undefined, abort: () => void, quietMs?: () => number | undefined): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let ended = false;
  try {
    for (;;) {
      const quiet = quietMs?.();
      let next: IteratorResult<T>;
      if (quiet === undefined && ms === undefined) next = await iterator.next();
      else {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const wait = quiet === undefined ? (ms as number) : ms === undefined ? quiet : Math.min(ms, quiet);
        const idle = new Promise<IteratorResult<T>>((resolve, reject) => {
          timer = setTimeout(() => (quiet === undefined ? reject(new StreamIdleTimeout(wait)) : resolve({ done: true, value: undefined })), wait);
        });
        try {
          next = await Promise.race([iterator.next(), idle]);
        } finally {
          clearTimeout(timer);
        }
        if (next.done && quiet !== undefined) return; // quiet after the answer: done (`abort` closes the connection)
      }
      if (next.done) {
        ended = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!ended) abort();
  }
}
