import { defineConfig } from "tsup";

export default defineConfig({
  // ./trace-page is not built: trace-page/ re-exports @agentrx/viewer/trace-page, where it moved.
  entry: { index: "src/index.ts" },
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  treeshake: true,
});
