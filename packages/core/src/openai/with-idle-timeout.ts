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
 * `ms`. Unless `source` ran to its end, `abort` is called on the way out (a timeout, an error, or a
 * consumer that stopped early), to close the connection.
 */
export async function* withIdleTimeout<T>(source: AsyncIterable<T>, ms: number, abort: () => void): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let ended = false;
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StreamIdleTimeout(ms)), ms);
      });
      let next: IteratorResult<T>;
      try {
        next = await Promise.race([iterator.next(), idle]);
      } finally {
        clearTimeout(timer);
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
