import { defineConfig } from "tsup";

export default defineConfig({
  entry: {"index": "src/index.ts", "testing/index": "src/testing/index.ts"},
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  treeshake: true,
  external: ["better-sqlite3", "pg", "vitest"],
});
