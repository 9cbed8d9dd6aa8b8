import { showValue } from "@agentrx/core";
import { invalid, type Operation } from "./read-operations";

/**
 * A server's URL with its `{variables}` replaced by their `default` values, as OpenAPI says (a
 * server URL such as "https://{region}.api.example.com/{version}" is a template); a variable
 * without a default is refused, naming it, rather than sent as literal braces. `label` names the
 * server in the document (`servers[0]`, `paths["/files"].post.servers[0]`), `fix` what to do.
 */
function serverUrl(server: unknown, label: string, fix: string): unknown {
  const url = (server as { url?: unknown } | undefined)?.url;
  if (typeof url !== "string") return url;
  const variables = (server as { variables?: unknown }).variables;
  return url.replace(/\{([^{}]*)\}/g, (_match, name: string) => {
    const variable = typeof variables === "object" && variables !== null && Object.hasOwn(variables, name) ? (variables as Record<string, unknown>)[name] : undefined;
    const value = (variable as { default?: unknown } | undefined)?.default;
    if (typeof value !== "string" || /[{}]/.test(value)) {
      throw invalid("baseUrl", url, `${label}.url "${url}" has the variable {${name}} without a default value in ${label}.variables; ${fix}.`);
    }
    return value;
  });
}

/**
 * The URL requests are sent under: absolute http(s), without a query, a fragment or credentials,
 * and without a trailing slash (the operation's path has one).
 */
function checkedBase(url: string, problem: (message: string) => Error): URL {
  const parsed = new URL(url.endsWith("/") ? url.slice(0, -1) : url);
  if (!/^https?:$/.test(parsed.protocol)) throw problem(`is not an http(s) URL`);
  if (parsed.search || parsed.hash || parsed.username || parsed.password) throw problem("holds a query, a fragment or credentials");
  return parsed;
}

/** The document's base URL: `baseUrl`, else its first `servers` entry, which must then be absolute. */
function readBaseUrl(document: Record<string, unknown>, baseOption: string | undefined): URL {
  const servers = document.servers as unknown[] | undefined;
  const base = baseOption ?? (Array.isArray(servers) ? serverUrl(servers[0], "servers[0]", "pass baseUrl with a value for it filled in") : undefined);
  if (typeof base === "string" && /[{}]/.test(base)) {
    throw invalid("baseUrl", base, `baseUrl "${base}" holds a {variable}; give the URL with its value filled in.`);
  }
  if (typeof base !== "string" || !URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol)) {
    throw invalid("baseUrl", base, 'baseUrl must be an absolute http(s) URL such as "https://api.example.com/v1" (the document has no absolute servers[0].url to use instead).');
  }
  return checkedBase(base, () => invalid("baseUrl", base, "baseUrl may not hold a query, a fragment or credentials; pass credentials in `headers` instead."));
}

/**
 * The base URL of each operation, as OpenAPI 3 says: the first of the operation's own `servers`,
 * else of its path's, else `baseUrl` (which stands in for the document's `servers`), else the
 * document's first `servers` entry. A relative server URL of a path or an operation is resolved
 * against that document-level base URL, taken as a directory ("/files" against
 * "https://api.example.com/v1" is "https://api.example.com/files", "files" is
 * "https://api.example.com/v1/files"). The document-level base URL is only required when an
 * operation uses it: a document whose operations all name absolute servers needs no `baseUrl`.
 */
export function operationBaseUrls(document: Record<string, unknown>, baseOption: string | undefined, operations: readonly Operation[]): URL[] {
  let documentBase: URL | undefined;
  let documentProblem: unknown;
  try {
    documentBase = readBaseUrl(document, baseOption);
  } catch (error) {
    if (baseOption !== undefined) throw error; // the option itself is wrong, whatever the operations use
    documentProblem = error;
  }
  const documentBaseUrl = (): URL => {
    if (documentBase === undefined) throw documentProblem;
    return documentBase;
  };
  return operations.map((operation) => {
    if (operation.servers === undefined) return documentBaseUrl();
    const label = `paths[${JSON.stringify(operation.path)}]${operation.servers.owner === "operation" ? `.${operation.method.toLowerCase()}` : ""}.servers[0]`;
    const leaveOut = `leave the operation out with \`operations\` (it is the tool ${operation.toolName})`;
    const url = serverUrl(operation.servers.list[0], label, `give the variable a default in the document, or ${leaveOut}`);
    const problem = (message: string) => invalid("document", url, `${label}.url ${showValue(url)} ${message}; fix the document, or ${leaveOut}.`);
    if (typeof url !== "string") throw problem("is not a string");
    if (URL.canParse(url)) return checkedBase(url, problem);
    // Relative: to where the document's servers point.
    const base = documentBaseUrl();
    const resolved = URL.canParse(url, `${base.toString().replace(/\/$/, "")}/`) ? new URL(url, `${base.toString().replace(/\/$/, "")}/`).toString() : undefined;
    if (resolved === undefined) throw problem("is not a URL");
    return checkedBase(resolved, problem);
  });
}
