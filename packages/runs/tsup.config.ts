import { defineConfig } from "tsup";
import { cliConfig } from "./tsup.cli.config";

export default defineConfig([
  {
    entry: { index: "src/index.ts", "testing/index": "src/testing/index.ts" },
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
