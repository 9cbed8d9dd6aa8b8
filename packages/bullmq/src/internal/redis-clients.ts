// Our own Redis connections (BullMQ opens its own): one for commands and publishing, one in
// subscriber mode. Made from the same `connection` the caller gives BullMQ. @internal
import { Redis, type RedisOptions } from "ioredis";

/**
 * How to reach Redis, as BullMQ takes it: ioredis options (with `url` as an alternative to
 * `host`/`port`), or an ioredis instance. An instance given is shared for commands and never
 * closed by us; the subscriber connection is always its own (`duplicate()`).
 */
export type RunQueueConnection = (RedisOptions & { url?: string }) | Redis;

export interface RedisClients {
  /** Commands and PUBLISH. */
  command: Redis;
  /** SUBSCRIBE only. */
  subscriber: Redis;
  /** Closes the connections we opened (at once when Redis is unreachable). */
  close(): Promise<void>;
  /** Drops the connections we opened at once, without waiting for Redis (their pending commands are abandoned). */
  drop(): void;
}

export function isRedisInstance(connection: unknown): connection is Redis {
  return connection instanceof Redis || (typeof connection === "object" && connection !== null && typeof (connection as Redis).duplicate === "function" && typeof (connection as Redis).publish === "function");
}

export function openRedisClients(connection: RunQueueConnection): RedisClients {
  const owned: Redis[] = [];
  const open = (): Redis => {
    let client: Redis;
    if (isRedisInstance(connection)) {
      client = connection.duplicate();
    } else {
      const { url, ...options } = connection;
      // Commands wait through a reconnect instead of failing after a few retries.
      client = url === undefined ? new Redis({ maxRetriesPerRequest: null, ...options }) : new Redis(url, { maxRetriesPerRequest: null, ...options });
    }
    // Errors are retried by ioredis (it reconnects); listening keeps them off `uncaughtException`.
    client.on("error", () => undefined);
    owned.push(client);
    return client;
  };
  const command = isRedisInstance(connection) ? connection : open();
  const subscriber = open();
  return {
    command,
    subscriber,
    async close() {
      // QUIT waits for the commands sent before it, which wait for a Redis that may not come back:
      // a connection that is down is dropped instead (its pending commands reject).
      await Promise.all(owned.map((client) => (client.status === "ready" ? client.quit().then(() => undefined, () => client.disconnect()) : client.disconnect())));
    },
    drop() {
      for (const client of owned) client.disconnect();
    },
  };
}
