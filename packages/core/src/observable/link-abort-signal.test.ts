import { describe, expect, it } from "vitest";
import { linkAbortSignal } from "./link-abort-signal";

function trackedSignal() {
  const controller = new AbortController();
  const listeners = new Set<unknown>();
  const { addEventListener, removeEventListener } = controller.signal;
  controller.signal.addEventListener = (type: string, listener: never, options?: never) => {
    listeners.add(listener);
    addEventListener.call(controller.signal, type, listener, options);
  };
  controller.signal.removeEventListener = (type: string, listener: never, options?: never) => {
    listeners.delete(listener);
    removeEventListener.call(controller.signal, type, listener, options);
  };
  return { controller, listeners };
}

describe("linkAbortSignal", () => {
  it("aborts the child with the parent's reason", () => {
    const parent = new AbortController();
    const child = new AbortController();
    linkAbortSignal(parent.signal, child);
    const reason = new Error("stop");
    parent.abort(reason);
    expect(child.signal.aborted).toBe(true);
    expect(child.signal.reason).toBe(reason);
  });

  it("removes its listener when unlinked, so a later abort no longer reaches the child", () => {
    const { controller: parent, listeners } = trackedSignal();
    const child = new AbortController();
    const unlink = linkAbortSignal(parent.signal, child);
    expect(listeners.size).toBe(1);
    unlink();
    expect(listeners.size).toBe(0);
    parent.abort();
    expect(child.signal.aborted).toBe(false);
  });

  it("aborts at once for an already aborted parent, adding no listener", () => {
    const { controller: parent, listeners } = trackedSignal();
    parent.abort("early");
    const child = new AbortController();
    const unlink = linkAbortSignal(parent.signal, child);
    expect(child.signal.reason).toBe("early");
    expect(listeners.size).toBe(0);
    expect(unlink).not.toThrow();
  });

  it("does nothing without a parent signal", () => {
    const child = new AbortController();
    linkAbortSignal(undefined, child)();
    expect(child.signal.aborted).toBe(false);
  });
});
