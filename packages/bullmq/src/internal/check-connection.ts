// The check of the `connection` option of `createRunWorker` and `RunClient`: ioredis options (or an
// ioredis instance, taken as it is). A key ioredis does not take, or a value of the wrong type for
// where to connect, is refused before any connection is opened: ioredis would otherwise dial a
// wrong port forever, or throw a bare `TypeError` from inside BullMQ. @internal
import { InvalidArgumentError, nearMissOf } from "@agentrx/core";
import { isRedisInstance } from "./redis-clients";
import { fail } from "./validate";

/**
 * The options ioredis (5 and 6) takes for a standalone or Sentinel connection, and BullMQ's
 * `url` and `skipVersionCheck`.
 */
const REDIS_OPTION_KEYS: readonly string[] = [
  // Where to connect
  "url", "host", "port", "path", "family", "tls", "db", "username", "password",
  // Connection and commands
  "Connector", "retryStrategy", "commandTimeout", "blockingTimeout", "blockingTimeoutGrace", "socketTimeout", "keepAlive",
  "noDelay", "connectionName", "disableClientInfo", "clientInfoTag", "autoResubscribe", "autoResendUnfulfilledCommands",
  "reconnectOnError", "readOnly", "stringNumbers", "protocol", "replyMapping", "connectTimeout", "disconnectTimeout", "monitor",
  "maxRetriesPerRequest", "maxLoadingRetryTime", "enableAutoPipelining", "autoPipeliningIgnoredCommands", "offlineQueue",
  "commandQueue", "enableOfflineQueue", "enableReadyCheck", "lazyConnect", "scripts", "himportFieldsets", "keyPrefix",
  "showFriendlyErrorStack",
  // Sentinel
  "name", "role", "sentinelUsername", "sentinelPassword", "sentinels", "sentinelRetryStrategy", "sentinelReconnectStrategy",
  "preferredSlaves", "sentinelCommandTimeout", "enableTLSForSentinelMode", "sentinelTLS", "natMap", "updateSentinels",
  "sentinelMaxConnections", "failoverDetector",
  // BullMQ
  "skipVersionCheck",
];

const EXPECTED = 'ioredis options (e.g. { host: "127.0.0.1", port: 6379 } or { url: "redis://..." }) or an ioredis instance';

/** Whether ioredis reads `url` as a place to connect to (as its `parseURL` does), not as something it throws on or misreads. */
function isRedisUrl(url: unknown): boolean {
  if (typeof url !== "string" || url.trim() === "") return false;
  if (/^\d+$/.test(url)) return true; // a port
  if (url.startsWith("/") && !url.startsWith("//")) return true; // a Unix socket path
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !/^rediss?:\/\//i.test(url)) return false; // http://, unix://, ...
  try {
    const parsed = new URL(/^rediss?:\/\//i.test(url) ? url : url.startsWith("//") ? `redis:${url}` : `redis://${url}`);
    return parsed.hostname !== "" || parsed.port !== "";
  } catch {
    return false;
  }
}

const isPort = (port: unknown): boolean => {
  const number = typeof port === "string" && /^\d+$/.test(port) ? Number(port) : port;
  return typeof number === "number" && Number.isInteger(number) && number >= 0 && number <= 65535;
};
const isText = (value: unknown): boolean => typeof value === "string" && value !== "";
const isSecret = (value: unknown): boolean => value === null || typeof value === "string";

/** The options whose type is checked: what the value must be, and how to say so. */
const TYPED: Readonly<Record<string, { ok: (value: unknown) => boolean; expected: string }>> = {
  url: { ok: isRedisUrl, expected: 'a Redis URL ("redis://host:port", "rediss://...") or a socket path' },
  host: { ok: isText, expected: "a host name or address (a non-empty string)" },
  port: { ok: isPort, expected: "a port, an integer from 0 to 65535" },
  path: { ok: isText, expected: "a Unix socket path (a non-empty string)" },
  db: { ok: (db) => typeof db === "number" && Number.isInteger(db) && db >= 0, expected: "a database number, an integer >= 0" },
  username: { ok: isSecret, expected: "a string" },
  password: { ok: isSecret, expected: "a string" },
  tls: { ok: (tls) => typeof tls === "boolean" || typeof tls === "string" || (typeof tls === "object" && tls !== null && !Array.isArray(tls)), expected: "TLS options (an object, or the name of an ioredis TLS profile)" },
  family: { ok: (family) => family === 0 || family === 4 || family === 6, expected: "the IP family: 4, 6 or 0 (either)" },
};

/** What an error may show of a refused value: a password only by its type, a URL without its credentials. */
function hideSecrets(key: string, value: unknown): unknown {
  if (key === "password" || key === "username") return typeof value === "object" ? "(an object)" : `(a ${typeof value})`;
  return key === "url" && typeof value === "string" ? value.replace(/\/\/[^/@]*@/, "//***@") : value;
}

/**
 * Checks `connection`: an ioredis instance (not looked into), or an object of ioredis options
 * whose keys ioredis takes (a near miss of one is named) and whose `url`, `host`, `port`, `path`,
 * `db`, `username`, `password`, `tls` and `family` have the types ioredis needs. An `undefined`
 * option is one not given.
 *
 * @throws InvalidArgumentError naming the option (`connection.port`) and what it must be
 */
export function checkConnection(where: string, connection: unknown): void {
  if (connection === null || typeof connection !== "object" || Array.isArray(connection)) fail(where, "connection", connection, EXPECTED);
  if (isRedisInstance(connection)) return;
  for (const [key, value] of Object.entries(connection)) {
    if (value === undefined) continue;
    if (!REDIS_OPTION_KEYS.includes(key)) {
      const meant = nearMissOf(key, REDIS_OPTION_KEYS);
      const said = meant === undefined ? "" : `; did you mean \`${meant}\`?`;
      throw new InvalidArgumentError({
        argument: `connection.${key}`,
        value,
        message: `${where}: unknown option \`connection.${key}\`: not an option ioredis takes${said} (for an ioredis option this check does not know, pass an ioredis instance instead).`,
      });
    }
    const typed = TYPED[key];
    if (typed !== undefined && !typed.ok(value)) fail(where, `connection.${key}`, hideSecrets(key, value), typed.expected);
  }
}
