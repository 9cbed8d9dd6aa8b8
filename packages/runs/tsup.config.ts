import { defineConfig } from "tsup";
import { cliConfig } from "./tsup.cli.config";

export default defineConfig([
  {
    // index.browser is the `browser` condition of ".": the same without SqliteRunStore and PostgresRunStore.
    entry: { index: "src/index.ts", "index.browser": "src/index.browser.ts", "testing/index": "src/testing/index.ts" },
    format: ["esm", "cjs"],
    dts: true,
    // dist/cli is the executable's, built by the second config at the same time.
    clean: ["!cli/**"],
    sourcemap: true,
    target: "node20",
    treeshake: true,
    external: ["better-sqlite3", "pg", "vitest"],
  },
  cliConfig,
]);
