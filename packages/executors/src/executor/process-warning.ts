/**
 * A process warning with `code` (`process.emitWarning`), or, where there is no `process` (a
 * browser), a console warning: what the executor warns about once (an unpriced model, a tracer
 * that throws) without failing the run.
 *
 * @internal
 */
export function processWarning(message: string, code: string): void {
  const emit = globalThis.process?.emitWarning;
  if (typeof emit === "function") emit.call(globalThis.process, message, { code });
  else console.warn(`[${code}] ${message}`);
}
