/**
 * Inputs hooks (`inputs` of the AG-UI handler, `toInputs` of the A2A handler) that return no inputs
 * object, each with how the refusal shows what it returned; the last one's Promise rejects.
 */
export const BAD_INPUTS_HOOKS: readonly [hook: () => unknown, shown: string][] = [
  [() => undefined, "undefined"],
  [() => 42, "42"],
  [() => [{ input: "hi" }], "an array"],
  [async () => ({ input: "hi" }), "a Promise"],
  [() => Promise.reject(new Error("profile store down")), "a Promise"],
];

/** Runs `check` while counting the process's unhandled rejections; returns them once it settled (and a moment passed). */
export async function unhandledRejectionsDuring(check: () => Promise<void>): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    await check();
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
  return unhandled;
}
