import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** The runtime matrix, run by `npm run test:runtimes` (vitest.runtimes.config.ts), not by `npm test`. */
export const RUNTIME_MATRIX = "test/runtimes/runtime-matrix.test.ts";

const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@agentrx\/core\/testing$/, replacement: src("core/src/testing/index.ts") },
      { find: /^@agentrx\/core\/openai$/, replacement: src("core/src/openai/index.ts") },
      { find: /^@agentrx\/core$/, replacement: src("core/src/index.ts") },
      { find: /^@agentrx\/agents$/, replacement: src("agents/src/index.ts") },
      { find: /^@agentrx\/executors\/trace-page$/, replacement: src("viewer/src/trace-page/index.ts") },
      { find: /^@agentrx\/executors$/, replacement: src("executors/src/index.ts") },
      { find: /^@agentrx\/runs\/testing$/, replacement: src("runs/src/testing/index.ts") },
      { find: /^@agentrx\/runs$/, replacement: src("runs/src/index.ts") },
      { find: /^@agentrx\/bullmq$/, replacement: src("bullmq/src/index.ts") },
      { find: /^@agentrx\/serve$/, replacement: src("serve/src/index.ts") },
      { find: /^@agentrx\/tools$/, replacement: src("tools/src/index.ts") },
      { find: /^@agentrx\/viewer\/trace-page$/, replacement: src("viewer/src/trace-page/index.ts") },
      { find: /^@agentrx\/viewer$/, replacement: src("viewer/src/index.ts") },
    ],
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "examples/**/*.test.ts", "docs/**/*.test.ts", "test/**/*.test.ts"],
    // The runtime matrix (Deno, Bun, four Node.js lines) is `npm run test:runtimes`, with its own
    // config (vitest.runtimes.config.ts): it needs runtimes that `npm install` does not fetch.
    exclude: ["**/node_modules/**", "**/dist/**", RUNTIME_MATRIX],
    // The type tests (`*.test-d.ts`) are checked by `npm run typecheck` (tsconfig.json includes
    // them), which `npm test` runs before vitest; `vitest --typecheck` runs them as tests here too.
    typecheck: { enabled: false, include: ["packages/*/src/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "threads",
    // Most test files wait on child processes, servers and timers rather than on a core, and a
    // worker spends about a third of its time importing the next file's modules: one worker more
    // than there are cores keeps the cores busy (on 2 cores, 3 workers ran the suite in 472 s where
    // 2 took 640 s; 4 took 513 s, with a lease test failing for want of CPU).
    maxWorkers: availableParallelism() + 1,
  },
});
