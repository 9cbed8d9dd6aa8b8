// `npm run test:runtimes`: the runtime matrix (test/runtimes/runtime-matrix.test.ts), which runs the
// examples, the documentation blocks and the store conformance suites under Deno, Bun and Node.js
// 20.19, 22, 24 and 26 (docs/runtimes.md). Same resolution and limits as vitest.config.ts.
import { defineConfig } from "vitest/config";
import base, { RUNTIME_MATRIX } from "./vitest.config";

export default defineConfig({
  ...base,
  test: { ...base.test, include: [RUNTIME_MATRIX], exclude: ["**/node_modules/**", "**/dist/**"] },
});
