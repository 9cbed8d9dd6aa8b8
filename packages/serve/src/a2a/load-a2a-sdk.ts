// `@a2a-js/sdk` is an optional peer dependency: it is imported the first time an A2A handler
// serves a request or an A2A tool is used, never when the package is merely imported. @internal

type ServerModule = typeof import("@a2a-js/sdk/server");
type CompatServerModule = typeof import("@a2a-js/sdk/compat/v0_3/server");
type ClientModule = typeof import("@a2a-js/sdk/client");

let server: Promise<{ server: ServerModule; compat: CompatServerModule }> | undefined;
let client: Promise<ClientModule> | undefined;

const HINT = "The A2A integration of @agentrx/serve needs the optional peer dependency @a2a-js/sdk: npm install @a2a-js/sdk";

function explain(error: unknown): never {
  throw new Error(`${HINT} (${error instanceof Error ? error.message : String(error)})`, { cause: error });
}

/** The SDK's server side (and its v0.3 compatibility layer). */
export function loadA2AServer(): Promise<{ server: ServerModule; compat: CompatServerModule }> {
  return (server ??= Promise.all([import("@a2a-js/sdk/server"), import("@a2a-js/sdk/compat/v0_3/server")]).then(
    ([serverModule, compatModule]) => ({ server: serverModule, compat: compatModule }),
    explain,
  ));
}

/** The SDK's client side. */
export function loadA2AClient(): Promise<ClientModule> {
  return (client ??= import("@a2a-js/sdk/client").catch(explain));
}
