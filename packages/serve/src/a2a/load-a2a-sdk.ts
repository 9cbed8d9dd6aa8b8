// `@a2a-js/sdk` is an optional peer dependency: it is imported the first time an A2A handler
// serves a request or an A2A tool is used, never when the package is merely imported. @internal

type ServerModule = typeof import("@a2a-js/sdk/server");
type CompatServerModule = typeof import("@a2a-js/sdk/compat/v0_3/server");
type ErrorsModule = typeof import("@a2a-js/sdk/errors");
type ClientModule = typeof import("@a2a-js/sdk/client");

let server: Promise<{ server: ServerModule; compat: CompatServerModule; errors: ErrorsModule }> | undefined;
let client: Promise<ClientModule> | undefined;

const HINT = "The A2A integration of @agentrx/serve needs the optional peer dependency @a2a-js/sdk: npm install @a2a-js/sdk";

function explain(error: unknown): never {
  throw new Error(`${HINT} (${error instanceof Error ? error.message : String(error)})`, { cause: error });
}

/** The SDK's server side (its v0.3 compatibility layer, and its errors). */
export function loadA2AServer(): Promise<{ server: ServerModule; compat: CompatServerModule; errors: ErrorsModule }> {
  return (server ??= Promise.all([import("@a2a-js/sdk/server"), import("@a2a-js/sdk/compat/v0_3/server"), import("@a2a-js/sdk/errors")]).then(
    ([serverModule, compatModule, errorsModule]) => ({ server: serverModule, compat: compatModule, errors: errorsModule }),
    explain,
  ));
}

/** The SDK's client side. */
export function loadA2AClient(): Promise<ClientModule> {
  return (client ??= import("@a2a-js/sdk/client").catch(explain));
}
