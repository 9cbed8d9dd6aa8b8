// Test-only: an OpenTelemetry context manager on AsyncLocalStorage (what
// @opentelemetry/context-async-hooks registers), for tests that need spans to follow async calls.
// The API is passed in: no module of this package imports @opentelemetry/api's values.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Context, ContextManager } from "@opentelemetry/api";

type OtelApi = typeof import("@opentelemetry/api");

/** Registers a context manager on AsyncLocalStorage with `api`, globally; `api.context.disable()` removes it. @internal */
export function useAsyncContextManager(api: Pick<OtelApi, "context" | "ROOT_CONTEXT">): void {
  const storage = new AsyncLocalStorage<Context>();
  const manager: ContextManager = {
    active: () => storage.getStore() ?? api.ROOT_CONTEXT,
    with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.call(thisArg, ...args)),
    bind: (_ctx, target) => target,
    enable() {
      return this;
    },
    disable() {
      storage.disable();
      return this;
    },
  };
  api.context.setGlobalContextManager(manager);
}
