/** A `postgres://` or `postgresql://` URL (any case), as opposed to a key-value string or a `socket:` one. */
export const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;

/** Stands in for the host a URL's parser needs, where `pg` takes a URL without one. */
const NO_HOST = "agentrx-no-host.invalid";

/** A `postgres://` URL read the way `agentrx` and `PostgresRunStore` read it. */
export interface PostgresUrl {
  /** The URL without its `?schema=`; its host is a stand-in when `noHost`. */
  url: URL;
  /** True when the URL has no host (`postgres://app@/runs?host=/var/run/postgresql`). */
  noHost: boolean;
  /** Its `?schema=` parameter (the first, when there are several); undefined when it has none. */
  schema: string | undefined;
  /** The URL as `pg` takes it, without `?schema=` (a parameter `pg` ignores). */
  connectionString: string;
}

/**
 * `text` as a PostgreSQL URL, or undefined when it is not a `postgres://` or `postgresql://` URL
 * that a URL parser reads. A URL whose host is empty (a Unix socket, or a host given as `?host=`),
 * which `pg` accepts and the URL parser refuses, is parsed with a stand-in host (`noHost`).
 * `?schema=` is the store's schema, which `pg` would drop silently: `agentrx --db` and
 * `PostgresRunStore`'s `connectionString` both read it here.
 *
 * @internal
 */
export function parsePostgresUrl(text: string): PostgresUrl | undefined {
  if (!POSTGRES_URL.test(text)) return undefined;
  const parsed = parseUrl(text);
  if (parsed === undefined) return undefined;
  const { url, noHost } = parsed;
  const schema = url.searchParams.get("schema") ?? undefined;
  url.searchParams.delete("schema");
  const connectionString = noHost ? url.toString().replace(`@${NO_HOST}/`, "@/") : url.toString();
  return { url, noHost, schema, connectionString };
}

function parseUrl(text: string): { url: URL; noHost: boolean } | undefined {
  try {
    return { url: new URL(text), noHost: false };
  } catch {
    if (!text.includes("@/")) return undefined;
    try {
      return { url: new URL(text.replace("@/", `@${NO_HOST}/`)), noHost: true };
    } catch {
      return undefined;
    }
  }
}
