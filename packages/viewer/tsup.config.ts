import { defineConfig } from "tsup";

export default defineConfig({
  // index.browser is the `browser` condition of ".": the same without the Node `ui` server.
  entry: { index: "src/index.ts", "index.browser": "src/index.browser.ts", "trace-page/index": "src/trace-page/index.ts" },
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  treeshake: true,
});
